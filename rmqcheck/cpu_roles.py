"""CPU time of a process tree by role, from /proc: where a Spark benchmark's cores went.

A Spark run on a standalone cluster is many processes, all descendants of the one that started the
cluster: the driver (this Python process and its JVM), the master and worker daemons, one executor JVM per
worker, and the executors' Python workers. :func:`snapshot` reads each live descendant's user + system
time; :func:`cpu_by_role` sums the difference between two snapshots per role. A process that ends between
the snapshots is missed (the Python workers are reused, so none should).
"""
from __future__ import annotations

import os
from collections import Counter

ROLES = ("driver_python", "driver_jvm", "executor_jvms", "python_workers", "cluster_daemons", "other")

Snapshot = dict[int, tuple[str, float]]


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def role(cmdline: str) -> str:
    """The role of a descendant process in a Spark run, from its command line."""
    if "org.apache.spark.deploy.SparkSubmit" in cmdline:
        return "driver_jvm"
    if "CoarseGrainedExecutorBackend" in cmdline:
        return "executor_jvms"
    if "org.apache.spark.deploy.master.Master" in cmdline or "org.apache.spark.deploy.worker.Worker" in cmdline:
        return "cluster_daemons"
    if "pyspark.daemon" in cmdline or "pyspark.worker" in cmdline:
        return "python_workers"
    return "other"


def snapshot(root: int | None = None) -> Snapshot:
    """Role and CPU seconds so far of ``root`` (default: this process, the driver) and every descendant."""
    root = os.getpid() if root is None else root
    stats: dict[int, tuple[int, float]] = {}   # one read of /proc: pid -> (parent pid, CPU seconds)
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                stats[int(name)] = st
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    snap: Snapshot = {}
    todo = [root] if root in stats else []
    while todo:
        pid = todo.pop()
        snap[pid] = ("driver_python" if pid == root else role(_cmdline(pid)), stats[pid][1])
        todo.extend(children.get(pid, ()))
    return snap


def cpu_by_role(before: Snapshot, after: Snapshot) -> dict[str, float]:
    """CPU seconds spent between two snapshots, per role (a process new in ``after`` counts whole)."""
    total: Counter[str] = Counter()
    for pid, (kind, cpu) in after.items():
        earlier = before.get(pid)
        total[kind] += cpu - (earlier[1] if earlier is not None and earlier[0] == kind else 0.0)
    return {r: round(max(total[r], 0.0), 2) for r in ROLES}


def status_bytes(pid: int | str, key: str) -> int:
    """A memory figure of a process (``pid``, or ``"self"``) from ``/proc/PID/status`` (``VmRSS``: now,
    ``VmHWM``: peak) in bytes, 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _peak_rss(pid: int) -> int:
    return status_bytes(pid, "VmHWM")


def peak_rss_by_role(snap: Snapshot) -> dict[str, int]:
    """Per role, the sum of the peak resident sets of its live processes in ``snap``: an upper bound of
    the memory the role held at once (peaks of different processes need not coincide, and forked Python
    workers share their parent's pages)."""
    total: Counter[str] = Counter()
    for pid, (kind, _) in snap.items():
        total[kind] += _peak_rss(pid)
    return {r: int(total[r]) for r in ROLES}


def _rss(pid: int) -> int:
    return status_bytes(pid, "VmRSS")


def reset_peak(pid: int | str) -> bool:
    """Start a process's peak resident set (``VmHWM``) afresh from its current one (``/proc/PID/clear_refs``,
    Linux 4.0+); False if that is not possible here."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def mark_peaks(snap: Snapshot, roles: tuple[str, ...]) -> dict[int, int]:
    """Start a fresh peak-RSS mark in every live process of ``roles`` (``/proc/PID/clear_refs``: the peak
    becomes the current resident set) and return each one's resident set now, for :func:`growth`."""
    marks = {}
    for pid, (kind, _) in snap.items():
        if kind in roles and reset_peak(pid):   # one not resettable is left out: its whole peak counts
            marks[pid] = _rss(pid)
    return marks


def growth(marks: dict[int, int], snap: Snapshot, roles: tuple[str, ...]) -> int:
    """How far the processes of ``roles`` in ``snap`` grew above their marks at their peaks, summed: the
    memory an exploration added to them (a process not marked, started since, counts whole)."""
    return sum(max(_peak_rss(pid) - marks.get(pid, 0), 0) for pid, (kind, _) in snap.items() if kind in roles)
