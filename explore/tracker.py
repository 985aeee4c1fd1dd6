"""Which properties are still open during a breadth-first exploration, shared by every engine.

Engines report, at the end of each level, the witness candidates they found (per property bit: a state
for always and state-observed sometimes properties, a transition for transition-observed ones); the
tracker settles those properties (the first level that has a witness gives a shortest trace), tells the
engine which bits to keep watching, whether states become leaves, and whether it can stop. At the end it
turns the witnesses into verdicts. Witness handles are engine-specific (a state index, a key...).
"""
from __future__ import annotations

from typing import Any, Callable

from invariants.base import ALWAYS, EVENTUALLY, GRAPH, SOMETIMES, Property, PropertySet

from .result import HOLDS, REACHED, S_VIOLATED, UNKNOWN, UNREACHED, PropertyResult, Trace


#: the kinds decided on the whole reachable graph, once exploration is over
WHOLE_GRAPH = (GRAPH, EVENTUALLY)


class PropertyTracker:
    """Open properties, their witnesses, and the masks an engine needs for the next level."""

    def __init__(self, properties: PropertySet) -> None:
        self.properties = list(properties)
        self.always = [p for p in self.properties if p.kind == ALWAYS]
        self.sometimes = [p for p in self.properties if p.kind == SOMETIMES]
        self.graph_props = [p for p in self.properties if p.kind == GRAPH]
        self.eventually = [p for p in self.properties if p.kind == EVENTUALLY]
        self.undecided: dict[str, Property] = {p.name: p for p in self.properties if p.kind not in WHOLE_GRAPH}
        self.witness: dict[str, Any] = {}

    @property
    def graph(self) -> bool:
        """Whether the run must keep every edge: graph and eventually properties are decided on them."""
        return bool(self.graph_props or self.eventually)

    @property
    def leaves(self) -> bool:
        """A state violating every checked property is not expanded: only when all are always properties
        (with one property, TLC's rule); otherwise every other property still needs its successors."""
        return bool(self.properties) and len(self.always) == len(self.properties)

    def state_watch_mask(self) -> int:
        return sum(p.mask for p in self.undecided.values() if not p.on_transitions)

    def transition_watch_mask(self) -> int:
        return sum(p.mask for p in self.undecided.values() if p.on_transitions)

    def leaf_mask(self) -> int:
        return sum(p.mask for p in self.always) if self.leaves else 0

    def goal_mask(self) -> int:
        return sum(p.mask for p in self.graph_props)

    def settle(self, bit_witness: Callable[[Property], Any | None]) -> list[str]:
        """End of a level: settle each open property for which ``bit_witness`` returns a witness."""
        settled = []
        for name, p in list(self.undecided.items()):
            handle = bit_witness(p)
            if handle is not None:
                self.witness[name] = handle
                del self.undecided[name]
                settled.append(name)
        return settled

    def all_decided(self) -> bool:
        """Nothing left to learn from more levels (never with a graph property or no property at all)."""
        return bool(self.properties) and not self.undecided and not self.graph

    def early_stop_reason(self, level: int, unexpanded: int) -> str | None:
        """Why a run that hit no limit ends with ``unexpanded`` states of ``level`` left: every selected
        property is settled (None when nothing was left or something is still open). Both engines say it
        in the same words."""
        if unexpanded <= 0 or not self.all_decided():
            return None
        states = "1 state" if unexpanded == 1 else f"{unexpanded:,} states"
        return f"every selected property was settled at depth {level}; {states} at that depth left unexpanded"

    def verdicts(self, complete: bool, trace_for: Callable[[Any], Trace]) -> dict[str, PropertyResult]:
        """Verdicts of the always and sometimes properties; graph and eventually properties are the engine's
        business."""
        out: dict[str, PropertyResult] = {}
        for p in self.properties:
            if p.kind in WHOLE_GRAPH:
                continue
            if p.name in self.witness:
                status = S_VIOLATED if p.kind == ALWAYS else REACHED
                out[p.name] = PropertyResult(p.name, p.kind, status, p.summary, trace_for(self.witness[p.name]))
            elif complete:
                out[p.name] = PropertyResult(p.name, p.kind, HOLDS if p.kind == ALWAYS else UNREACHED, p.summary)
            else:
                out[p.name] = PropertyResult(p.name, p.kind, UNKNOWN, p.summary)
        return out
