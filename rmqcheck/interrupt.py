"""Ctrl-C (SIGINT) and SIGTERM: stop the run as a limit would, keep what it found.

While a run that can stop cleanly is in progress (:func:`stop_on_signals`), the first signal only asks the
engine to stop (``explore.stop``): it ends within a chunk, as ``incomplete`` with the reason
"interrupted (SIGINT)", prints the verdicts so far and writes the files asked for. A second signal gives
up at once (KeyboardInterrupt; temporary files are removed on the way out). Outside such a run SIGTERM
behaves as Ctrl-C (:func:`terminate_as_interrupt`), so no temporary file outlives either.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

from explore import stop

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _request_stop(signum: int, frame: Any) -> None:
    if stop.requested():
        _raise_interrupt(signum, frame)
    stop.request(f"interrupted ({signal.Signals(signum).name})")


@contextlib.contextmanager
def _handlers(handler: Any, signals: tuple[int, ...]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield   # signal handlers can only be set from the main thread
        return
    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, as Ctrl-C does, so cleanup code runs."""
    with _handlers(_raise_interrupt, (signal.SIGTERM,)):
        yield


@contextlib.contextmanager
def stop_on_signals(enabled: bool = True) -> Iterator[None]:
    """Within this block the first SIGINT/SIGTERM asks the running exploration to stop."""
    stop.clear()
    if not enabled:
        yield
        return
    try:
        with _handlers(_request_stop, SIGNALS):
            yield
    finally:
        stop.clear()
