"""Named properties as the engines see them: a kind, a bit of the compiled checks, and a docstring.

A property set bundles :class:`Property` descriptions with two compiled functions of fixed signatures
(:mod:`explore.packed`): ``state_check(state, params)`` returns, per property bit, "violated" for an
``always`` property, "satisfied" for a ``sometimes`` property observed on states, and "goal holds" for a
``graph`` property (from every reachable state a goal state must stay reachable);
``transition_check(source, flags, target, params)`` returns the ``sometimes`` properties a transition
witnesses (e.g. "a slave served a pull"). An ``eventually`` property (leads-to, ``P ~> Q``, under the
set's :class:`Fairness`) has two predicates evaluated by the set's third compiled function,
``eventually_masks(state, params, out)``: ``out[2 * bit]`` holds the instances (e.g. message ids) for
which P holds in ``state``, ``out[2 * bit + 1]`` those for which Q holds (see :mod:`explore.liveness`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

ALWAYS = "always"
SOMETIMES = "sometimes"
GRAPH = "graph"
EVENTUALLY = "eventually"
KINDS = (ALWAYS, SOMETIMES, GRAPH, EVENTUALLY)

#: ``--fairness``: what an infinite run of an eventually property must respect (docs/liveness.md)
WEAK = "weak"
STRONG = "strong"
NO_FAIRNESS = "none"
FAIRNESS_MODES = (WEAK, STRONG, NO_FAIRNESS)


class UnknownPropertyError(ValueError):
    """A property name that the property set does not know; the message lists the known ones."""


@dataclass(frozen=True)
class Property:
    """One named property: ``bit`` is its bit in the compiled checks' results."""

    name: str
    kind: str
    bit: int
    summary: str
    doc: str = ""
    on_transitions: bool = False   # sometimes properties witnessed by transition_check
    over: str = ""                 # an eventually property ranging over instances: "messages" (bit m-1: id m)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: kind {self.kind!r} not in {KINDS}")
        if not 0 <= self.bit < 64:
            raise ValueError(f"property {self.name}: bit {self.bit} out of range")

    @property
    def mask(self) -> int:
        return 1 << self.bit

    def instance_name(self, bit: int) -> str:
        """How a report names instance ``bit`` of an eventually property ("message 2"; "" for one that
        does not range over instances)."""
        return f"message {bit + 1}" if self.over == "messages" else ""


@dataclass(frozen=True)
class Fairness:
    """Which infinite runs an eventually property quantifies over: ``mode`` weak (default), strong or none,
    and the action kinds (``MasterRestart``...) that get no fairness at all (``--unfair KIND``). Failures
    are never fair, whatever is given here (:mod:`explore.fairness`)."""

    mode: str = WEAK
    unfair: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in FAIRNESS_MODES:
            raise ValueError(f"fairness {self.mode!r} not in {FAIRNESS_MODES}")
        object.__setattr__(self, "unfair", tuple(sorted(set(self.unfair))))

    def describe(self) -> str:
        unfair = f", unfair: {', '.join(self.unfair)}" if self.unfair else ""
        return ("no fairness" if self.mode == NO_FAIRNESS else f"{self.mode} fairness") + unfair


@dataclass(frozen=True)
class PropertySet:
    """Properties plus the compiled ``state_check`` / ``transition_check`` that evaluate them."""

    properties: tuple[Property, ...]
    state_check: Any
    transition_check: Any
    names_in_order: tuple[str, ...] = field(default=())
    eventually_masks: Any = None     # the eventually properties' compiled P / Q masks (module docstring)
    fairness: Fairness = Fairness()

    def __post_init__(self) -> None:
        if not self.names_in_order:
            object.__setattr__(self, "names_in_order", tuple(p.name for p in self.every()))

    def every(self) -> list[Property]:
        """The properties in bit order."""
        return sorted(self.properties, key=lambda p: p.bit)

    def __iter__(self):
        return iter(self.properties)

    def __len__(self) -> int:
        return len(self.properties)

    def names(self) -> list[str]:
        return [p.name for p in self.properties]

    def get(self, name: str) -> Property:
        for p in self.properties:
            if p.name == name:
                return p
        raise UnknownPropertyError(
            f"unknown property '{name}'; known properties: {', '.join(self.names_in_order)}")

    def select(self, names: Iterable[str] | None) -> "PropertySet":
        """The subset named by ``names`` (the whole set when None or empty), in the set's order."""
        if not names:
            return self
        wanted = list(dict.fromkeys(names))
        for name in wanted:
            self.get(name)
        return replace(self, properties=tuple(p for p in self.every() if p.name in wanted))

    def only(self, props: Iterable[Property]) -> "PropertySet":
        """The set checking just ``props`` (with this set's checks and fairness)."""
        return replace(self, properties=tuple(props))

    def without(self, kinds: Iterable[str]) -> "PropertySet":
        kinds = set(kinds)
        return replace(self, properties=tuple(p for p in self.properties if p.kind not in kinds))

    def with_fairness(self, fairness: Fairness) -> "PropertySet":
        return replace(self, fairness=fairness)

    def of_kind(self, kind: str) -> list[Property]:
        return [p for p in self.properties if p.kind == kind]
