"""One BFS level as one Spark stage, with NumPy batches exchanged through the work directory.

Step ``L`` is ``parallelize(range(T)).mapPartitionsWithIndex(...)``: task ``i`` takes the partitions
``q = i, i + T, ...`` (``T``: the cluster's task slots) and, for each, :func:`level_task`:

- **files** level ``L`` of partition ``q`` (:func:`file_states`): the successors the tasks of step
  ``L - 1`` left for ``q`` (``shuffle/level=L-1/to-Q-from-P.bin``: exactly the files their summaries listed,
  each checked whole against its size, rows and digest) are deduplicated by the canonical rule
  (smallest parent key, then action: so the order they arrive in never matters), sorted by key, stripped
  of those in the partition's visited runs (sorted ``.npy`` files searched by a galloping merge),
  checked, and written as the level's Parquet file of ``q`` and as a new visited run (merging runs like an
  LSM tree, so a partition keeps a logarithmic number of them);
- **expands** it (:func:`expand_states`) with the compiled kernel
  (:func:`spark_explore.batch.expand_batch`, the local engine's generation step), keeps one row per
  distinct successor with its canonical parent (:func:`spark_explore.shards.unique_by_owner`, which
  also groups them by owner partition), and leaves one file per owner partition for step ``L + 1``.

It returns a :class:`PartSummary` (size, leaves, per watched state property the smallest witnessing key,
the files written with size, rows and BLAKE2b for ``meta.json``) and a :class:`MapSummary` (transitions,
coverage tally, transition witnesses, the smallest terminal state, a model error, and the exchange files
written, with size, rows and BLAKE2b: the next step's manifest).

Why a manifest: a file missing from a directory listing (deleted, or missed by a shared filesystem's cached
listing of a file just renamed into place) looked exactly like a partition that was sent nothing, and the
run went on to a verdict over part of the space. The driver hands each task the list of files it must
read; a missing, short or changed one fails the task (Spark runs it again; a failure that persists ends
the run as incomplete, naming the file).

Why files and not Spark's shuffle: both were built and measured (``local[2]``, 3,700 states in 19
levels, the same loaded machine). A two-stage job per level (map, ``partitionBy``, reduce) took 1.26-1.34 s
a level; one stage with the exchange in the work directory 0.64-0.71 s, and 0.39 s with one task per slot.
Each Python task start costs a fixed latency, so one stage and one wave per level is what pays. The work
directory must be on a filesystem every node sees anyway (the levels are there).

Every write is a new file renamed into place, so a task that Spark runs again (a lost executor) writes the
same bytes again; runs that merges supersede are deleted by the driver only once the ``meta.json`` that no
longer names them is saved. Nothing a later level needs lives only in an executor: losing one costs a
re-run of its tasks, from the work directory, not the run.
"""
from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Iterator

import numba as nb
import numpy as np
from numba import types

from explore.kernel import SCHECK_T
from explore import counters
from explore.step import I64_1D, U64_2D, Rows, tally_size

from .batch import KernelRefs, edge_width, expand_batch, first_raising
from .errors import ExchangeFileError
from .layout import (bucket_owner, bucket_path, edges_dir, edges_name, level_dir, part_name, run_levels,  # noqa: F401
                     run_name, runs_dir, shuffle_dir)
from .workdir import LevelFile, file_digest
from .run_merge import merge_run_files
from .shards import UNIQUE_CHUNK, group_by_owner, key_order, mark_visited, owner_of, unique_by_owner

BATCH_STATES = 1 << 14     # frontier states expanded per kernel call (bounds a task's scratch)

ALL_BITS = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
CHECK_ROWS_SIG = types.void(SCHECK_T, I64_1D, U64_2D, types.uint64, types.uint64[::1])


@nb.njit(CHECK_ROWS_SIG, cache=True, nogil=True, _nrt=False)
def check_rows(scheck, params, rows, mask, out):
    """The state check bits (``& mask``) of every row."""
    for i in range(rows.shape[0]):
        out[i] = scheck(rows[i], params) & mask


