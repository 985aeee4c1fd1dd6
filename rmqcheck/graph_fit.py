"""When ``--graph`` refuses a space above the export limit: find a smaller configuration that fits.

The suggestion is never a guess. Knobs are lowered one step at a time, in the order that shrinks the
space most while keeping the scenario (fewer messages first, then the failure budgets, then consumers and
queues), and after each step the configuration is explored exactly as the refused run was (same
properties, so the same early stop and the same unexpanded states) with the explorer stopped one state
past the limit. The first configuration whose run stays within the limit is suggested, with its count:
running the suggested command explores exactly that many states, since exploration is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: knobs lowered, in order, and the value each is lowered to at most
REDUCTIONS = (("messages", 1), ("max_ha_disconnects", 0), ("max_consumer_restarts", 0),
              ("max_slave_power_losses", 0), ("max_slave_crashes", 0), ("max_master_power_losses", 0),
              ("max_master_crashes", 0), ("consumers", 1), ("queues", 1))


@dataclass
class Fit:
    """A configuration that fits: the ``--set`` assignments to add, and the states its run explores."""

    assignments: list[str]
    states: int

    def describe(self) -> str:
        return " ".join(f"--set {a}" for a in self.assignments) + f" explores {self.states:,} states"


def _lowered(values: dict[str, Any], key: str, floor: int) -> dict[str, Any] | None:
    """``values`` with ``key`` one lower (None when it is at ``floor`` already); knobs bounded by it follow."""
    if values[key] <= floor:
        return None
    out = dict(values, **{key: values[key] - 1})
    if key == "messages" and out.get("consume_slowly_backlog", 0) > out["messages"]:
        out["consume_slowly_backlog"] = out["messages"]
    return out


def fitting_configuration(config: Any, properties: Any, limit: int, max_depth: int | None = None) -> Fit | None:
    """The first configuration on the way down (see the module docstring) whose run explores at most
    ``limit`` states, or None when even the smallest one does not fit."""
    from explore.local import LocalExplorer
    from explore.run_control import Limits
    from model.modes import mode_of

    mode = mode_of(config)

    original = config.as_dict()
    values = dict(original)
    for key, floor in REDUCTIONS:
        while True:
            lowered = _lowered(values, key, floor)
            if lowered is None:
                break
            values = lowered
            candidate = mode.from_mapping({k: v for k, v in values.items() if original[k] != v}, base=config)
            run = LocalExplorer(mode.model(candidate), properties, Limits(limit + 1, max_depth)).run()
            if run.stats.distinct_states <= limit and not run.above_state_limit():
                changed = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items()
                           if original.get(k) != v]
                return Fit(changed, run.stats.distinct_states)
    return None
