"""Declaring a property once: ``@check(kind=..., summary=...)`` above its compiled predicate.

A declaration carries the property's name (the predicate's, unless given), its kind, its one-line
meaning, its docstring (the predicate's) and, for a ``sometimes`` property that a transition witnesses,
the event the kernel reports for it (:mod:`model.events`; its predicate is then an empty function that
only holds the docstring). The predicate takes the unpacked field vector and the parameter vector:

- ``always``: the invariant; a state where it returns False violates the property;
- ``sometimes`` (no event): a state where it returns True witnesses the property;
- ``graph``: the goal; from every reachable state a goal state must stay reachable;
- ``eventually``: P of ``P ~> Q``, with Q given as ``leads_to=``; both return a mask of instances (bit
  ``m``: message ``m`` for a property ranging ``over="messages"``, bit 0 for one that does not): for
  each instance, every fair run from a state where P holds reaches a state where Q holds
  (:mod:`explore.liveness`; a P that always returns every bit states "Q holds infinitely often").

One :class:`CheckRegistry` holds a model mode's declarations. Properties take their bits in the order of
its concern modules (by kind: always, sometimes, graph, eventually; then by concern module; then in
declaration order), which is the public order of model-scope.md. From the declarations
:meth:`CheckRegistry.checks_source` writes the mode's checks module, the compiled ``state_check`` and
``transition_check`` and ``eventually_masks``: a generated source file checked into the repository (numba
caches only functions with a real source file). The RocketMQ 4.4 mode's registry is :data:`ROCKETMQ_44`
(this module's ``check`` and ``declarations``), writing :mod:`invariants.checks`; regenerate it with
``python -m invariants.declare``. The controller mode's is ``invariants.controller.declare.CONTROLLER``
(``python -m invariants.controller.declare``). A test fails while either is stale.
"""
from __future__ import annotations

import importlib
import inspect
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .base import ALWAYS, EVENTUALLY, GRAPH, KINDS, SOMETIMES, Property


@dataclass(frozen=True)
class PropertyDecl:
    """One property as declared: see the module docstring."""

    name: str
    kind: str
    summary: str
    event: str          # name of the model.events flag that witnesses it, "" for a state property
    module: str
    function: str
    doc: str
    line: int
    reads: str = ""     # an always property: the readable fields it decides on (a regular expression)
    leads_to: str = ""  # an eventually property: the function of Q (P is ``function``), same module
    over: str = ""      # an eventually property ranging over instances: what its mask's bits are
    concern: int = 0    # its concern module's position in the registry's concerns
    faults_only: bool = False   # an availability witness only ``rmqcheck faults`` reads: not in ``check``'s set

    @property
    def on_transitions(self) -> bool:
        return bool(self.event)

    def order_key(self) -> tuple[int, int, int]:
        return (KINDS.index(self.kind), self.concern, self.line)

    def property(self, bit: int) -> Property:
        """The property of bit ``bit``, as the engines see it."""
        return Property(self.name, self.kind, bit, self.summary, self.doc, self.on_transitions, self.over)


