"""The toy mode's declarations: its :class:`~model.declare.ActionRegistry` (the actions of
:mod:`.actions`) and its :class:`~invariants.declare.CheckRegistry` (the properties of :mod:`.claims`),
each writing a generated module beside them: ``python -m tests.toymode.declare`` rewrites
:mod:`.dispatch` and :mod:`.checks` (a test fails while either is stale)."""
from __future__ import annotations

from pathlib import Path

from invariants.declare import CheckRegistry
from model.declare import ActionRegistry

HERE = Path(__file__).parent

#: the toy's actions: the client's writes, the primary's copies, the primary's crashes
ACTIONS = ActionRegistry(
    actors=("client", "primary", "failure"), roles=("client", "primary", "backup"),
    modules=("tests.toymode.actions",), mutants="tests.toymode.actions", dispatch_path=HERE / "dispatch.py",
    command="python -m tests.toymode.declare", native_import="from explore.native import kernel",
    state_args=("w",), arity=1)

#: the toy's properties
CHECKS = CheckRegistry(
    concerns=("tests.toymode.claims",), checks_path=HERE / "checks.py", command="python -m tests.toymode.declare",
    imports=("from .state import NFIELDS, unpack",), unpack="unpack(state, v)",
    properties_ref="tests.toymode.properties.PROPERTIES")

action = ACTIONS.action
check = CHECKS.check

if __name__ == "__main__":
    from tests.toymode import declare    # the module the kernel modules register with, not this __main__ copy
    print(declare.ACTIONS.write_dispatch())
    print(declare.CHECKS.write_checks())
