"""The Spark engine's compiled level kernels against plain Python on random keys (no Spark needed)."""
from __future__ import annotations

import numpy as np
import pytest

from spark_explore.reachability import locate
from spark_explore.shards import canonical_unique, group_by_owner, key_order, mark_visited, merge_runs, owner_of


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
def test_canonical_unique_keeps_the_smallest_parent_link_whatever_the_order(words):
    rng = np.random.default_rng(10 + words)
    keys = _keys(rng, 2000, words, 12)
    parents = _keys(rng, 2000, words, 5)
    actions = rng.integers(0, 4, 2000).astype(np.int16)
    expect: dict[tuple, tuple] = {}
    for k, p, a in zip(keys, parents, actions):
        link = (_signed(p), int(a))
        expect[_signed(k)] = min(expect.get(_signed(k), link), link)
    for seed in range(3):   # any arrival order gives the same rows
        perm = np.random.default_rng(seed).permutation(len(keys))
        k, p, a = keys[perm], parents[perm], actions[perm]
        keep = canonical_unique(np.ascontiguousarray(k), np.ascontiguousarray(p), a)
        got = {_signed(k[i]): (_signed(p[i]), int(a[i])) for i in keep}
        assert len(keep) == len(got) == len(expect)
        assert got == expect


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
