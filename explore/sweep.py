"""Running many small explorations (one configuration each) in a pool of processes.

A sweep is a list of tasks, each a module-level function and its (picklable) arguments. Results come
back in task order whatever order the workers finish in, so a sweep's output does not depend on
``jobs``. The local engine is single-threaded, so ``jobs`` processes keep ``jobs`` cores busy; the
default is the cores this process may run on. Workers are started with ``spawn`` (a fresh interpreter
loads the cached compiled kernels; no forked copy of a parent holding a large visited set).

Ctrl-C stops the sweep: the tasks that finished keep their results, the others are ``None``.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import stop


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not Linux
        return max(os.cpu_count() or 1, 1)


@dataclass(frozen=True)
class Task:
    """One exploration of a sweep: ``function(*args)``, run in a worker process."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass
class SweepResult:
    """Results in task order (``None`` where a task did not finish), and whether Ctrl-C stopped it (or a
    failure of the runner itself, e.g. of Spark, said in one line in ``failure``)."""

    results: list[Any] = field(default_factory=list)
    interrupted: bool = False
    failure: str = ""

    @property
    def finished(self) -> int:
        return sum(r is not None for r in self.results)


class SweepPool:
    """Worker processes kept for several sweeps (each worker loads the compiled kernels once).

    ``with SweepPool(jobs) as pool: pool.run(tasks)``; with one job every task runs in this process.
    The Spark engine's ``SparkSweep`` runs the same tasks as Spark tasks."""

    engine = "local"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> "SweepPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.executor is not None:
            interrupted = exc[0] is not None
            self.executor.shutdown(wait=not interrupted, cancel_futures=interrupted)
            self.executor = None

    def run(self, tasks: Sequence[Task], on_result: Callable[[int, Any], None] | None = None,
            stop_between: bool = False) -> SweepResult:
        """Run ``tasks``; results in task order. Ctrl-C ends the sweep with what finished; with
        ``stop_between``, so does a stop request (the first Ctrl-C under ``stop_on_signals``), where without
        it each remaining task runs and ends at once as incomplete (``matrix`` lists them so)."""
        out = SweepResult([None] * len(tasks))
        try:
            if self.jobs <= 1 or (len(tasks) <= 1 and self.executor is None):
                for i, task in enumerate(tasks):
                    if stop_between and stop.requested():   # the first Ctrl-C stops the sweep, not one task
                        out.interrupted = True
                        break
                    out.results[i] = task.function(*task.args)
                    if on_result is not None:
                        on_result(i, out.results[i])
            else:
                self._run_pool(tasks, out, on_result, stop_between)
        except KeyboardInterrupt:
            out.interrupted = True
            if self.executor is not None:
                self.executor.shutdown(wait=False, cancel_futures=True)
                self.executor = None
        return out

    def _run_pool(self, tasks: Sequence[Task], out: SweepResult,
                  on_result: Callable[[int, Any], None] | None, stop_between: bool) -> None:
        if self.executor is None:
            from model.modes import MODES
            self.executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=adopt_modes, initargs=(dict(MODES),))
        pending: dict[Future, int] = {self.executor.submit(t.function, *t.args): i for i, t in enumerate(tasks)}
        try:
            while pending:
                done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                if stop_between and stop.requested():   # the first Ctrl-C stops the sweep: what finished is kept
                    out.interrupted = True
                    self._stop_workers()
                    return
                for fut in done:
                    i = pending.pop(fut)
                    out.results[i] = fut.result()
                    if on_result is not None:
                        on_result(i, out.results[i])
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise


    def _stop_workers(self) -> None:
        """End the workers now: their running explorations' results would be thrown away."""
        if self.executor is None:
            return
        workers = list(getattr(self.executor, "_processes", {}).values())   # the executor has no public handle
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = None
        for process in workers:
            process.terminate()


def adopt_modes(modes: dict[str, Any]) -> None:
    """A worker's model modes: this process's registry (model/modes.py) as its parent had it, so a mode
    registered at run time rather than by the registry's own module (the tests' toy mode) is known to the
    tasks too."""
    from model.modes import MODES
    MODES.update(modes)


def run_sweep(tasks: Sequence[Task], jobs: int, on_result: Callable[[int, Any], None] | None = None) -> SweepResult:
    """Run ``tasks`` on ``jobs`` processes (in this process when ``jobs`` is 1 or there is one task)."""
    with SweepPool(jobs) as pool:
        return pool.run(tasks, on_result)
