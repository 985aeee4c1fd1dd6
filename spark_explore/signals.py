"""Ctrl-C and SIGTERM during the Spark engine's cluster phase: the run ends as ``incomplete`` in one line.

PySpark's own SIGINT handler cancels the jobs by calling into the JVM from inside the signal handler, that
is, in the middle of the py4j call the driver is blocked in (the step's ``collect``): the nested call finds
the connection busy ("reentrant call"), py4j logs each broken call with a traceback on the root logger, and
the KeyboardInterrupt then tears the original call apart (44 lines after the 'incomplete' line on Ctrl-C,
14 on SIGTERM). Here the first signal is only noted, and the jobs are cancelled from another thread (py4j
gives each thread its own connection): the blocked ``collect`` returns with a cancelled job, which the
engine reports as interrupted. A second signal gives up at once (KeyboardInterrupt), as with the local
engine.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopOnSignals:
    """A context manager: while inside, SIGINT and SIGTERM set :attr:`name` (``"SIGINT"``) and cancel
    the SparkContext's jobs; a second one raises KeyboardInterrupt. Outside the main thread it does
    nothing (only the main thread may set handlers)."""

    def __init__(self, sc: Any) -> None:
        self.sc = sc
        self.name = ""
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopOnSignals":
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._handle) for s in SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)
        self._previous = {}

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.name:
            raise KeyboardInterrupt(name)
        self.name = name
        threading.Thread(target=self._cancel, name="rmqcheck-cancel-jobs", daemon=True).start()

    def _cancel(self) -> None:
        with contextlib.suppress(Exception):   # the JVM may be going away: the driver reports that
            self.sc.cancelAllJobs()
