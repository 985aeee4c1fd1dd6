"""One result builder for every engine: the local explorer (one thread or many), Spark and simulation
hand it what they found, and it fills the statistics every result carries and the verdict of the run.

An engine supplies the properties' results in their public order, the sizes of the levels it explored
(BFS engines; none for simulation), its counters and, for exhaustive engines, the coverage tally and the
new states per action; the builder derives depth, rate, coverage, pruned-transition notes, the model's
configuration and the outcome the same way for all of them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .coverage import fill_stats, note_pruned
from .result import CheckResult, ModelError, PropertyResult, Stats, outcome_of
from .run_control import peak_rss_bytes


def level_stats(levels: Sequence[int], transitions: int, seconds: float, start_rss: int = 0,
                **extra: Any) -> Stats:
    """The statistics of a breadth-first run whose non-empty levels held ``levels`` states each; ``start_rss``:
    the process's resident memory when the run started (what it added is its cost per state)."""
    distinct = int(sum(levels))
    peak = peak_rss_bytes()
    return Stats(distinct_states=distinct, transitions=int(transitions), depth=max(len(levels) - 1, 0),
                 seconds=seconds, states_per_second=distinct / seconds if seconds > 0 else 0.0,
                 peak_rss_bytes=peak, levels=list(levels),
                 bytes_per_state=round(max(peak - start_rss, 0) / distinct, 1) if start_rss and distinct else 0.0,
                 **extra)


def check_result(engine: str, model: Any, properties: list[PropertyResult], stats: Stats, incomplete: str,
                 error: ModelError | None, terminal: Any = None, tally: np.ndarray | None = None,
                 new_states: np.ndarray | None = None) -> CheckResult:
    """The run's result: with a coverage ``tally`` (and the new states per action), coverage, terminal
    states and pruned transitions are filled in and noted on the verdicts they qualify."""
    if tally is not None:
        fill_stats(stats, model.actions(), tally, new_states, getattr(model, "prune_reasons", None))
        note_pruned(properties, stats)
    config = getattr(model, "config", None)
    if hasattr(config, "as_dict"):   # a RocketMQ configuration, of either mode: with the release it checks
        from model.versions import config_dict
        config = config_dict(config)
    else:
        config = {}
    return CheckResult(engine, outcome_of(properties, incomplete, error), stats, properties, config,
                       getattr(model, "name", ""), incomplete, error, terminal)
