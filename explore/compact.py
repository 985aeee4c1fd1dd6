"""The compact visited set of the local engine (``--compact``): 64-bit fingerprints instead of whole states.

What a run must keep to decide "seen" and to rebuild shortest traces, and no more (as TLC's ``FPSet``):

- ``table``: an open-addressing hash table (linear probing) of the 64-bit fingerprints of every state
  stored, one word a slot, 0 for an empty slot (the state whose fingerprint is 0 is marked apart, in
  ``zero[0]``); no state index in it, since nothing looks a state's index up: the one-thread search files a
  new state at its first finder, its canonical parent (the level is expanded in key order), and keeps no
  edges;
- ``parent`` / ``via`` per state, as the exact store keeps them, but on disk: once a level is sorted its
  links are appended to two files (:class:`LinkFiles`) and their pages given back; a trace reads them back
  one state at a time, walks them to an initial state and replays the actions forward through the model
  (:func:`explore.trace.replay`);
- whole states only for the initial states (the roots of every trace), the level being expanded and the
  level being filed: the pages of older levels are given back to the system (``madvise(MADV_DONTNEED)``)
  once the next level is sorted, so the states' words cost memory for two levels, not for the run.

The fingerprint is the hash the exact store files a state under (:func:`explore.kernel.state_hash`): for
one-word states the splitmix64 finaliser of the word, a bijection, so distinct states never share one and
the set is exact; for wider states :func:`explore.fingerprint.fingerprint_words`, where two distinct states
may share one. Such a collision only ever makes the search take a new state for one it has seen: the state
(and what only it reaches) is left out, never invented, so every violation and trace reported is real (each
trace is a path of the model, replayed); a "holds" verdict, the counts and the shortest traces are those of
the exact search unless a collision happened, whose probability for ``n`` distinct states is at most about
``n^2 / 2^65`` (the birthday bound over ideal 64-bit hashes; :func:`collision_probability`).

The kernels reuse the one expansion step (:func:`explore.step.expand_state`) with this module's insert
policy, so successors, checks, witnesses, coverage and the canonical parent rule are the exact store's; the
same configuration gives the same states in the same order, the same counts and the same traces.
"""
from __future__ import annotations

import mmap
import os
import shutil
import tempfile
import weakref
from collections import namedtuple
from typing import Any

import numba as nb
import numpy as np
from numba import types

from .native import kernel

from .kernel import EXPAND_SIG, MAX_LOAD, SEED_SIG, check_new, state_hash
from .prefetch import prefetch
from .step import ST_CHUNK, ST_LEVEL_DONE, ST_NEED_ROOM, Generator, expand_state, first_terminal, rows_equal

#: where the compact policy files states: what checks a new state and where its witness candidates go (as
#: :data:`explore.kernel.FirstFinder`), the fingerprint-0 mark; ``graph`` is always False (no edges kept)
CompactFinder = namedtuple("CompactFinder", "scheck params visited masks wit_state graph leaves zero")


def collision_probability(distinct: int, words: int) -> float:
    """An upper estimate of the probability that two of ``distinct`` states shared a fingerprint: 0 for
    one-word states (their fingerprint is a bijection of the word), else the birthday bound n^2 / 2^65."""
    if words <= 1 or distinct < 2:
        return 0.0
    return min(1.0, float(distinct) * float(distinct - 1) / 2.0 ** 65)


@kernel(inline=True)
def compact_home(place, row):
    """``home`` of the compact policy: the fingerprint's home slot (its line fetched) and the fingerprint."""
    table = place.visited.table
    h = state_hash(row)
    slot = np.int64(h & np.uint64(len(table) - 1))
    prefetch(table, slot)
    return slot, h


@kernel(inline=True)
def _store_compact(place, io, row, src, a):
    visited = place.visited
    j = io.count
    for i in range(len(row)):
        visited.states[j, i] = row[i]
    visited.parent[j] = src
    visited.via[j] = a
    io.count = j + 1
    check_new(place, j)


@kernel(inline=True)
def _file(place, io, row, src, a, slot, fp):
    """Look fingerprint ``fp`` up from ``slot`` and file the state when it is new; -1: the state limit
    stops the run, 0: seen, 1: filed."""
    table = place.visited.table
    if fp == 0:
        if place.zero[0] != 0:
            return 0
        if io.count >= io.max_states:
            return -1
        place.zero[0] = 1
    else:
        smask = np.uint64(len(table) - 1)
        while True:
            e = table[slot]
            if e == 0:
                break
            if e == fp:
                return 0
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & smask)
        if io.count >= io.max_states:
            return -1
        table[slot] = fp
    _store_compact(place, io, row, src, a)
    return 1


@kernel(inline=True)
def insert_compact(place, io, states, src, a, row, slot, tag):
    """``insert`` of the compact policy: a level is expanded in key order, so the first finder of a new
    state is its canonical parent. False when the state limit is met."""
    if rows_equal(row, states[src]):
        return True   # a self-loop: seen
    return _file(place, io, row, src, a, slot, tag) >= 0


@nb.njit(SEED_SIG, cache=True, nogil=True, _nrt=False)
def seed_compact(scheck, params, visited, counters, masks, wit_state, initial):
    """Store and check the initial states (level 0) in the compact set; returns how many were new.
    ``visited.fill[0]`` is the fingerprint-0 mark."""
    io = counters[0]
    place = CompactFinder(scheck, params, visited, masks[0], wit_state, False, io.leaves != 0, visited.fill)
    added = 0
    for i in range(initial.shape[0]):
        slot, fp = compact_home(place, initial[i])
        if _file(place, io, initial[i], -1, -1, slot, fp) > 0:
            added += 1
    return added


