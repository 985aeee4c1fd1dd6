"""Graph properties on Spark: ``AG EF goal`` by backward reachability over the stored edges, as jobs.

The level jobs stored, per owner partition ``q``, every transition into a state of ``q`` as a
``(target, source, action)`` row (``edges/part-Q/``). Then, per graph property:

1. **Prepare** (one job, shared by the properties): task ``q`` merges its visited runs into one sorted
   array of its states and turns its edges into predecessor lists (CSR over those states).
2. **Propagate** (one job per step): task ``q`` takes the states of ``q`` reached in the last step (at
   first, the goal states), looks up their predecessors and sends each to its owner; task ``r`` marks the
   arrivals it had not reached yet and writes the new reach bitmap and the new step's states. Steps go on
   until one reaches nothing new: what is left unreached cannot reach a goal state.
3. **Witness** (one job): task ``q`` finds, level by level, the smallest unreached key of ``q``; the driver
   keeps the shallowest level's smallest key, the local engine's witness (:meth:`explore.local.
   LocalExplorer._graph_verdicts`), so verdict and counterexample are the local engine's.

Every step reads and writes files in the work directory (``graph/``) under names carrying the step, so
a re-run task rewrites the same bytes.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numba as nb
import numpy as np

from explore.step import rows_equal

from .batch import edge_width
from .layout import edges_dir, graph_dir, graph_root
from .level_job import _replace_into, _signed, read_frontier, read_run
from .shards import gallop, key_order, merge_runs, rows_by_owner


@nb.njit(cache=True, nogil=True)
def locate(cands, states, out):
    """``out[i]`` = the row of ``states`` equal to ``cands[i]``, -1 if none (both sorted by key;
    candidates may repeat)."""
    j = 0
    for i in range(cands.shape[0]):
        j = gallop(states, cands[i], j)
        out[i] = j if j < states.shape[0] and rows_equal(states[j], cands[i]) else -1


@nb.njit(cache=True, nogil=True)
def gather_predecessors(delta, pred_start, pred_src):
    """The source rows of every edge into the states ``delta``."""
    n = 0
    for d in delta:
        n += pred_start[d + 1] - pred_start[d]
    out = np.empty((n, pred_src.shape[1]), np.uint64)
    k = 0
    for d in delta:
        for e in range(pred_start[d], pred_start[d + 1]):
            out[k] = pred_src[e]
            k += 1
    return out


@dataclass(frozen=True)
class ReachJob:
    """What every task of the graph jobs needs."""

    root: str
    parts: int
    words: int
    levels: int                                   # stored levels 0..levels-1
    runs: tuple[tuple[str, ...], ...]             # per partition, its visited runs
    goal_mask: int = 0
    prop: int = 0                                 # index of the graph property (file names)
    step: int = 0


def _save(path: Path, rows: np.ndarray) -> None:
    def save(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.save(f, np.ascontiguousarray(rows))
    _replace_into(path, save)


def _load(path: Path) -> np.ndarray:
    return np.load(path, mmap_mode="r")


def _reach_path(job: ReachJob, q: int, step: int) -> Path:
    return graph_dir(job.root, q) / f"reach-{job.prop}-{step:05d}.npy"


def _delta_path(job: ReachJob, q: int, step: int) -> Path:
    return graph_dir(job.root, q) / f"delta-{job.prop}-{step:05d}.npy"


def _positions(keys: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Rows of ``states`` (sorted) holding ``keys`` (sorted)."""
    out = np.empty(len(keys), np.int64)
    locate(np.ascontiguousarray(keys), states, out)
    if len(out) and out.min() < 0:
        raise RuntimeError("graph: a stored state is missing from its partition's visited runs")
    return out


# -- 1. prepare -------------------------------------------------------------------------------------------
def prepare_partition(job: ReachJob, q: int) -> Iterator[int]:
    """The sorted states of ``q`` and their predecessor lists."""
    w = job.words
    runs = [read_run(job.root, q, name) for name in job.runs[q]]
    states = np.empty((0, w), np.uint64)
    for run in runs:
        merged = np.empty((len(states) + len(run), w), np.uint64)
        merge_runs(states, np.ascontiguousarray(run), merged)
        states = merged
    files = sorted(edges_dir(job.root, q).glob("from-level-*.npy"))
    pairs = np.concatenate([np.load(f) for f in files]) if files else np.empty((0, edge_width(w)), np.uint64)
    pairs = pairs[key_order(np.ascontiguousarray(pairs[:, :w]))]
    target = _positions(pairs[:, :w], states)
    pred_start = np.zeros(len(states) + 1, np.int64)
    np.cumsum(np.bincount(target, minlength=len(states)), out=pred_start[1:])
    d = graph_dir(job.root, q)
    _save(d / "states.npy", states)
    _save(d / "pred_start.npy", pred_start)
    _save(d / "pred_src.npy", pairs[:, w:2 * w])
    _save(d / "pred_act.npy", pairs[:, 2 * w].astype(np.int16))
    yield len(states)


