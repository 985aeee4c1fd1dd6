"""What a caller hands an engine and gets back while it runs: its limits, progress snapshots and the
listener that receives them, this process's memory as progress reports it, and whether another process
still runs (the owner of a lock on a work directory or an output file).

Every engine (the local explorer on any number of threads, Spark, simulation) takes the same
:class:`Limits` and reports the same :class:`Progress` to a :class:`Listener`; ``reports/`` renders it as a
progress bar. Engines never print.
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Limits:
    """Exploration bounds; None means unbounded."""

    max_states: int | None = None
    max_depth: int | None = None
    max_seconds: float | None = None


#: how many explorations ``faults``' search of setting sets ("holds with") runs at most (``--max-configs``)
DEFAULT_MAX_CONFIGS = 64


@dataclass
class Progress:
    """A snapshot for progress listeners."""

    level: int
    frontier: int
    expanded: int
    distinct: int
    transitions: int
    seconds: float
    decided: int = 0          # properties settled so far (graph properties settle only at the end)
    properties: int = 0       # properties checked (0: not known to the reporter)
    memory_bytes: int = 0     # resident memory of this process now
    memory_limit: int = 0     # the resident memory the run may hold (0: none known; explore.memory.MemoryWatch)

    @property
    def states_per_second(self) -> float:
        return self.distinct / self.seconds if self.seconds > 0 else 0.0


class Listener(Protocol):
    def on_progress(self, progress: Progress) -> None: ...


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_bytes() -> int:
    """Resident memory of this process now (/proc/self/statm counts pages); 0 where unknown."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (one owned by another user counts: it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # exists, owned by someone else
        return True
    return True
