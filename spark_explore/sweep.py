"""A sweep (many small explorations, one configuration each) as Spark tasks.

The Spark counterpart of :class:`explore.sweep.SweepPool`, with the same interface: ``run(tasks)`` gives
a :class:`~explore.sweep.SweepResult` with the results in task order. Each task is one partition of one
job, so an executor runs it whole, with the compiled local engine, in its Python worker (reused between
tasks, so the kernels are loaded once per worker); ``collect`` returns the partitions in order, so the
output does not depend on which executor finished first.

A Spark failure (an executor lost more often than the master retries, a worker process killed) ends the
sweep with the tasks unfinished and a one-line ``failure``; Ctrl-C cancels the job and ends it as
interrupted. Either way no task's result is kept: a job is all or nothing.
"""
from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable, Sequence

from explore.sweep import SweepResult, Task, adopt_modes

from .errors import root_cause
from .session import SparkLog, check_java, check_master

#: ``local[N]`` / ``local[N,F]``: N task slots
LOCAL_SLOTS = re.compile(r"local\[([0-9]+)(,\s*[0-9]+)?\]")


def _run_task(indexed: tuple[int, Task], modes: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Executor side: one task, tagged with its place in the sweep, in a Python worker that knows the driver's
    model modes (``modes``: its registry, a mode registered at run time included)."""
    if modes:
        adopt_modes(modes)
    i, task = indexed
    return i, task.function(*task.args)


def task_slots(master: str) -> int:
    """How many tasks the master runs at once, as far as its URL says (for a standalone cluster, whose
    cores the URL does not say, this machine's usable cores)."""
    m = LOCAL_SLOTS.fullmatch(master)
    if m:
        return max(int(m.group(1)), 1)
    if master == "local":
        return 1
    return max(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 1)


class SparkSweep:
    """``with SparkSweep(master) as sweep: sweep.run(tasks)``: each task a Spark task on ``master``.

    Java and the master are checked at once (before any exploration), the session is started by the
    first sweep and kept for the process (:func:`spark_explore.engine.start_session_cached`)."""

    engine = "spark"

    def __init__(self, master: str = "local[*]") -> None:
        check_java()
        check_master(master)
        self.master = master
        self.spark: Any = None

    def __enter__(self) -> "SparkSweep":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    @property
    def jobs(self) -> int:
        """The tasks that run at once, as the master URL says (what a sweep reports as its jobs)."""
        return task_slots(self.master)

    def run(self, tasks: Sequence[Task], on_result: Callable[[int, Any], None] | None = None,
            stop_between: bool = False) -> SweepResult:
        """Run ``tasks`` as one Spark job, one partition each; results in task order (one job: Ctrl-C, which
        Spark's own handler turns into a cancellation, stops it whole, ``stop_between`` or not)."""
        out = SweepResult([None] * len(tasks))
        if not tasks:
            return out
        from .engine import _is_spark_failure, start_session_cached

        self.spark = start_session_cached(self.master, max(2, task_slots(self.master)))
        sc = self.spark.sparkContext
        from model.modes import MODES
        run = functools.partial(_run_task, modes=dict(MODES))
        try:
            rows = sc.parallelize(list(enumerate(tasks)), len(tasks)).map(run).collect()
        except KeyboardInterrupt:
            sc.cancelAllJobs()
            out.interrupted = True
            return out
        except Exception as exc:
            if not _is_spark_failure(exc):
                raise
            out.interrupted = True
            out.failure = f"a Spark sweep failed: {root_cause(exc)} (Spark's log: {SparkLog.named()})"
            return out
        for i, result in sorted(rows, key=lambda row: row[0]):
            out.results[i] = result
            if on_result is not None:
                on_result(i, result)
        return out
