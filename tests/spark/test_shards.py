"""The Spark engine's compiled level kernels against plain Python on random keys (no Spark needed)."""
from __future__ import annotations

import numpy as np
import pytest

from spark_explore.reachability import locate
from spark_explore.shards import group_by_owner, key_order, mark_visited, merge_runs, owner_of, unique_by_owner


def _signed(row) -> tuple[int, ...]:
    return tuple(int(x) for x in np.asarray(row, dtype=np.uint64).view(np.int64))


def _keys(rng, n: int, words: int, spread: int) -> np.ndarray:
    # a few large words too, so the signed order differs from the unsigned one
    k = rng.integers(0, spread, size=(n, words)).astype(np.uint64)
    k[rng.random(n) < 0.2, 0] |= np.uint64(1 << 63)
    return k


@pytest.mark.parametrize("words", [1, 2, 3])
def test_key_order_is_the_signed_lexicographic_order(words):
    rng = np.random.default_rng(words)
    keys = _keys(rng, 500, words, 7)
    order = key_order(keys)
    assert [_signed(keys[i]) for i in order] == sorted(_signed(k) for k in keys)


@pytest.mark.parametrize("words", [1, 2])
@pytest.mark.parametrize("parts, chunk", [(1, 1 << 14), (3, 1 << 14), (1, 16), (4, 8)])
def test_unique_by_owner_keeps_the_smallest_parent_link_whatever_the_order(words, parts, chunk):
    rng = np.random.default_rng(10 + words)
    keys = _keys(rng, 2000, words, 12)
    parents = _keys(rng, 2000, words, 5)
    actions = rng.integers(0, 4, 2000).astype(np.int16)
    expect: dict[tuple, tuple] = {}
    for k, p, a in zip(keys, parents, actions):
        link = (_signed(p), int(a))
        expect[_signed(k)] = min(expect.get(_signed(k), link), link)
    runs = []
    for seed in range(3):   # any arrival order gives the same rows, in buckets of any size
        perm = np.random.default_rng(seed).permutation(len(keys))
        k, p, a = (np.ascontiguousarray(x[perm]) for x in (keys, parents, actions))
        ks, ps, acts, starts = unique_by_owner(k, p, a, parts, chunk)
        got = {_signed(ks[i]): (_signed(ps[i]), int(acts[i])) for i in range(len(ks))}
        assert len(ks) == len(got) == len(expect)
        assert got == expect
        owners = owner_of(ks, parts)   # grouped by owner partition, as owner_of says
        assert starts[0] == 0 and starts[-1] == len(ks)
        for q in range(parts):
            assert (owners[starts[q]:starts[q + 1]] == q).all()
        runs.append(sorted(got.items()))
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.parametrize("words", [2, 3])
def test_key_order_is_stable_with_long_runs_of_equal_first_words(words):
    rng = np.random.default_rng(30 + words)
    keys = _keys(rng, 3000, words, 3)   # runs of hundreds of equal first words, and equal rows
    keys[:, 0] = np.where(rng.random(3000) < 0.5, 1, 2).astype(np.uint64)
    keys[:100, 0] = rng.integers(0, 1000, 100).astype(np.uint64)   # and short runs
    order = key_order(keys)
    expect = sorted(range(len(keys)), key=lambda i: (_signed(keys[i]), i))
    assert list(order) == expect


@pytest.mark.parametrize("words", [1, 2])
def test_mark_visited_locate_and_merge_agree_with_sets(words):
    rng = np.random.default_rng(20 + words)
    pool = np.unique(_keys(rng, 3000, words, 40), axis=0)
    pool = pool[key_order(pool)]
    in_run = rng.random(len(pool)) < 0.4
    run, rest = np.ascontiguousarray(pool[in_run]), np.ascontiguousarray(pool[~in_run])
    cands = np.ascontiguousarray(pool[rng.random(len(pool)) < 0.5])
    found = np.zeros(len(cands), dtype=np.bool_)
    mark_visited(cands, run, found)
    members = {_signed(k) for k in run}
    assert [bool(f) for f in found] == [_signed(c) in members for c in cands]
    merged = np.empty((len(run) + len(rest), words), dtype=np.uint64)
    merge_runs(run, rest, merged)
    assert [_signed(k) for k in merged] == [_signed(k) for k in pool]
    repeated = np.ascontiguousarray(np.repeat(cands, 2, axis=0))
    where = np.empty(len(repeated), dtype=np.int64)
    locate(repeated, merged, where)
    assert all(_signed(merged[j]) == _signed(c) for j, c in zip(where, repeated))
    where_in_run = np.empty(len(cands), dtype=np.int64)
    locate(cands, run, where_in_run)
    assert [int(j) >= 0 for j in where_in_run] == [bool(f) for f in found]


def test_owners_group_every_row_once_and_do_not_depend_on_the_order():
    rng = np.random.default_rng(3)
    keys = _keys(rng, 1000, 2, 1 << 40)
    owner = owner_of(keys, 5)
    assert owner.min() >= 0 and owner.max() < 5 and len(set(owner.tolist())) == 5
    order, starts = group_by_owner(owner, 5)
    assert sorted(order.tolist()) == list(range(1000))
    for q in range(5):
        assert set(owner[order[starts[q]:starts[q + 1]]].tolist()) <= {q}
    perm = rng.permutation(1000)
    assert (owner_of(np.ascontiguousarray(keys[perm]), 5) == owner[perm]).all()
