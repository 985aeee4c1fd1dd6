"""The memory budget: the smallest of the machine's available memory, the process's rlimits less what is
mapped, and the cgroup's limits less its usage (v2 and v1), read from fake /proc and cgroup trees; and a
run whose allocation still fails ends as incomplete with its verdicts, never with a MemoryError."""
from __future__ import annotations

import resource
from pathlib import Path

import numpy as np
import pytest

from explore import local as L
from explore import visited as V
from explore.local import LocalExplorer
from explore.memory import cgroup_headroom, memory_limits, rlimit_headroom, tightest_limit
from explore.result import INCOMPLETE, UNKNOWN, VIOLATED
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase

GIB = 1 << 30


def fake_proc(tmp_path: Path, *, available_kib: int = 16 * 1024 * 1024, vmsize_kib: int = 1024 * 1024,
              vmdata_kib: int = 512 * 1024, cgroup: str = "0::/\n") -> Path:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "meminfo").write_text(f"MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   {available_kib} kB\n")
    (proc / "self" / "status").write_text(f"Name:\tpython\nVmPeak:\t 9999999 kB\nVmSize:\t {vmsize_kib} kB\n"
                                          f"VmData:\t {vmdata_kib} kB\n")
    (proc / "self" / "cgroup").write_text(cgroup)
    return proc


def no_rlimits(which):
    return (resource.RLIM_INFINITY, resource.RLIM_INFINITY)


def test_without_other_limits_the_machine_available_memory_decides(tmp_path):
    proc = fake_proc(tmp_path, available_kib=4 * 1024 * 1024)
    limit = tightest_limit(proc, tmp_path / "nocgroup", no_rlimits)
    assert limit.bytes == 4 * GIB and limit.source == "available memory"


def test_rlimit_as_counts_the_address_space_already_mapped(tmp_path):
    proc = fake_proc(tmp_path, vmsize_kib=1024 * 1024)  # 1 GiB mapped already

    def rlimits(which):
        return (3 * GIB, resource.RLIM_INFINITY) if which == resource.RLIMIT_AS else no_rlimits(which)

    limit = tightest_limit(proc, tmp_path / "nocgroup", rlimits)
    assert limit.bytes == 2 * GIB and "RLIMIT_AS" in limit.source


def test_rlimit_data_counts_the_data_already_mapped(tmp_path):
    proc = fake_proc(tmp_path, vmdata_kib=256 * 1024)

    def rlimits(which):
        return (GIB, GIB) if which == resource.RLIMIT_DATA else no_rlimits(which)

    [data] = rlimit_headroom(proc, rlimits)
    assert data.bytes == GIB - 256 * 1024 * 1024 and "RLIMIT_DATA" in data.source
    assert tightest_limit(proc, tmp_path / "nocgroup", rlimits) == data


def test_a_limit_already_exceeded_leaves_nothing(tmp_path):
    proc = fake_proc(tmp_path, vmsize_kib=4 * 1024 * 1024)
    limit = tightest_limit(proc, tmp_path / "nocgroup",
                           lambda w: (GIB, GIB) if w == resource.RLIMIT_AS else no_rlimits(w))
    assert limit.bytes == 0


def test_cgroup_v2_memory_max_and_high_less_usage_on_the_process_cgroup_and_its_parents(tmp_path):
    proc = fake_proc(tmp_path, cgroup="0::/user.slice/job\n")
    root = tmp_path / "cg"
    job = root / "user.slice" / "job"
    job.mkdir(parents=True)
    (job / "memory.max").write_text("max\n")
    (job / "memory.high").write_text(f"{3 * GIB}\n")
    (job / "memory.current").write_text(f"{GIB}\n")
    (root / "user.slice" / "memory.max").write_text(f"{6 * GIB}\n")
    (root / "user.slice" / "memory.current").write_text(f"{5 * GIB}\n")   # the parent is nearly full
    limits = cgroup_headroom(proc, root)
    assert sorted(x.bytes for x in limits) == [GIB, 2 * GIB]
    limit = tightest_limit(proc, root, no_rlimits)
    assert limit.bytes == GIB and "memory.max" in limit.source


def test_cgroup_v2_seen_from_inside_a_container_is_the_mount_root(tmp_path):
    """In a cgroup namespace /proc/self/cgroup may name a path the container cannot see: the mount root
    holds the container's own limits."""
    proc = fake_proc(tmp_path, cgroup="0::/docker/abc123\n")
    root = tmp_path / "cg"
    root.mkdir()
    (root / "memory.max").write_text(f"{2 * GIB}\n")
    (root / "memory.current").write_text(f"{GIB // 2}\n")
    assert tightest_limit(proc, root, no_rlimits).bytes == GIB + GIB // 2


def test_cgroup_v1_memory_controller(tmp_path):
    proc = fake_proc(tmp_path, cgroup="4:memory:/process_api/x\n3:cpuset:/\n0::/\n")
    root = tmp_path / "cg"
    mem = root / "memory" / "process_api" / "x"
    mem.mkdir(parents=True)
    (mem / "memory.limit_in_bytes").write_text(f"{4 * GIB}\n")
    (mem / "memory.soft_limit_in_bytes").write_text("9223372036854771712\n")   # v1's "unlimited"
    (mem / "memory.usage_in_bytes").write_text(f"{GIB}\n")
    [limit] = cgroup_headroom(proc, root)
    assert limit.bytes == 3 * GIB and "memory.limit_in_bytes" in limit.source


