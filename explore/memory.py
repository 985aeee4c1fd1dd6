"""How much memory a run may use: the smallest of every limit that applies to this process.

The machine's available memory is only one bound. A process can also be capped by its own resource limits
(``ulimit -v`` is RLIMIT_AS, which counts address space reserved, not touched; RLIMIT_DATA counts private
writable mappings) and, in a container, by its cgroup (v2 ``memory.max`` and ``memory.high``; v1
``memory.limit_in_bytes`` and ``memory.soft_limit_in_bytes``), each less what is already in use. Budgeting
from the free memory alone made a capped run die in a numpy ``MemoryError`` instead of stopping as
incomplete.

Every reader takes the roots of ``/proc`` and of the cgroup mount, so tests can point it at fake files.
"""
from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

UNLIMITED = 1 << 62       # "no limit" in this module's arithmetic
FALLBACK_AVAILABLE = 8 << 30


@dataclass(frozen=True)
class MemoryLimit:
    """One bound on what this process can still allocate, and where it comes from."""

    source: str
    bytes: int


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def _number(text: str | None) -> int | None:
    """A cgroup value: an integer, or None for ``max`` / missing / garbage."""
    if text is None or not text.isdigit():
        return None
    return int(text)


def machine_available(proc: Path = Path("/proc")) -> MemoryLimit:
    """``MemAvailable`` of ``/proc/meminfo`` (the kernel's estimate of memory usable without swapping)."""
    for line in (_read(proc / "meminfo") or "").splitlines():
        key, _, rest = line.partition(":")
        if key == "MemAvailable":
            parts = rest.split()
            if parts and parts[0].isdigit():
                return MemoryLimit("available memory", int(parts[0]) * 1024)
    try:
        import psutil
        return MemoryLimit("available memory", int(psutil.virtual_memory().available))
    except Exception:  # pragma: no cover - not Linux and no psutil
        return MemoryLimit("available memory (assumed)", FALLBACK_AVAILABLE)


def _status_kib(proc: Path, key: str) -> int:
    for line in (_read(proc / "self" / "status") or "").splitlines():
        name, _, rest = line.partition(":")
        if name == key:
            parts = rest.split()
            if parts and parts[0].isdigit():
                return int(parts[0]) * 1024
    return 0


def rlimit_headroom(proc: Path = Path("/proc"),
                    getrlimit=resource.getrlimit) -> list[MemoryLimit]:
    """RLIMIT_AS less the address space mapped (``VmSize``), RLIMIT_DATA less the data mapped (``VmData``)."""
    out = []
    for name, status_key in (("AS", "VmSize"), ("DATA", "VmData")):
        which = getattr(resource, f"RLIMIT_{name}", None)
        if which is None:  # pragma: no cover - not on Linux
            continue
        soft, _hard = getrlimit(which)
        if soft == resource.RLIM_INFINITY or soft < 0:
            continue
        used = _status_kib(proc, status_key)
        out.append(MemoryLimit(f"RLIMIT_{name} {soft:,} B less {used:,} B mapped", max(soft - used, 0)))
    return out