@nb.njit(EXPAND_SIG, cache=True, nogil=True, _nrt=False)
def expand_compact(succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows, chunk, tally):
    """:func:`explore.kernel.expand` over the compact set: up to ``chunk`` states of the current level
    ``[io.pos, io.hi)``; returns a status."""
    io = counters[0]
    mask = masks[0]
    place = CompactFinder(scheck, params, visited, mask, witnesses.state, False, io.leaves != 0, visited.fill)
    gen = Generator(succ, tcheck, params, mask.trans_watch, witnesses.src, witnesses.act)
    nact = len(rows.oflags)
    hi = io.hi
    end = min(hi, io.pos + chunk)
    while io.pos < end:
        if io.count + nact > io.cap or io.count + nact > io.table_limit:
            return ST_NEED_ROOM
        src = io.pos
        if place.leaves and visited.noexp[src] != 0:
            io.nleaf += 1
        else:
            status = expand_state(gen, visited.states, src, rows, io, tally, compact_home, insert_compact,
                                  first_terminal, place)
            if status != ST_CHUNK:
                return status
        io.pos += 1
    return ST_LEVEL_DONE if io.pos >= hi else ST_CHUNK


@nb.njit(types.void(types.uint64[::1], types.uint64[::1]), cache=True, nogil=True, _nrt=False)
def refile_fingerprints(old, new):
    """File every fingerprint of the table ``old`` into the empty, larger table ``new``."""
    smask = np.uint64(len(new) - 1)
    n = len(old)
    for i in range(n):
        fp = old[i]
        if fp == 0:
            continue
        slot = fp & smask
        while new[slot] != 0:
            slot = (slot + np.uint64(1)) & smask
        new[slot] = fp


PAGE = mmap.PAGESIZE


class StateRows:
    """``cap`` rows of ``width`` items of ``dtype`` in an anonymous private mapping whose pages can be given
    back: untouched rows cost no memory, :meth:`release` frees the pages of rows no longer needed
    (``array``: the rows, 1-D when ``width`` is None)."""

    def __init__(self, cap: int, width: int | None, dtype: Any = np.uint64) -> None:
        self.row_bytes = (width or 1) * np.dtype(dtype).itemsize
        size = max(cap * self.row_bytes, PAGE)
        try:
            # no swap space reserved for rows never touched (the exact store's arrays are lazy too)
            self.map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
                                 | getattr(mmap, "MAP_NORESERVE", 0))
        except OSError as exc:
            raise MemoryError(str(exc)) from None
        flat = np.frombuffer(self.map, dtype=dtype, count=cap * (width or 1))
        self.array = flat if width is None else flat.reshape(cap, width)

    def release(self, lo: int, hi: int) -> int:
        """Give back the pages wholly inside rows ``[lo, hi)``; returns the bytes given back."""
        start = -(-lo * self.row_bytes // PAGE) * PAGE
        end = hi * self.row_bytes // PAGE * PAGE
        if end <= start:
            return 0
        self.map.madvise(mmap.MADV_DONTNEED, start, end - start)
        return end - start


class LinkFiles:
    """The parent index (int32) and action (int16) of every state of the levels done, appended level by
    level to two files in a directory of their own (under ``TMPDIR``), read back one state at a time when a
    trace walks them; the directory is removed by :meth:`close` (or when the object goes)."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="rmqcheck-links-")
        self._gone = weakref.finalize(self, shutil.rmtree, self.dir, True)
        self.parent = open(os.path.join(self.dir, "parent.i32"), "w+b")
        self.via = open(os.path.join(self.dir, "via.i16"), "w+b")
        self.rows = 0   # states written

    def append(self, parent: np.ndarray, via: np.ndarray) -> None:
        """Write the links of the next ``len(parent)`` states (OSError when the disk refuses them)."""
        self.parent.write(np.ascontiguousarray(parent, dtype=np.int32).tobytes())
        self.via.write(np.ascontiguousarray(via, dtype=np.int16).tobytes())
        self.parent.flush()
        self.via.flush()
        self.rows += len(parent)

    def link(self, i: int) -> tuple[int, int]:
        """``(parent index, action)`` of written state ``i``."""
        p = np.frombuffer(os.pread(self.parent.fileno(), 4, 4 * i), dtype=np.int32)[0]
        a = np.frombuffer(os.pread(self.via.fileno(), 2, 2 * i), dtype=np.int16)[0]
        return int(p), int(a)

    def actions(self, lo: int, hi: int, chunk: int = 1 << 22):
        """The actions of written states ``[lo, hi)``, a chunk at a time."""
        for start in range(lo, hi, chunk):
            n = min(chunk, hi - start)
            yield np.frombuffer(os.pread(self.via.fileno(), 2 * n, 2 * start), dtype=np.int16)

    @property
    def nbytes(self) -> int:
        return 6 * self.rows

    def close(self) -> None:
        for f in (self.parent, self.via):
            f.close()
        self._gone()


def compact_bytes_per_state(words: int, leaves: bool) -> int:
    """What one state costs the compact set in memory, the table just after a doubling (the memory budget's
    unit): its fingerprint's slot and its leaf mark (its parent and action go to disk level by level)."""
    return int(8 / MAX_LOAD * 2 + (1 if leaves else 0))
