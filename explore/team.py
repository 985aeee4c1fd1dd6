"""The threads a level runs on: the caller's and ``threads - 1`` workers, which wait for work spinning first.

A level makes a few hundred calls on every thread (its rounds, its sort's steps), each of a few
milliseconds. A thread that waits by sleeping (a lock, a condition) lets its core go idle, and on a virtual
machine an idle core (its vCPU halted) takes 100-200 us to run again when woken: measured on this project's
2-core machine, every call lost that much at its start (the worker woken) and again at its end (the caller
woken), about a sixth of the two-thread time on the two-phase-commit benchmark. So each waiter first spins, in
compiled code and without the GIL, on one word of a shared array (the calls published, the calls the
workers finished) for up to :data:`SPIN_SECONDS`, and only then sleeps on a condition; the word and a
sleeper count tell the other side whether a notification is needed. Spinning costs at most that much CPU
per wait. Every :data:`YIELD_EVERY` steps the spinner gives its core away (``sched_yield``) should
another thread be waiting for it: with more threads than cores (a busy machine, ``--threads`` above the
cores), a spinner would otherwise hold the core the thread it waits for needs.
"""
from __future__ import annotations

import os
import platform
import threading
import time
from typing import Any, Callable

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .atomic import fetch_add, load_acquire

SPIN_SECONDS = 0.002   # a wait spins this long before it sleeps: more than a round's serial glue
YIELD_EVERY = 1024     # spin steps (about 40 us) between two offers of the core to another thread
CALLS = 0              # ``_words`` slot: the calls published
FINISHED = 16          # ``_words`` slot: the workers' finished calls, summed (on a cache line of its own)

I64_1D = types.int64[::1]


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def cpu_relax(typingctx):
    """One step of a waiting loop: ``pause`` on x86 (the loop then does not flood the core with reads
    and leaves it sooner when the word changes), nothing elsewhere."""
    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def yield_core(typingctx):
    """``sched_yield()``: the core goes to another runnable thread, if one waits for it (the C library's,
    linked by name, so a cached kernel finds it in any process)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@nb.njit(types.void(types.int64), cache=True, nogil=True, inline="always")
def _step(k):
    if k % YIELD_EVERY == YIELD_EVERY - 1:
        yield_core()
    else:
        cpu_relax()


@nb.njit(types.int64(I64_1D, types.int64, types.int64, types.int64), cache=True, nogil=True)
def await_count(words, k, target, spins):
    """``words[k]`` once it reaches ``target``, or what it is after ``spins`` steps (both counts only
    grow: the calls published, the calls the workers finished)."""
    for step in range(spins):
        now = load_acquire(words, k)
        if now >= target:
            return now
        _step(step)
    return load_acquire(words, k)


if nb.config.DISABLE_JIT:
    def cpu_relax():  # noqa: F811
        """Pure-Python mode: nothing."""

    def yield_core():  # noqa: F811
        """Pure-Python mode: the operating system's."""
        os.sched_yield()


@nb.njit(types.int64(I64_1D, types.int64), cache=True, nogil=True)
def count_finished(words, k):
    """``words[k] += 1``, atomically (several workers finish at once)."""
    return fetch_add(words, k, 1)


_spins_per_second: list[float] = []


def spins_for(seconds: float) -> int:
    """How many :func:`await_count` steps take about ``seconds`` on this machine (measured once)."""
    if nb.config.DISABLE_JIT:   # pure Python would spin holding the GIL: sleep at once
        return 0
    if not _spins_per_second:
        words = np.zeros(1, dtype=np.int64)
        await_count(words, 0, 1, 10)   # loaded before it is timed
        t = time.perf_counter()
        await_count(words, 0, 1, 20_000)
        _spins_per_second.append(20_000 / max(time.perf_counter() - t, 1e-6))
    return max(int(seconds * _spins_per_second[0]), 1)


class ThreadTeam:
    """``threads`` threads: the caller's and ``threads - 1`` workers; :meth:`run` calls ``fn(i)`` for each
    ``i < n`` and waits for all."""

    def __init__(self, threads: int, spin_seconds: float = SPIN_SECONDS) -> None:
        self.threads = threads
        self.failed = -1
        self._words = np.zeros(2 * FINISHED, dtype=np.int64)
        self._spins = spins_for(spin_seconds)
        self._cond = threading.Condition()
        self._asleep = 0          # workers sleeping on the condition
        self._caller_asleep = False
        self._calls = 0
        self._task: tuple[Any, ...] = (None, 0, [], [])
        self._workers = [threading.Thread(target=self._work, args=(i,), daemon=True, name=f"rmqcheck-level-{i}")
                         for i in range(1, threads)]
        for worker in self._workers:
            worker.start()

    def run(self, fn: Callable[[int], Any], n: int | None = None) -> list[Any]:
        """Results in index order (``n``, at most ``threads``, defaults to ``threads``); ``fn(0)`` runs on
        the calling thread (a round starts without waiting for a worker to wake), the others on the workers. The first exception in index order is raised
        once every call has returned (so no call is still writing when the caller goes on); ``failed`` is
        its index."""
        n = self.threads if n is None else n
        if not 0 <= n <= self.threads:
            raise ValueError(f"{n} calls for a team of {self.threads} threads")
        if n == 0:
            return []
        results: list[Any] = [None] * n
        errors: list[BaseException | None] = [None] * n
        if n > 1:
            self._publish((fn, n, results, errors))
        try:
            results[0] = fn(0)
        except BaseException as exc:   # Ctrl-C too: let the workers' calls finish (they are short) first
            errors[0] = exc
        if n > 1:
            try:
                self._await_workers()
            except BaseException:
                self._await_workers()
                raise
        for i, exc in enumerate(errors):
            if exc is not None:
                self.failed = i
                raise exc
        return results

    def close(self) -> None:
        """Stop the workers (each returns once it sees the empty call)."""
        if self._workers:
            self._publish((None, 0, [], []))
            for worker in self._workers:
                worker.join()
            self._workers = []

    def _publish(self, task: tuple[Any, ...]) -> None:
        self._task = task
        self._calls += 1
        self._words[CALLS] = self._calls   # after the task: a worker that sees the count finds it
        if self._asleep:   # read after the count is written: a worker going to sleep then sees the count
            with self._cond:
                self._cond.notify_all()

    def _await_workers(self) -> None:
        target = self._calls * (self.threads - 1)   # every worker finishes every call
        if await_count(self._words, FINISHED, target, self._spins) >= target:
            return
        with self._cond:
            self._caller_asleep = True
            try:
                while self._words[FINISHED] < target:
                    self._cond.wait()
            finally:
                self._caller_asleep = False

    def _work(self, i: int) -> None:
        seen = 0
        while True:
            calls = await_count(self._words, CALLS, seen + 1, self._spins)   # the next call, published
            if calls == seen:
                with self._cond:
                    self._asleep += 1
                    while self._words[CALLS] == seen:
                        self._cond.wait()
                    self._asleep -= 1
                    calls = int(self._words[CALLS])
            seen = calls
            fn, n, results, errors = self._task
            if fn is None:
                return
            if i < n:
                try:
                    results[i] = fn(i)
                except BaseException as exc:
                    errors[i] = exc
            count_finished(self._words, FINISHED)
            if self._caller_asleep:   # read after the count: a caller going to sleep then sees the count
                with self._cond:
                    self._cond.notify_all()
