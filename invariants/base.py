"""Named properties as the engines see them: a kind, a bit of the compiled checks, and a docstring.

A property set bundles :class:`Property` descriptions with two compiled functions of fixed signatures
(:mod:`model.packed`): ``state_check(state, params)`` returns, per property bit, "violated" for an
``always`` property, "satisfied" for a ``sometimes`` property observed on states, and "goal holds" for a
``graph`` property (from every reachable state a goal state must stay reachable);
``transition_check(source, flags, target, params)`` returns the ``sometimes`` properties a transition
witnesses (e.g. "a slave served a pull").
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

ALWAYS = "always"
SOMETIMES = "sometimes"
GRAPH = "graph"
KINDS = (ALWAYS, SOMETIMES, GRAPH)


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

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: kind {self.kind!r} not in {KINDS}")
        if not 0 <= self.bit < 64:
            raise ValueError(f"property {self.name}: bit {self.bit} out of range")

    @property
    def mask(self) -> int:
        return 1 << self.bit


@dataclass(frozen=True)
class PropertySet:
    """Properties plus the compiled ``state_check`` / ``transition_check`` that evaluate them."""

    properties: tuple[Property, ...]
    state_check: Any
    transition_check: Any
    names_in_order: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.names_in_order:
            object.__setattr__(self, "names_in_order", tuple(p.name for p in self.properties))

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
        """The subset named by ``names`` (all when None or empty), in the set's order."""
        if not names:
            return self
        wanted = list(dict.fromkeys(names))
        for name in wanted:
            self.get(name)
        return replace(self, properties=tuple(p for p in self.properties if p.name in wanted))

    def without(self, kinds: Iterable[str]) -> "PropertySet":
        kinds = set(kinds)
        return replace(self, properties=tuple(p for p in self.properties if p.kind not in kinds))

    def of_kind(self, kind: str) -> list[Property]:
        return [p for p in self.properties if p.kind == kind]
