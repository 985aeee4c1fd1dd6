"""Traces rebuilt TLC-style: the engines keep only (parent, action) pointers, and a trace is the replay of
those actions from the initial state through the model's own kernel, so it is always a real path."""
from __future__ import annotations

from typing import Any, Sequence

from .result import INITIAL_ACTION, Step, Trace


class ReplayError(ValueError):
    """A step the model does not allow (or a state that differs from the one the engine recorded)."""


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """Fields whose value changed, as ``{field: [before, after]}``."""
    return {k: [before.get(k), v] for k, v in after.items() if before.get(k) != v}


def replay(model: Any, root: Sequence[int], action_indices: Sequence[int],
           expected: Sequence[Sequence[int]] | None = None) -> Trace:
    """Replay ``action_indices`` from ``root``; each must be enabled and (if given) reach ``expected[i]``."""
    actions = model.actions()
    state = tuple(int(x) for x in root)
    view = model.view(state)
    steps = [Step(0, INITIAL_ACTION, state, view, {}, "")]
    for i, a in enumerate(action_indices, start=1):
        out, flags = model.expand(state)
        label = str(actions[a])
        if not flags[a] & 1 or flags[a] & 2:
            raise ReplayError(f"step {i}: {label} is not enabled in the state before it")
        nxt = tuple(int(x) for x in out[a])
        if expected is not None and tuple(int(x) for x in expected[i - 1]) != nxt:
            raise ReplayError(f"step {i}: {label} leads to a different state than the engine recorded")
        nview = model.view(nxt)
        steps.append(Step(i, label, nxt, nview, diff(view, nview), model.describe_outcome(int(flags[a])), a))
        state, view = nxt, nview
    return Trace(steps)


def fmt_value(value: Any) -> str:
    """A readable field's value as traces print it: ``-`` for none, ``true``/``false``, ``[1,2]``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):   # a tuple as a list: as JSON gives it back (rmqcheck report)
        return "[" + ",".join(fmt_value(x) if isinstance(x, (list, tuple)) else str(x) for x in value) + "]"
    return str(value)