@dataclass(frozen=True)
class LevelJob:
    """What every task of one level's job needs: small, picklable, the same for every task."""

    refs: KernelRefs
    root: str                  # the work directory (a path every node sees)
    level: int                 # the level whose states are expanded; the job files level + 1
    parts: int
    state_mask: int            # state check bits kept with each new state (watched, leaf and goal bits)
    trans_mask: int            # transition bits watched
    leaf_mask: int             # a state with all these bits is a leaf: stored, never expanded
    state_watch: tuple[tuple[int, int], ...]     # (bit, mask) of each undecided state property
    runs: tuple[tuple[str, ...], ...]            # per partition, its visited runs' file names
    edges: bool = False        # also store every transition (target, source, action): graph and eventually properties
    batch: int = BATCH_STATES
    # per partition, the exchange files the previous step wrote for it (its manifest, from the driver):
    # filing reads exactly these, never what a directory listing shows
    inbox: tuple[tuple[LevelFile, ...], ...] = ()


# -- files (their paths: spark_explore/layout.py) --------------------------------------------------------
def _replace_into(path: Path, write) -> None:
    """``write(tmp)`` then rename over ``path``: readers and a re-run task never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{secrets.token_hex(6)}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


# -- level files ------------------------------------------------------------------------------------------
def write_level_part(root: str | Path, level: int, q: int, keys: np.ndarray, parents: np.ndarray,
                     actions: np.ndarray, sbits: np.ndarray) -> LevelFile:
    """Partition ``q`` of a level as Parquet (``k*``, ``p*``, ``action``, ``sbits``), rows sorted by key."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    w = keys.shape[1]
    cols = {f"k{i}": keys[:, i].view(np.int64) for i in range(w)}
    cols.update({f"p{i}": parents[:, i].view(np.int64) for i in range(w)})
    cols["action"] = actions.astype(np.int32)
    cols["sbits"] = sbits.view(np.int64)
    path = level_dir(root, level) / part_name(q)
    _replace_into(path, lambda tmp: pq.write_table(pa.table(cols), tmp, compression="none"))
    return LevelFile(path.name, path.stat().st_size, len(keys), file_digest(path))


def read_frontier(root: str | Path, level: int, q: int, words: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, sbits)`` of partition ``q`` of ``level``."""
    import pyarrow.parquet as pq
    table = pq.read_table(level_dir(root, level) / part_name(q), columns=[f"k{i}" for i in range(words)] + ["sbits"])
    keys = np.empty((table.num_rows, words), dtype=np.uint64)
    for i in range(words):
        keys[:, i] = table.column(i).to_numpy().view(np.uint64)
    return keys, table.column(words).to_numpy().view(np.uint64)


def write_run(root: str | Path, q: int, first: int, last: int, keys: np.ndarray) -> LevelFile:
    return write_array(runs_dir(root, q) / run_name(first, last), keys)


def read_run(root: str | Path, q: int, name: str) -> np.ndarray:
    """A visited run, memory-mapped: its pages are the page cache's, released with the array when the task
    is done (kept open across tasks, the touched pages of every run counted in the Python workers' resident
    memory: 103 against 57 bytes per visited state on `bench`, one worker)."""
    return np.load(runs_dir(root, q) / name, mmap_mode="r")


def write_array(path: Path, rows: np.ndarray) -> LevelFile:
    def save(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.save(f, np.ascontiguousarray(rows))

    _replace_into(path, save)
    return LevelFile(path.name, path.stat().st_size, len(rows), file_digest(path))


# -- expanding --------------------------------------------------------------------------------------------
_LOADED: dict[Any, tuple[Any, Any, Any]] = {}


def _kernels(refs: KernelRefs) -> tuple[Any, Any, Any]:
    """The model's compiled functions, imported once per Python worker (it is reused across tasks)."""
    key = (refs.successors, refs.state_check, refs.transition_check)
    if key not in _LOADED:
        _LOADED[key] = refs.load()
    return _LOADED[key]


def _signed(row: np.ndarray) -> tuple[int, ...]:
    """A key as a tuple of signed words: Python's tuple order is then the canonical key order."""
    return tuple(int(x) for x in np.asarray(row, dtype=np.uint64).view(np.int64))


