"""The controller mode's property declarations: its :class:`~invariants.declare.CheckRegistry`. Each
property is declared with :func:`check` above its compiled predicate in a concern module
(:mod:`invariants.controller.durability`, ``election``, ``witnesses``), exactly as the 4.4 mode's
(:mod:`invariants.declare` explains a declaration); its bit is its place in the declared order, and
:mod:`invariants.controller.checks` (``state_check``, ``transition_check``, ``eventually_masks``) is
generated from the declarations: regenerate it with ``python -m invariants.controller.declare``; a test
fails while it is stale.
"""
from __future__ import annotations

from pathlib import Path

from ..declare import CheckRegistry

#: the concern modules of :mod:`invariants.controller`, in the order their properties are listed
CONCERNS = ("durability", "election", "offsets", "witnesses")

#: the controller mode's properties
CONTROLLER = CheckRegistry(
    concerns=tuple(f"invariants.controller.{c}" for c in CONCERNS),
    checks_path=Path(__file__).with_name("checks.py"), command="python -m invariants.controller.declare",
    imports=("from model.controller.fields import NFIELDS", "from model.controller.state import unpack"),
    unpack="unpack(state, params, v)", properties_ref="invariants.controller.PROPERTIES", events="model.controller.events")

check = CONTROLLER.check

if __name__ == "__main__":
    from invariants.controller import declare    # the module the concern modules register with
    print(declare.CONTROLLER.write_checks())