@dataclass
class CheckRegistry:
    """One model mode's property declarations (see the module docstring): ``concerns`` the modules that
    declare, in the order of their properties; the generated checks go to ``checks_path`` (written by
    ``command``), importing ``imports`` and unpacking a state with ``unpack``; ``properties_ref`` names
    the property set their bits are documented in."""

    concerns: tuple[str, ...]
    checks_path: Path
    command: str
    imports: tuple[str, ...]
    unpack: str
    properties_ref: str
    decls: list[PropertyDecl] = field(default_factory=list)
    events: str = "model.events"   # the module of the event flags its transition-witnessed properties name

    def check(self, *, kind: str, summary: str, name: str = "", event: str = "", reads: str = "",
              leads_to: Any = None, over: str = "", faults_only: bool = False) -> Callable[[Any], Any]:
        """Declare the predicate below as a property (see the module docstring). An always property says
        which readable fields decide it (``reads``, a regular expression over view names such as
        ``master.commitlog``): a failure mode's meaning shows how the breaking step changed them. An
        eventually property's predicate is P and ``leads_to`` is Q (a kernel function of the same module);
        ``over="messages"`` when their masks' bits are message ids. ``faults_only``: an availability
        witness that ``rmqcheck faults`` reads and ``check`` does not report (it keeps its bit)."""
        if kind not in KINDS:
            raise ValueError(f"property kind {kind!r} not in {KINDS}")
        if (kind == ALWAYS) != bool(reads):
            raise ValueError("an always property, and only one, names the fields it reads (reads=...)")
        if event and kind != SOMETIMES:
            raise ValueError("only a sometimes property is witnessed by an event")
        if (kind == EVENTUALLY) != (leads_to is not None):
            raise ValueError("an eventually property, and only one, names its Q (leads_to=...)")
        goal = getattr(leads_to, "py_func", leads_to)

        def register(fn: Any) -> Any:
            py = getattr(fn, "py_func", fn)
            self.decls.append(PropertyDecl(name or py.__name__, kind, summary, event, py.__module__, py.__name__,
                                           inspect.cleandoc(py.__doc__ or ""), py.__code__.co_firstlineno, reads,
                                           goal.__name__ if goal is not None else "", over,
                                           self.concerns.index(py.__module__), faults_only))
            return fn

        return register

    def declarations(self) -> tuple[PropertyDecl, ...]:
        """Every declared property, in bit order (imports the concern modules that declare them)."""
        for concern in self.concerns:
            importlib.import_module(concern)
        return tuple(sorted(self.decls, key=PropertyDecl.order_key))

    def properties(self, faults_only: bool = False) -> tuple[Property, ...]:
        """The properties ``check`` reports, each with its bit (with ``faults_only``: the availability
        witnesses only ``faults`` reads instead)."""
        return tuple(d.property(bit) for bit, d in enumerate(self.declarations()) if d.faults_only == faults_only)

    def checks_source(self) -> str:
        """The text of the mode's checks module for the current declarations."""
        decls = self.declarations()
        modules = sorted({d.module.rsplit(".", 1)[-1] for d in decls if not d.event})
        live = [(bit, d) for bit, d in enumerate(decls) if d.kind == EVENTUALLY]
        events = sorted({d.event for d in decls if d.event})
        lines = [
            f'"""GENERATED by ``{self.command}`` from the ``@check`` declarations: do not edit.',
            "",
            "``state_check`` evaluates every state property on a packed state, ``transition_check`` maps the events",
            "a transition reports to the sometimes properties they witness; bit ``i`` is the ``i``-th declared",
            f"property (:data:`{self.properties_ref}`).",
            '"""',
            "import numba as nb",
            "import numpy as np",
            "",
        ] + (textwrap.wrap(f"from {self.events} import ({', '.join(events)})", 110,
                           subsequent_indent=" " * (len(self.events) + 14))
             if events else []) + list(self.imports) + [
            "from explore.native import scratch",
            "from explore.packed import EVENTUALLY_MASKS_SIG, STATE_CHECK_SIG, TRANSITION_CHECK_SIG",
            "",
            f"from . import {', '.join(modules)}",
            "",
            "",
            "@nb.njit(STATE_CHECK_SIG, cache=True, nogil=True, _nrt=False)",
            "def state_check(state, params):",
            '    """Always properties violated, state-observed sometimes properties and graph goals, as bits."""',
            "    v = scratch(NFIELDS)",
            f"    {self.unpack}",
            "    bits = 0",
        ]
        for bit, d in enumerate(decls):
            if d.event or d.kind == EVENTUALLY:
                continue
            negate = "not " if d.kind == ALWAYS else ""
            lines += [f"    if {negate}{d.module.rsplit('.', 1)[-1]}.{d.function}(v, params):  # {d.name}",
                      f"        bits |= 1 << {bit}"]
        lines += [
            "    return np.uint64(bits)",
            "",
            "",
            "@nb.njit(TRANSITION_CHECK_SIG, cache=True, nogil=True, _nrt=False)",
            "def transition_check(source, flags, target, params):",
            '    """Sometimes properties witnessed by the events a transition reports."""',
            "    bits = 0",
        ]
        for bit, d in enumerate(decls):
            if d.event:
                lines += [f"    if flags & {d.event}:  # {d.name}", f"        bits |= 1 << {bit}"]
        lines += [
            "    return np.uint64(bits)",
            "",
            "",
            "@nb.njit(EVENTUALLY_MASKS_SIG, cache=True, nogil=True, _nrt=False)",
            "def eventually_masks(state, params, out):",
            '    """Per eventually property of bit ``b``: ``out[2 * b]`` the instances where P holds, ``out[2 * b + 1]``',
            '    those where Q holds."""',
        ]
        if live:
            lines += ["    v = scratch(NFIELDS)", f"    {self.unpack}"]
        for bit, d in live:
            module = d.module.rsplit(".", 1)[-1]
            lines += [f"    out[{2 * bit}] = np.uint64({module}.{d.function}(v, params))  # {d.name}: P",
                      f"    out[{2 * bit + 1}] = np.uint64({module}.{d.leads_to}(v, params))  # Q"]
        lines += [""]
        return "\n".join(lines)

    def write_checks(self) -> Path:
        self.checks_path.write_text(self.checks_source())
        return self.checks_path


#: the concern modules of :mod:`invariants`, in the order their properties are listed
CONCERNS = ("durability", "replication", "offsets", "witnesses")

#: the RocketMQ 4.4 mode's properties
ROCKETMQ_44 = CheckRegistry(
    concerns=tuple(f"invariants.{c}" for c in CONCERNS), checks_path=Path(__file__).with_name("checks.py"),
    command="python -m invariants.declare",
    imports=("from model.fields import NFIELDS", "from model.layout import unpack"),
    unpack="unpack(state, params, v)", properties_ref="invariants.rocketmq.PROPERTIES")

CHECKS_PATH, checks_source = ROCKETMQ_44.checks_path, ROCKETMQ_44.checks_source
check, declarations = ROCKETMQ_44.check, ROCKETMQ_44.declarations

__all__ = ["ALWAYS", "EVENTUALLY", "GRAPH", "SOMETIMES", "CONCERNS", "CheckRegistry", "PropertyDecl", "check",
           "declarations", "checks_source"]

if __name__ == "__main__":
    from invariants import declare    # the module the concern modules register with, not this __main__ copy
    print(declare.ROCKETMQ_44.write_checks())
