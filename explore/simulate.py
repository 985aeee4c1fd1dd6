"""Seeded random walks, for bounds too big to exhaust.

Each walk starts from an initial state and fires uniformly random enabled actions (numpy's PCG64 from
the seed, so the same seed gives the same walks on every machine) until it reaches the depth bound or a
state with no enabled action. Every state is checked as the explorer would; the first violation of each
property is kept with the walk that led to it. Such a trace is a real path but not necessarily a
shortest one, and a property never violated on the walks is "unknown", never "holds": the outcome is
``violated`` or ``incomplete``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from invariants.base import ALWAYS, GRAPH, SOMETIMES, PropertySet
from . import stop
from .build import check_result
from .run_control import Progress, peak_rss_bytes
from .step import generate_one, tally_size
from .result import REACHED, S_VIOLATED, UNKNOWN, CheckResult, ModelError, PropertyResult, Stats
from .trace import replay

NOT_SHORTEST = "found by random simulation: a real path, not necessarily the shortest"


@dataclass(frozen=True)
class WalkLimits:
    walks: int = 100
    depth: int = 50
    seed: int = 0
    max_seconds: float | None = None


def simulate(model: Any, properties: PropertySet, limits: WalkLimits = WalkLimits(),
             listener: Any = None) -> CheckResult:
    rng = np.random.Generator(np.random.PCG64(limits.seed))
    roots = np.ascontiguousarray(model.initial_states(), dtype=np.uint64)
    params = model.params
    found: dict[str, tuple[np.ndarray, list[int]]] = {}
    wanted = {p.name: p for p in properties if p.kind in (ALWAYS, SOMETIMES)}
    t0 = time.perf_counter()
    steps_taken = 0
    walks_done = 0
    seen: set[tuple[int, ...]] = set()
    error: ModelError | None = None
    reason = ""
    # the engines' shared generation step, one state at a time (the walk checks only the chosen transition)
    nact = len(model.actions())
    rows = np.zeros((1, int(model.words)), dtype=np.uint64)
    out = np.zeros((max(nact, 1), int(model.words)), dtype=np.uint64)
    flags = np.zeros(max(nact, 1), dtype=np.int64)
    no_witness = np.full(64, -1, dtype=np.int64)
    tally = np.zeros(tally_size(nact), dtype=np.int64)   # walks revisit states: their tally means nothing

    def note_state(state: np.ndarray, root: np.ndarray, path: list[int]) -> None:
        bits = int(properties.state_check(state, params))
        for name, p in wanted.items():
            if name not in found and not p.on_transitions and bits & p.mask:
                found[name] = (root, list(path))

    for w in range(limits.walks):
        if limits.max_seconds is not None and time.perf_counter() - t0 > limits.max_seconds:
            reason = f"time limit {limits.max_seconds:g} s reached after {w} walks"
            break
        if stop.requested():
            reason = f"{stop.requested()} after {w} walks"
            break
        root = roots[int(rng.integers(len(roots)))]
        state = root.copy()
        path: list[int] = []
        seen.add(tuple(int(x) for x in state))
        note_state(state, root, path)
        for _ in range(limits.depth):
            rows[0] = state
            try:
                count = generate_one(model.successors, properties.transition_check, params, rows, 0, out, flags,
                                     np.uint64(0), no_witness, no_witness, tally)
            except Exception as exc:  # model code raised
                error = ModelError(f"{type(exc).__name__}: {exc}", "?", model.view(tuple(int(x) for x in state)),
                                   replay(model, root, path))
                break
            if count < 0:
                a = -1 - count
                error = ModelError(model.describe_outcome(int(flags[a])) or "model error",
                                   str(model.actions()[a]), model.view(tuple(int(x) for x in state)),
                                   replay(model, root, path))
                break
            enabled = np.flatnonzero(flags[:nact] & 1)
            if len(enabled) == 0:
                break
            a = int(enabled[int(rng.integers(len(enabled)))])
            nxt = out[a].copy()
            tbits = int(properties.transition_check(state, int(flags[a]), nxt, params))
            path.append(a)
            for name, p in wanted.items():
                if name not in found and p.on_transitions and tbits & p.mask:
                    found[name] = (root, list(path))
            state = nxt
            steps_taken += 1
            seen.add(tuple(int(x) for x in state))
            note_state(state, root, path)
        walks_done += 1
        if listener is not None:
            listener.on_progress(Progress(0, limits.walks, walks_done, len(seen), steps_taken,
                                          time.perf_counter() - t0))
        if error is not None:
            break
    results = []
    for p in properties:
        if p.name in found:
            root, path = found[p.name]
            status = S_VIOLATED if p.kind == ALWAYS else REACHED
            results.append(PropertyResult(p.name, p.kind, status, p.summary, replay(model, root, path),
                                          note=NOT_SHORTEST))
        else:
            note = "graph properties need exhaustive exploration" if p.kind == GRAPH else \
                "not found by random simulation"
            results.append(PropertyResult(p.name, p.kind, UNKNOWN, p.summary, note=note))
    seconds = time.perf_counter() - t0
    stats = Stats(distinct_states=len(seen), transitions=steps_taken, depth=limits.depth, seconds=seconds,
                  states_per_second=steps_taken / seconds if seconds > 0 else 0.0,
                  peak_rss_bytes=peak_rss_bytes(), levels=[], level_engines=[])
    reason = reason or f"random simulation: {walks_done} walks of up to {limits.depth} steps prove no property"
    return check_result("simulate", model, results, stats, reason, error)
