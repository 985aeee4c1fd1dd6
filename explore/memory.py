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
