"""What the engines need from a model: the ``Model`` protocol. It knows nothing of RocketMQ.

A model is a transition system over packed states: each state is a fixed number of ``uint64`` words
(``words``), so a state is its own exact key and a tuple of its words is immutable and canonical. The
engines call the model's compiled ``successors`` kernel (fixed signature :data:`explore.packed.SUCCESSORS_SIG`)
with its parameter vector; everything else is for traces and reports. :class:`explore.packed.PackedModel`
implements the derived methods (enabled actions, next state, fingerprint) on top of the kernel, for the
RocketMQ model and for the toy models alike (:mod:`explore.toys`).

Properties travel separately, as an :class:`invariants.base.PropertySet` with compiled checks.

An engine is an :class:`Explorer`: built from a model, a property set, limits, a progress listener and its
own options, it runs one check. :func:`register_explorer` names a factory for one; the CLI finds engines
through :func:`explorer_factory` (``--engine NAME``). A factory may import its engine lazily (the Spark
engine imports pyspark only when it is chosen).
"""
from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

State = tuple[int, ...]


@runtime_checkable
class Model(Protocol):
    """A transition system the explorers can check."""

    name: str
    words: int            # uint64 words per packed state
    params: np.ndarray    # int64 parameter vector passed to the kernel
    successors: Any       # compiled: successors(state, params, out, flags) -> number of actions

    def initial_states(self) -> np.ndarray:
        """The initial states, an ``(n, words)`` uint64 array."""

    def actions(self) -> Sequence[Any]:
        """Every action in the kernel's fixed order; ``str(action)`` is its trace label, and the label up to
        its first ``(`` its kind (coverage is counted per kind: explore/coverage.py)."""

    def enabled(self, state: State) -> list[tuple[Any, State, int]]:
        """The actions of a state: ``(action, next state, flags)`` for each enabled one, in order."""

    def next_state(self, state: State, action: Any) -> State | None:
        """The state ``action`` leads to, or None when it is not enabled in ``state``."""

    def expand(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """The raw kernel output for one state: successors and flags, one row per action."""

    def view(self, state: State) -> dict[str, Any]:
        """The readable fields of a state (traces and reports only)."""

    def fingerprint(self, state: State) -> int:
        """A stable 64-bit fingerprint (the same on every process and machine)."""

    def describe_outcome(self, flags: int) -> str:
        """Readable outcome of a fired action (may be empty)."""


@runtime_checkable
class Explorer(Protocol):
    """One check on one engine: ``run()`` explores and returns the result (explore/result.py)."""

    engine: str           # the engine's name, as ``--engine`` takes it and results report it

    def run(self) -> Any:
        """Explore and return a :class:`explore.result.CheckResult`."""


#: ``factory(model, properties, limits, listener, **options) -> Explorer``
ExplorerFactory = Callable[..., Explorer]
_EXPLORERS: dict[str, ExplorerFactory] = {}


def register_explorer(name: str, factory: ExplorerFactory) -> None:
    """Make ``factory`` the engine ``name``; registering a name twice is a programming error."""
    if name in _EXPLORERS:
        raise ValueError(f"engine {name!r} is already registered")
    _EXPLORERS[name] = factory


def explorer_names() -> tuple[str, ...]:
    return tuple(_EXPLORERS)


def explorer_factory(name: str) -> ExplorerFactory:
    try:
        return _EXPLORERS[name]
    except KeyError:
        raise ValueError(f"unknown engine '{name}'; known: {', '.join(_EXPLORERS)}") from None


def _local(model: Any, properties: Any, limits: Any, listener: Any, **options: Any) -> Explorer:
    from .local import LocalExplorer
    return LocalExplorer(model, properties, limits, listener, **options)


register_explorer("local", _local)