@dataclass
class MapSummary:
    """What expanding one partition learned besides the successors (combined by :meth:`add`)."""

    transitions: int = 0
    tally: np.ndarray | None = None
    terminal: tuple[int, ...] | None = None                  # signed key
    witnesses: dict[int, tuple[tuple[int, ...], int]] = field(default_factory=dict)   # bit -> (key, action)
    error: tuple[tuple[int, ...], int, str] | None = None     # (signed key, action, message)
    sent: list[LevelFile] = field(default_factory=list)       # the exchange files written for the next step

    def add(self, other: "MapSummary") -> None:
        self.transitions += other.transitions
        self.sent.extend(other.sent)
        if other.tally is not None:
            self.tally = other.tally.copy() if self.tally is None else self.tally + other.tally
        if other.terminal is not None and (self.terminal is None or other.terminal < self.terminal):
            self.terminal = other.terminal
        for bit, w in other.witnesses.items():
            if bit not in self.witnesses or w < self.witnesses[bit]:
                self.witnesses[bit] = w
        if other.error is not None and (self.error is None or other.error[:2] < self.error[:2]):
            self.error = other.error


@dataclass
class Outbox:
    """What expanding one partition leaves for the next step, grouped by owner partition: the distinct
    successors with their canonical parents (owner ``r``'s at ``[starts[r], starts[r + 1])``) and, for
    the graph and eventually properties, the transitions ``(target, source, action)`` by their target's
    owner."""

    keys: np.ndarray
    parents: np.ndarray
    actions: np.ndarray
    starts: np.ndarray
    edges: np.ndarray
    edge_starts: np.ndarray


def expand_states(job: LevelJob, keys: np.ndarray, sbits: np.ndarray) -> tuple[Outbox | None, MapSummary]:
    """The successors of the level's ``keys`` (one partition's) and what expanding them learned; no
    :class:`Outbox` when model code failed (the summary says where)."""
    succ, scheck, tcheck = _kernels(job.refs)
    w, nact = job.refs.words, max(job.refs.actions, 1)
    if job.leaf_mask:
        leaf = np.uint64(job.leaf_mask)
        keys = np.ascontiguousarray(keys[(sbits & leaf) != leaf])
    summary = MapSummary(tally=np.zeros(tally_size(nact), dtype=np.int64))
    masks = counters.new(counters.MASKS, 1)
    masks["trans_watch"] = job.trans_mask   # no state bits: the filing side checks the distinct states
    rows = Rows(np.zeros((nact, w), dtype=np.uint64), np.zeros(nact, dtype=np.int64), np.zeros(nact, dtype=np.int64),
                np.zeros(nact, dtype=np.uint64))
    tw_src = np.full(64, -1, dtype=np.int64)
    tw_act = np.full(64, -1, dtype=np.int64)
    cap = max(min(job.batch, len(keys)) * nact, 1)
    child = np.empty((cap, w), dtype=np.uint64)
    parent = np.empty(cap, dtype=np.int64)
    action = np.empty(cap, dtype=np.int64)
    unused = np.empty(cap, dtype=np.uint64)
    table = np.empty(1 << max(int(2 * cap).bit_length(), 4), dtype=np.int64)
    got_keys, got_parents, got_actions, got_edges = [], [], [], []
    edges = np.empty((cap if job.edges else 0, edge_width(w)), dtype=np.uint64)
    for lo in range(0, len(keys), job.batch):
        states = keys[lo:lo + job.batch]
        io = counters.new(counters.BATCH, 1)
        try:
            m = expand_batch(succ, scheck, tcheck, job.refs.params, states, masks, (child, parent, action, table, edges),
                             unused, (tw_src, tw_act), io, rows, summary.tally)
        except Exception as exc:  # model code raised: the first state of the batch that raises
            bad = first_raising(succ, job.refs.params, states, rows.out, rows.oflags)
            summary.error = (_signed(bad), -1, f"{type(exc).__name__}: {exc}")
            return None, summary
        c = io[0]
        if m < 0:
            summary.error = (_signed(states[c["err_state"]]), int(c["err_action"]), f"flags={int(c['err_flags'])}")
            return None, summary
        summary.add(MapSummary(  # the kernel added this batch's coverage to summary.tally already
            transitions=int(c["trans"]),
            terminal=_signed(states[c["terminal"] - 1]) if c["terminal"] > 0 else None,
            witnesses={int(bit): (_signed(states[tw_src[bit]]), int(tw_act[bit]))
                       for bit in np.flatnonzero(tw_src >= 0)}))
        got_keys.append(child[:m].copy())
        got_parents.append(states[parent[:m]])
        got_actions.append(action[:m].astype(np.int16))
        if job.edges:
            got_edges.append(edges[:c["edges"]].copy())
    # the kernel removed duplicates inside each batch; this removes them across the batches too
    ks, ps, acts = _concat(got_keys, got_parents, got_actions, w)
    del got_keys[:], got_parents[:], got_actions[:]   # a copy of every successor fewer at the next peak
    ks, ps, acts, starts = unique_by_owner(ks, ps, acts, job.parts, UNIQUE_CHUNK)
    pairs = np.concatenate(got_edges) if got_edges else np.empty((0, edge_width(w)), np.uint64)
    order, edge_starts = group_by_owner(owner_of(np.ascontiguousarray(pairs[:, :w]), job.parts), job.parts)
    return Outbox(ks, ps, acts, starts, pairs[order], edge_starts), summary


