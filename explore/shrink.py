"""Shrinking a trace found by random simulation, the way Hypothesis shrinks a failing example.

A random walk that violates a property is a real path but usually a long one: most of its steps have
nothing to do with the violation. The shrinker searches for a shorter path from the same initial state
that still violates the property (or, for a sometimes property, still reaches it), replaying every
candidate through the model, so the result is a real path too:

1. cut the trace at the first step where the property is hit;
2. delete blocks of steps, halving the block size down to single steps (a deletion is kept when every
   remaining step is still enabled where it now stands and the property is still hit);
3. swap adjacent steps when that puts a smaller action index first (a canonical order: two traces that
   differ only in the order of independent steps shrink to the same one), which often lets step 2
   delete more;

and repeats until neither step changes anything (or the time budget runs out). Each accepted candidate
is shorter, or as long and smaller in shortlex order, so the search ends. The result is locally minimal
(no single step or block can be dropped), not necessarily a shortest trace: only BFS promises that.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from invariants.base import Property, PropertySet

from .result import Trace
from .trace import replay


@dataclass
class Shrunk:
    """A shrunk trace and how far it shrank."""

    trace: Trace
    before: int          # steps of the trace found
    after: int           # steps of the shrunk trace
    candidates: int      # candidate traces replayed

    def describe(self) -> str:
        return f"shrunk {self.before} -> {self.after} steps"


class _Oracle:
    """Replays candidate action lists from one initial state and says where the property is first hit."""

    def __init__(self, model: Any, properties: PropertySet, prop: Property, root: Sequence[int]) -> None:
        self.model = model
        self.props = properties
        self.prop = prop
        self.params = model.params
        self.root = tuple(int(x) for x in root)
        self.calls = 0

    def _state_hit(self, state: tuple[int, ...]) -> bool:
        if self.prop.on_transitions:
            return False
        return bool(int(self.props.state_check(np.asarray(state, dtype=np.uint64), self.params)) & self.prop.mask)

    def first_hit(self, actions: Sequence[int]) -> int | None:
        """The number of steps after which the property is first hit along ``actions`` (0: in the initial
        state), or None when some step is not enabled or the property is never hit."""
        self.calls += 1
        state = self.root
        if self._state_hit(state):
            return 0
        for i, a in enumerate(actions, start=1):
            out, flags = self.model.expand(state)
            if not flags[a] & 1 or flags[a] & 2:
                return None
            nxt = tuple(int(x) for x in out[a])
            if self.prop.on_transitions:
                bits = int(self.props.transition_check(np.asarray(state, dtype=np.uint64), int(flags[a]),
                                                       np.asarray(nxt, dtype=np.uint64), self.params))
                if bits & self.prop.mask:
                    return i
            state = nxt
            if self._state_hit(state):
                return i
        return None


def shrink_actions(model: Any, properties: PropertySet, prop: Property, root: Sequence[int],
                   actions: Sequence[int], deadline: float | None = None) -> tuple[list[int], int]:
    """The shrunk action list (see the module docstring) and the number of candidates replayed.
    ``actions`` must hit ``prop`` from ``root``; ``deadline`` is a ``time.monotonic()`` bound."""
    oracle = _Oracle(model, properties, prop, root)
    hit = oracle.first_hit(actions)
    if hit is None:
        raise ValueError(f"the trace does not hit {prop.name}; nothing to shrink")
    best = list(actions[:hit])

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() > deadline

    def accept(candidate: list[int]) -> bool:
        nonlocal best
        at = oracle.first_hit(candidate)
        if at is None:
            return False
        best = candidate[:at]
        return True

    changed = True
    while changed and not out_of_time():
        changed = False
        block = max(len(best) // 2, 1)
        while block >= 1 and not out_of_time():
            i = 0
            while i + block <= len(best) and not out_of_time():
                if accept(best[:i] + best[i + block:]):
                    changed = True          # the same position now holds later steps: try it again
                else:
                    i += 1
            block //= 2
        for i in range(len(best) - 1):
            if out_of_time():
                break
            if i + 1 < len(best) and best[i] > best[i + 1]:
                swapped = best[:i] + [best[i + 1], best[i]] + best[i + 2:]
                if accept(swapped):
                    changed = True
    return best, oracle.calls


def shrink(model: Any, properties: PropertySet, prop: Property, trace: Trace,
           deadline: float | None = None) -> Shrunk:
    """Shrink a replayed ``trace`` that hits ``prop``; the result is replayed through the model again."""
    root = trace.steps[0].state
    actions = [s.action_index for s in trace.steps[1:]]
    best, calls = shrink_actions(model, properties, prop, root, actions, deadline)
    return Shrunk(replay(model, root, best), len(trace), len(best), calls)