# -- 2. propagate -----------------------------------------------------------------------------------------
def propagate_partition(job: ReachJob, q: int) -> Iterator[tuple[int, Any]]:
    """Map: the predecessors of the states of ``q`` reached in the last step, sent to their owners."""
    d = graph_dir(job.root, q)
    if job.step == 0:   # the goal states are reached in step 0
        states = _load(d / "states.npy")
        reach = np.zeros(len(states), np.uint8)
        for level in range(job.levels):
            keys, sbits = read_frontier(job.root, level, q, job.words)
            hit = (sbits & np.uint64(job.goal_mask)) != 0
            reach[_positions(keys[hit], states)] = 1
        _save(_reach_path(job, q, 0), reach)
        delta = np.flatnonzero(reach)
    else:
        delta = np.asarray(_load(_delta_path(job, q, job.step)))
    preds = gather_predecessors(delta.astype(np.int64), _load(d / "pred_start.npy"),
                                np.ascontiguousarray(_load(d / "pred_src.npy")))
    for r, rows in enumerate(rows_by_owner(preds, job.parts)):
        if len(rows):
            yield r, preds[rows]


def mark_partition(job: ReachJob, r: int, items: Any) -> Iterator[int]:
    """Reduce: mark the arrivals; returns how many states of ``r`` this step reached first."""
    w = job.words
    preds = [v for _, v in items]
    preds = np.concatenate(preds) if preds else np.empty((0, w), np.uint64)
    preds = preds[key_order(preds)]
    d = graph_dir(job.root, r)
    reach = np.array(_load(_reach_path(job, r, job.step)))
    rows = np.unique(_positions(preds, _load(d / "states.npy")))
    new = rows[reach[rows] == 0]
    reach[new] = 1
    _save(_reach_path(job, r, job.step + 1), reach)
    _save(_delta_path(job, r, job.step + 1), new)
    yield len(new)


# -- 3. witness -------------------------------------------------------------------------------------------
def witness_partition(job: ReachJob, q: int) -> Iterator[tuple[int, tuple[int, ...]] | None]:
    """The shallowest level of ``q`` with a state that cannot reach a goal, and its smallest key."""
    states = _load(graph_dir(job.root, q) / "states.npy")
    reach = _load(_reach_path(job, q, job.step))
    for level in range(job.levels):
        keys, _ = read_frontier(job.root, level, q, job.words)
        bad = np.flatnonzero(reach[_positions(keys, states)] == 0)
        if len(bad):
            yield level, _signed(keys[bad[0]])
            return
    yield None


# -- the driver side --------------------------------------------------------------------------------------
def _owner(key: int) -> int:
    return key


def cannot_reach_goal_on_spark(sc: Any, base: ReachJob, goal_masks: list[int]) -> list[tuple[int, tuple[int, ...]] | None]:
    """Per graph property (goal mask), ``(level, signed key)`` of the local engine's witness, or None when
    every stored state can reach a goal state."""
    parts = base.parts
    nodes = sc.parallelize(range(parts), parts)
    sc.setJobDescription("rmqcheck graph: predecessor lists")
    nodes.mapPartitionsWithIndex(lambda q, _: prepare_partition(base, q)).collect()
    verdicts = []
    for k, mask in enumerate(goal_masks):
        step = 0
        while True:
            job = ReachJob(base.root, parts, base.words, base.levels, base.runs, mask, k, step)
            sc.setJobDescription(f"rmqcheck graph: property {k}, step {step}")
            new = (nodes.mapPartitionsWithIndex(lambda q, _, job=job: propagate_partition(job, q))
                   .partitionBy(parts, _owner)
                   .mapPartitionsWithIndex(lambda r, items, job=job: mark_partition(job, r, items))
                   .collect())
            step += 1
            _drop_step(base.root, parts, k, step - 1)
            if sum(new) == 0:
                break
        job = ReachJob(base.root, parts, base.words, base.levels, base.runs, mask, k, step)
        sc.setJobDescription(f"rmqcheck graph: property {k}, witness")
        found = [w for w in nodes.mapPartitionsWithIndex(lambda q, _, job=job: witness_partition(job, q)).collect()
                 if w is not None]
        verdicts.append(min(found) if found else None)
    shutil.rmtree(graph_root(base.root), ignore_errors=True)
    return verdicts


def _drop_step(root: str, parts: int, prop: int, step: int) -> None:
    """The files of a finished step (the next step's reach bitmap supersedes them)."""
    for q in range(parts):
        for name in (f"reach-{prop}-{step:05d}.npy", f"delta-{prop}-{step:05d}.npy"):
            (graph_dir(root, q) / name).unlink(missing_ok=True)
