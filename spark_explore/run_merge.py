"""Merging two visited runs file to file in bounded memory.

A partition's visited runs (sorted ``.npy`` arrays of packed keys, see :mod:`spark_explore.level_job`) are
merged like an LSM tree's, and the last merges of a run hold most of the partition's visited keys. Merged
in memory, that took the whole output plus both inputs' pages: on ``bench`` with two workers and four
partitions, the largest merges raised a Python worker's resident memory by 100 MiB (506 -> 606 MiB, its
peak of the run). Here both runs are read window by window and the union is written as it is produced, so
a merge holds a few windows whatever the runs' sizes.
"""
from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import numpy as np

from explore.step import key_less

from .shards import gallop, merge_runs

MERGE_WINDOW = 1 << 18   # rows read from each run at a time (4 MiB for two-word keys)


class RunReader:
    """Consecutive windows of the rows of a run file (an ``.npy`` array of uint64 rows)."""

    def __init__(self, f: BinaryIO) -> None:
        major, _ = np.lib.format.read_magic(f)
        read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(f)
        if fortran or dtype != np.uint64 or len(shape) != 2:
            raise ValueError(f"{getattr(f, 'name', f)}: not a run (shape {shape}, dtype {dtype})")
        self.f = f
        self.rows, self.words = shape
        self.left = self.rows

    def read(self, rows: int) -> np.ndarray:
        n = min(rows, self.left)
        self.left -= n
        got = np.fromfile(self.f, dtype=np.uint64, count=n * self.words)
        if len(got) != n * self.words:
            raise ValueError(f"{getattr(self.f, 'name', self.f)}: run file shorter than its header says")
        return got.reshape(n, self.words)


def _top_up(window: np.ndarray, reader: RunReader, rows: int) -> np.ndarray:
    """``window`` refilled to ``rows`` rows from ``reader`` (fewer at the end of the run)."""
    if len(window) >= rows or not reader.left:
        return window
    return np.concatenate((window, reader.read(rows - len(window))))


def merge_run_files(a: Path, b: Path, out: BinaryIO, window: int = MERGE_WINDOW) -> int:
    """Write to ``out`` the ``.npy`` run of the sorted union of the disjoint runs in files ``a`` and ``b``;
    returns its rows. Each step merges one window of each run up to the smaller of the two windows' last
    keys: everything below that key in both runs is then in the windows, so the output is in order."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        ra, rb = RunReader(fa), RunReader(fb)
        if ra.words != rb.words:
            raise ValueError(f"{a} and {b}: runs of {ra.words} and {rb.words} words")
        total = ra.rows + rb.rows
        np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.uint64)),
                                                   "fortran_order": False, "shape": (total, ra.words)})
        wa, wb = ra.read(window), rb.read(window)
        merged = np.empty((2 * window, ra.words), dtype=np.uint64)
        while len(wa) and len(wb):
            if key_less(wa[-1], wb[-1]):   # a's window ends first: all of it, and b's rows below its end
                ta, tb = len(wa), gallop(wb, wa[-1], 0)
            else:
                ta, tb = gallop(wa, wb[-1], 0), len(wb)
            n = ta + tb
            merge_runs(wa[:ta], wb[:tb], merged[:n])
            out.write(merged[:n])
            wa, wb = _top_up(wa[ta:], ra, window), _top_up(wb[tb:], rb, window)
        for rest, reader in ((wa, ra), (wb, rb)):   # one run is done: the other's rows follow as they are
            while len(rest):
                out.write(np.ascontiguousarray(rest))
                rest = reader.read(window)
    return total