def _concat(keys: list[np.ndarray], parents: list[np.ndarray], actions: list[np.ndarray], w: int):
    if not keys:
        return (np.empty((0, w), np.uint64), np.empty((0, w), np.uint64), np.empty(0, np.int16))
    return np.concatenate(keys), np.concatenate(parents), np.concatenate(actions)


# -- filing -----------------------------------------------------------------------------------------------
@dataclass
class PartSummary:
    """What filing one partition wrote: partition ``q`` of the new level."""

    q: int
    size: int
    leaves: int
    witnesses: dict[int, tuple[int, ...]]     # state bit -> smallest signed key with it
    level_file: LevelFile
    runs: tuple[str, ...]                     # the partition's visited runs after this level
    written: tuple[LevelFile, ...]            # the run files this task wrote (merges included)
    new_per_action: np.ndarray
    edges_file: LevelFile | None = None       # the transitions into partition ``q`` (graph properties)


def file_states(job: LevelJob, q: int, inbox: "Inbox") -> tuple["PartSummary", np.ndarray, np.ndarray]:
    """File the successors sent to partition ``q``: returns the summary, and the new states' keys and
    check bits."""
    _, scheck, _ = _kernels(job.refs)
    nact = max(job.refs.actions, 1)
    ks, ps, acts, _ = unique_by_owner(inbox.keys, inbox.parents, inbox.actions, 1, UNIQUE_CHUNK)
    keep = key_order(ks)
    cands = ks[keep]
    found = np.zeros(len(cands), dtype=np.bool_)
    names = job.runs[q]
    for name in names:
        mark_visited(cands, read_run(job.root, q, name), found)
    new = keep[~found]
    keys = ks[new]
    parents, actions = ps[new], acts[new]
    sbits = np.zeros(len(keys), dtype=np.uint64)
    if job.state_mask and len(keys):
        check_rows(scheck, job.refs.params, keys, np.uint64(job.state_mask), sbits)
    level = job.level + 1
    level_file = write_level_part(job.root, level, q, keys, parents, actions, sbits)
    witnesses = {}
    for bit, mask in job.state_watch:
        hits = np.flatnonzero(sbits & np.uint64(mask))
        if len(hits):
            witnesses[bit] = _signed(keys[hits[0]])
    leaves = 0
    if job.leaf_mask:
        leaf = np.uint64(job.leaf_mask)
        leaves = int(np.count_nonzero((sbits & leaf) == leaf))
    runs, written = _add_run(job.root, q, list(names), level, keys)
    edges_file = None
    if job.edges:
        pairs = inbox.edges
        edges_file = write_array(edges_dir(job.root, q) / edges_name(job.level), pairs[key_order(pairs)])
    return (PartSummary(q, len(keys), leaves, witnesses, level_file, tuple(runs), tuple(written),
                        np.bincount(actions.astype(np.int64), minlength=nact)[:nact], edges_file), keys, sbits)