def test_unlimited_and_garbage_cgroup_files_are_no_limit(tmp_path):
    proc = fake_proc(tmp_path, cgroup="0::/a\n7:memory:/a\n")
    root = tmp_path / "cg"
    (root / "a").mkdir(parents=True)
    (root / "a" / "memory.max").write_text("max\n")
    (root / "a" / "memory.high").write_text("garbage\n")
    (root / "memory" / "a").mkdir(parents=True)
    (root / "memory" / "a" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert cgroup_headroom(proc, root) == []
    assert [x.source for x in memory_limits(proc, root, no_rlimits)] == ["available memory"]


def test_the_explorer_budgets_from_the_tightest_limit(monkeypatch):
    """The state capacity follows the budget: a small limit gives a small capacity, and a run that
    outgrows it is incomplete (memory budget), not a crash."""
    monkeypatch.setattr(L, "available_memory_bytes", lambda: 200_000)
    r = LocalExplorer(TwoPhase(6), TWOPHASE_PROPERTIES).run()
    assert r.outcome == INCOMPLETE
    assert "memory budget reached" in r.incomplete_reason


# -- an allocation that fails anyway ------------------------------------------------------------------
def _explorer():
    return LocalExplorer(TwoPhase(5), TWOPHASE_PROPERTIES)


def test_memory_error_while_sorting_a_level_is_incomplete(monkeypatch):
    calls = {"n": 0}
    real = np.argsort

    def argsort(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise MemoryError
        return real(*a, **k)

    monkeypatch.setattr(L.np, "argsort", argsort)
    r = _explorer().run()
    assert r.outcome in (INCOMPLETE, VIOLATED)
    assert "out of memory sorting level" in r.incomplete_reason
    assert r.stats.stopped_early is False


def test_memory_error_while_growing_the_table_is_incomplete(monkeypatch):
    monkeypatch.setattr(V, "TABLE_START", 64)
    real = V.K.new_table
    first = V._region_start(1)

    def new_table(slots, owners, words):
        if slots > first:   # the first table is made; growing it fails
            raise MemoryError
        return real(slots, owners, words)

    monkeypatch.setattr(V.K, "new_table", new_table)
    r = LocalExplorer(TwoPhase(6), TWOPHASE_PROPERTIES).run()
    assert r.outcome in (INCOMPLETE, VIOLATED)
    assert "out of memory growing the hash table" in r.incomplete_reason


class _NoRoom(np.ndarray):
    """An edge list that cannot grow in place for want of memory."""

    def resize(self, *a, **k):
        raise MemoryError


def test_memory_error_while_growing_the_edge_list_stops_the_run(monkeypatch):
    monkeypatch.setattr(V, "EDGES_START", 16)
    real = V.VisitedStore.__init__

    def allocate(self, *a, **k):
        real(self, *a, **k)
        self.edges = self.edges.view(_NoRoom)

    monkeypatch.setattr(V.VisitedStore, "__init__", allocate)
    r = LocalExplorer(Counter(20, k=100), COUNTER_PROPERTIES).run()
    assert "out of memory growing the edge list" in r.incomplete_reason
    graph = [p for p in r.properties if p.kind == "graph"]
    assert graph and all(p.status == UNKNOWN for p in graph)


@pytest.mark.parametrize("threads", [1, 2])
def test_memory_error_while_deciding_graph_properties_leaves_them_unknown(monkeypatch, threads):
    def fail(*a, **k):
        raise MemoryError

    monkeypatch.setattr(L, "cannot_reach_goal", fail)
    r = LocalExplorer(Counter(20, k=100), COUNTER_PROPERTIES, threads=threads).run()
    graph = [p for p in r.properties if p.kind == "graph"]
    assert graph and all(p.status == UNKNOWN for p in graph)
    assert "out of memory deciding the graph properties" in r.incomplete_reason
    assert r.outcome in (INCOMPLETE, VIOLATED)


def test_memory_error_inside_the_kernel_is_not_a_model_error(monkeypatch):
    real = L.K.expand
    calls = {"n": 0}

    def expand(*a):
        calls["n"] += 1
        if calls["n"] == 2:
            raise MemoryError
        return real(*a)

    monkeypatch.setattr(L.K, "expand", expand)
    r = _explorer().run()
    assert r.error is None
    assert r.outcome in (INCOMPLETE, VIOLATED) and "out of memory expanding level" in r.incomplete_reason


def test_a_failed_allocation_retries_at_half_the_capacity(monkeypatch):
    real = L.np.empty
    seen = []

    def empty(shape, *a, **k):
        rows = shape[0] if isinstance(shape, tuple) else shape
        seen.append(rows)
        if rows > 5000 and len(seen) < 50:
            raise MemoryError
        return real(shape, *a, **k)

    ex = LocalExplorer(TwoPhase(4), TWOPHASE_PROPERTIES, memory_budget=10_000_000)
    monkeypatch.setattr(L.np, "empty", empty)
    r = ex.run()
    monkeypatch.setattr(L.np, "empty", real)
    assert ex.store.cap <= 5000
    assert r.outcome != "error"
