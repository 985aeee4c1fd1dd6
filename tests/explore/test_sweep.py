"""The sweep runner: results in task order whatever the number of processes, one pool for many sweeps."""
from __future__ import annotations

from explore.sweep import SweepPool, Task, run_sweep, usable_cores


def test_results_in_task_order_in_this_process():
    seen = []
    result = run_sweep([Task(pow, (2, k)) for k in range(7)], 1, on_result=lambda i, r: seen.append(i))
    assert result.results == [2 ** k for k in range(7)]
    assert seen == list(range(7)) and result.finished == 7 and not result.interrupted


def test_one_pool_of_processes_serves_several_sweeps_in_task_order():
    with SweepPool(2) as pool:
        first = pool.run([Task(pow, (2, k)) for k in range(7)])
        executor = pool.executor
        second = pool.run([Task(abs, (-n,)) for n in range(4)])
        assert executor is not None and pool.executor is executor
    assert first.results == [2 ** k for k in range(7)]
    assert second.results == [0, 1, 2, 3]
    assert pool.executor is None


def test_usable_cores_is_positive():
    assert usable_cores() >= 1