def _cgroup_paths(proc: Path) -> tuple[str | None, str | None]:
    """This process's cgroup v2 path and its v1 memory-controller path, from ``/proc/self/cgroup``."""
    v2 = v1 = None
    for line in (_read(proc / "self" / "cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            v2 = path
        elif "memory" in controllers.split(","):
            v1 = path
    return v2, v1


def _ancestors(root: Path, path: str) -> list[Path]:
    """``root/path`` and each of its parents up to ``root``: a parent's limit caps its children too. A
    path not visible under the mount (a container sees its own cgroup as the root) falls back to ``root``."""
    parts = [p for p in path.split("/") if p and p not in (".", "..")]
    dirs = [root.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]
    return [d for d in dirs if d.is_dir()] or [root]


def cgroup_headroom(proc: Path = Path("/proc"), cgroup_root: Path = Path("/sys/fs/cgroup")) -> list[MemoryLimit]:
    """Each cgroup limit on this process (v2 ``memory.max``/``memory.high``, v1 hard and soft limit, on the
    process's cgroup and its ancestors) less the cgroup's current usage."""
    v2, v1 = _cgroup_paths(proc)
    out = []
    if v2 is not None:
        base = cgroup_root / "unified" if (cgroup_root / "unified" / "cgroup.controllers").exists() else cgroup_root
        for d in _ancestors(base, v2):
            usage = _number(_read(d / "memory.current")) or 0
            for name in ("memory.max", "memory.high"):
                limit = _number(_read(d / name))
                if limit is not None and limit < UNLIMITED:
                    out.append(MemoryLimit(f"cgroup {name} {limit:,} B less {usage:,} B used", max(limit - usage, 0)))
    if v1 is not None:
        for d in _ancestors(cgroup_root / "memory", v1):
            usage = _number(_read(d / "memory.usage_in_bytes")) or 0
            for name in ("memory.limit_in_bytes", "memory.soft_limit_in_bytes"):
                limit = _number(_read(d / name))
                if limit is not None and limit < UNLIMITED:
                    out.append(MemoryLimit(f"cgroup {name} {limit:,} B less {usage:,} B used", max(limit - usage, 0)))
    return out


def memory_limits(proc: Path = Path("/proc"), cgroup_root: Path = Path("/sys/fs/cgroup"),
                  getrlimit=resource.getrlimit) -> list[MemoryLimit]:
    """Every bound on what this process can still allocate (the machine's available memory first)."""
    return [machine_available(proc), *rlimit_headroom(proc, getrlimit), *cgroup_headroom(proc, cgroup_root)]


def tightest_limit(proc: Path = Path("/proc"), cgroup_root: Path = Path("/sys/fs/cgroup"),
                   getrlimit=resource.getrlimit) -> MemoryLimit:
    """The smallest of :func:`memory_limits`: what a run may budget from."""
    return min(memory_limits(proc, cgroup_root, getrlimit), key=lambda limit: limit.bytes)


def available_memory_bytes() -> int:
    """Bytes this process can still allocate, under every limit that applies to it."""
    return tightest_limit().bytes


# -- the resident memory a run holds ---------------------------------------------------------------------
#: the share of what a run may still allocate at its start (the tightest limit above) that it may hold
BUDGET_SHARE = 0.85
#: the machine's available memory under which a run stops whatever its own budget (other processes, or
#: other runs of a sweep, took the rest): at least this many bytes, or this share of the machine's memory
LOW_WATER_BYTES = 256 << 20
LOW_WATER_SHARE = 0.02
#: how often, at most, the machine's available memory is read again (seconds)
MACHINE_EVERY = 1.0


def machine_total(proc: Path = Path("/proc")) -> int:
    """``MemTotal`` of ``/proc/meminfo`` in bytes (0 where unknown)."""
    for line in (_read(proc / "meminfo") or "").splitlines():
        key, _, rest = line.partition(":")
        if key == "MemTotal":
            parts = rest.split()
            if parts and parts[0].isdigit():
                return int(parts[0]) * 1024
    return 0


def address_space() -> tuple[int, int]:
    """``(mapped, resident)`` bytes of this process (``/proc/self/statm``: one read); ``(0, 0)`` where
    unknown."""
    try:
        with open("/proc/self/statm") as f:
            size, resident = f.read().split()[:2]
        page = resource.getpagesize()
        return int(size) * page, int(resident) * page
    except (OSError, ValueError):
        return 0, 0


def address_space_limit(getrlimit=resource.getrlimit) -> int | None:
    """The soft RLIMIT_AS in bytes, or None when there is none."""
    which = getattr(resource, "RLIMIT_AS", None)
    if which is None:  # pragma: no cover - not on Linux
        return None
    soft, _ = getrlimit(which)
    return None if soft == resource.RLIM_INFINITY or soft < 0 else soft


class MemoryWatch:
    """The resident memory a run may hold, measured as it grows.

    Estimating a run's memory from its state count under-counts it (edges and their actions beyond the
    estimate, the hash table between doublings, the threads' buffers, a level's sort, the passes over the
    whole graph at the end: ``check --preset large --threads 2`` reached 24.3 GB resident on a 24 GiB
    machine, budgeted at 70 % of it, and the kernel killed it). The engine asks :meth:`over` between
    chunks and levels (one read of ``/proc/self/statm``, about 20 microseconds, four times a second),
    and before each allocation that touches many pages at once (the edge list or the hash table
    doubling, a level's sort, the passes over the graph) with what it will add; it stops the run, as a
    limit does, when the answer is not None.

    The ceiling is the process's resident memory at the start plus ``budget`` when one is given, else
    plus :data:`BUDGET_SHARE` of the tightest limit (:func:`tightest_limit`: the machine's available
    memory, the rlimits' headroom, the cgroups' headroom). Under an address-space limit (``ulimit -v``)
    the mapped memory, which counts what is reserved and not yet touched, must also stay under
    :data:`BUDGET_SHARE` of the limit with ``extra`` added. The machine's available memory is read again
    every :data:`MACHINE_EVERY` seconds: under the low water mark the run stops too, whatever took it."""

    def __init__(self, budget: int | None = None, statm=None, limit=None, available=None, clock=None,
                 as_limit: int | None = -1) -> None:
        import time

        self._statm = statm or address_space
        self._available = available or (lambda: machine_available().bytes)
        self._clock = clock or time.monotonic
        self.mapped, self.start = self._statm()
        if budget is None:
            tight = limit or tightest_limit()
            self.budget = int(tight.bytes * BUDGET_SHARE)
            self.source = f"{BUDGET_SHARE:.0%} of the {tight.source} at its start"
        else:
            self.budget = max(int(budget), 0)
            self.source = "the memory budget given"
        self.ceiling = self.start + self.budget
        cap = address_space_limit() if as_limit == -1 else as_limit
        self.mapped_ceiling = int(cap * BUDGET_SHARE) if cap is not None else None
        self.low_water = max(LOW_WATER_BYTES, int(LOW_WATER_SHARE * machine_total()))
        self._next_machine = 0.0
        self.resident = self.start   # at the last check

    def over(self, extra: int = 0) -> str | None:
        """Why the run must stop now, before adding ``extra`` bytes: its resident memory (plus ``extra``)
        past the ceiling, its mapped memory past the address-space limit's share, or the machine's
        available memory (less ``extra``) under the low water mark; None while there is room."""
        self.mapped, self.resident = self._statm()
        need = f" and needs {human(extra)} more" if extra else ""
        if self.resident + extra > self.ceiling:
            return f"{human(self.resident)} resident{need}; the run may hold {human(self.ceiling)} ({self.source})"
        if self.mapped_ceiling is not None and self.mapped + extra > self.mapped_ceiling:
            return (f"{human(self.mapped)} of address space mapped{need}; the address-space limit (ulimit -v) "
                    f"leaves the run {human(self.mapped_ceiling)} ({BUDGET_SHARE:.0%} of it)")
        now = self._clock()
        if extra or now >= self._next_machine:
            self._next_machine = now + MACHINE_EVERY
            left = self._available()
            if left - extra < self.low_water:
                return (f"the machine has {human(left)} available{need} (other processes took the rest), "
                        f"{human(self.resident)} resident")
        return None


def human(n: float) -> str:
    """Bytes as MiB or GiB, one decimal."""
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"
