"""A request from outside the run to stop it (Ctrl-C, SIGTERM), checked by the engines between chunks.

The command line's signal handler only records the request; the engine notices it within a chunk (a
quarter of a second) and ends the run as ``incomplete`` with the request as its reason, exactly as a
limit would, so the verdicts found so far are printed and written.
"""
from __future__ import annotations

_reason = ""


def request(reason: str) -> None:
    """Ask the running exploration to stop; the first reason given is kept."""
    global _reason
    _reason = _reason or reason


def requested() -> str:
    """The reason a stop was requested, or "" when none was."""
    return _reason


def clear() -> None:
    global _reason
    _reason = ""