def _add_run(root: str, q: int, runs: list[str], level: int, keys: np.ndarray):
    """Append the level's keys as a run, then merge the last two while the newer holds at least half as
    many keys as the older (so a partition keeps a logarithmic number of runs). Returns the run names
    after, and the records of the files written."""
    if not len(keys):
        return runs, []
    sizes = [len(read_run(root, q, r)) for r in runs]
    written = [write_run(root, q, level, level, keys)]
    runs = runs + [written[-1].name]
    sizes.append(len(keys))
    while len(runs) >= 2 and 2 * sizes[-1] >= sizes[-2]:
        b, a = runs.pop(), runs.pop()
        nb_, na = sizes.pop(), sizes.pop()
        path = runs_dir(root, q) / run_name(run_levels(a)[0], run_levels(b)[1])
        _replace_into(path, partial(_merge_to, runs_dir(root, q), a, b))
        written.append(LevelFile(path.name, path.stat().st_size, na + nb_, file_digest(path)))
        runs.append(written[-1].name)
        sizes.append(na + nb_)
    return runs, written


def _merge_to(where: Path, a: str, b: str, tmp: Path) -> None:
    with open(tmp, "wb") as out:
        merge_run_files(where / a, where / b, out)


# -- one step: file, then expand --------------------------------------------------------------------------


# a bucket file: a header of int64 (states rows, edge rows, words), then the keys, parent keys (uint64),
# actions (int16) and edge rows (uint64), raw: no per-file header to parse, unlike .npy
_HEADER = 3


