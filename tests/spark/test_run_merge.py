"""Merging visited run files window by window (no Spark needed): the same run as sorting the union."""
from __future__ import annotations

import numpy as np
import pytest

from spark_explore.run_merge import merge_run_files
from spark_explore.shards import key_order


def _pool(seed: int, n: int, words: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 50, size=(n, words)).astype(np.uint64)
    k[rng.random(n) < 0.2, 0] |= np.uint64(1 << 63)   # signed order differs from unsigned
    pool = np.unique(k, axis=0)
    return pool[key_order(pool)]


@pytest.mark.parametrize("words,share,window", [(1, 0.5, 7), (2, 0.4, 16), (2, 0.05, 3), (3, 0.9, 1),
                                                (2, 0.0, 5), (2, 1.0, 4), (2, 0.5, 10_000)])
def test_a_windowed_merge_writes_the_sorted_union(tmp_path, words, share, window):
    pool = _pool(words * 100 + window, 2000, words)
    rng = np.random.default_rng(window)
    in_a = rng.random(len(pool)) < share
    # long stretches from one run too, so a window often ends far beyond the other's last key
    in_a[100:400] = True
    in_a[500:700] = share == 1.0
    np.save(tmp_path / "a.npy", np.ascontiguousarray(pool[in_a]))
    np.save(tmp_path / "b.npy", np.ascontiguousarray(pool[~in_a]))
    with open(tmp_path / "m.npy", "wb") as out:
        rows = merge_run_files(tmp_path / "a.npy", tmp_path / "b.npy", out, window=window)
    merged = np.load(tmp_path / "m.npy")
    assert rows == len(pool) and merged.shape == pool.shape
    assert np.array_equal(merged, pool)


def test_a_truncated_run_file_is_refused(tmp_path):
    pool = _pool(1, 300, 2)
    np.save(tmp_path / "a.npy", pool[::2].copy())
    np.save(tmp_path / "b.npy", pool[1::2].copy())
    data = (tmp_path / "b.npy").read_bytes()
    (tmp_path / "b.npy").write_bytes(data[:-16])
    with open(tmp_path / "m.npy", "wb") as out, pytest.raises(ValueError, match="shorter than its header"):
        merge_run_files(tmp_path / "a.npy", tmp_path / "b.npy", out, window=8)