def write_buckets(job: LevelJob, q: int, box: Outbox) -> list[LevelFile]:
    """Partition ``q``'s successors, one file per owner that gets any; returns the manifest entry of each
    file (name, bytes, rows, BLAKE2b of its bytes, hashed as they are written): what the reading step
    expects, so that a file it cannot find or read whole is an error, never "no successors"."""
    w = job.refs.words
    sent = []
    for r in range(job.parts):
        lo, hi = box.starts[r], box.starts[r + 1]
        elo, ehi = box.edge_starts[r], box.edge_starts[r + 1]
        if lo == hi and elo == ehi:
            continue
        chunks = [np.array([hi - lo, ehi - elo, w], dtype=np.int64)] + [
            np.ascontiguousarray(part) for part in (box.keys[lo:hi], box.parents[lo:hi], box.actions[lo:hi],
                                                    box.edges[elo:ehi])]
        h = hashlib.blake2b(digest_size=16)

        def save(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                for chunk in chunks:
                    data = chunk.reshape(-1).view(np.uint8)
                    h.update(data)
                    f.write(data)

        path = bucket_path(job.root, job.level, r, q)
        _replace_into(path, save)
        sent.append(LevelFile(path.name, sum(c.nbytes for c in chunks), int(hi - lo), h.hexdigest()))
    return sent


@dataclass
class Inbox:
    """The successors (with their parents and actions) and transitions sent to one partition."""

    keys: np.ndarray
    parents: np.ndarray
    actions: np.ndarray
    edges: np.ndarray


def read_bucket(path: Path, expected: LevelFile, w: int) -> tuple[np.ndarray, ...]:
    """``(keys, parents, actions, edges)`` of one exchange file, checked whole against its manifest entry
    (ExchangeFileError naming the file when it is missing, short, longer or different)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ExchangeFileError(f"exchange file {path} is missing (the step before wrote it: "
                                f"{expected.rows} states, {expected.bytes} bytes)") from None
    if len(data) != expected.bytes:
        raise ExchangeFileError(f"exchange file {path} holds {len(data)} bytes, not the {expected.bytes} written")
    if hashlib.blake2b(data, digest_size=16).hexdigest() != expected.blake2b:
        raise ExchangeFileError(f"exchange file {path} differs from what was written (BLAKE2b digest)")
    n, e, words = (int(x) for x in np.frombuffer(data, np.int64, _HEADER))
    if words != w or n != expected.rows:
        raise ExchangeFileError(f"exchange file {path}: {n} states of {words} words, expected "
                                f"{expected.rows} of {w}")
    got, at = [], 8 * _HEADER
    for dtype, count, shape in ((np.uint64, n * w, (n, w)), (np.uint64, n * w, (n, w)), (np.int16, n, (n,)),
                                (np.uint64, e * edge_width(w), (e, edge_width(w)))):
        got.append(np.frombuffer(data, dtype, count, at).reshape(shape))
        at += np.dtype(dtype).itemsize * count
    return tuple(got)


def read_buckets(root: str | Path, level: int, q: int, w: int, expected: tuple[LevelFile, ...]) -> Inbox:
    """The successors the expansion of ``level`` sent to partition ``q``: exactly the files of its
    manifest (``expected``). The directory is never listed: a file a listing misses (a deleted file, or a
    shared filesystem's cached listing) would otherwise silently read as "no successors"."""
    base = shuffle_dir(root, level)
    strays = [f.name for f in expected if bucket_owner(f.name) != q]
    if strays:
        raise ExchangeFileError(f"exchange file {base / strays[0]} is not for partition {q}")
    got: tuple[list[np.ndarray], ...] = ([], [], [], [])
    for f in sorted(expected, key=lambda f: f.name):
        for i, part in enumerate(read_bucket(base / f.name, f, w)):
            got[i].append(part)
    keys, parents, actions = _concat(got[0], got[1], got[2], w)
    edges = np.concatenate(got[3]) if got[3] else np.empty((0, edge_width(w)), np.uint64)
    return Inbox(keys, parents, actions, edges)


def level_task(job: LevelJob, q: int, file_first: bool, expand: bool,
               inbox_files: tuple[LevelFile, ...] = ()) -> Iterator[tuple[Any, Any]]:
    """Task ``q`` of one pipelined step: file level ``job.level`` of partition ``q`` from the successors
    the previous step left in the work directory for it (``inbox_files``, its part of the manifest; unless
    ``file_first`` is False: the level is already stored), then expand it and leave its successors for the
    next step. Yields ``(PartSummary or None, MapSummary or None)``."""
    part = None
    w = job.refs.words
    if file_first:
        inbox = read_buckets(job.root, job.level - 1, q, w, inbox_files)
        part, keys, sbits = file_states(replace(job, level=job.level - 1), q, inbox)
        del inbox   # filed: not held while the level expands
    else:
        keys, sbits = read_frontier(job.root, job.level, q, w)
    summary = None
    if expand:
        box, summary = expand_states(job, keys, sbits)
        if box is not None:
            summary.sent = write_buckets(job, q, box)
    yield part, summary


def task_count(sc: Any, parts: int) -> int:
    """Tasks per step: one per task slot of the cluster (at most one per partition), each taking the
    partitions ``i, i + tasks, ...`` in turn. Starting a Python task costs a fixed latency (measured:
    0.2-0.3 s on a loaded 2-core machine), so a step runs as one wave whatever ``--partitions`` is;
    partitions still bound each task's memory, since a task files and expands one partition at a time."""
    return max(1, min(parts, int(sc.defaultParallelism)))


def run_level_step(sc: Any, job: LevelJob, file_first: bool, expand: bool) -> tuple[list[Any], Any]:
    """One pipelined step: ``(PartSummary per partition or [], combined MapSummary or None)``."""
    parts = job.parts
    tasks = task_count(sc, parts)
    sc.setJobDescription(f"rmqcheck level {job.level}")
    # each task is sent its own partitions' part of the manifest, not the whole (parts x parts files)
    alone = replace(job, inbox=())
    slices = [(i, tuple(job.inbox[q] if job.inbox else () for q in range(i, parts, tasks))) for i in range(tasks)]
    out = (sc.parallelize(slices, tasks)
           .mapPartitions(lambda items: (x for i, boxes in items
                                         for q, files in zip(range(i, parts, tasks), boxes)
                                         for x in level_task(alone, q, file_first, expand, files)))
           .collect())
    if len(out) != parts:
        raise RuntimeError(f"level step {job.level}: {len(out)} of {parts} partitions reported")
    filed = sorted((p for p, _ in out if p is not None), key=lambda s: s.q)
    combined = None
    if expand:
        combined = MapSummary()
        for _, s in out:
            combined.add(s)
    return filed, combined


def drop_buckets(root: str | Path, level: int | None = None) -> None:
    """The exchanged successors of ``level`` (all levels when None), once filed or no longer wanted."""
    import shutil
    shutil.rmtree(shuffle_dir(root, level), ignore_errors=True)
