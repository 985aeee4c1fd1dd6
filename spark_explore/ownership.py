"""Who may use a Spark work directory: the rmqcheck marker, and one run at a time.

A work directory is rmqcheck's only when it holds the marker file ``.rmqcheck-workdir``; a non-empty
directory without it is refused, never used or cleaned, so ``--work-dir ~/data`` cannot delete a user's
``levels/`` or ``meta.json``. A run holds the directory's lock for its whole length: ``.rmqcheck.lock``,
created exclusively (``O_CREAT | O_EXCL``, atomic on local filesystems and on NFS v3 and later, unlike
``flock``), holding the owner's pid, host and start time. A second run is refused at once, naming the
holder. A lock left by a run that died (SIGKILL, a lost machine) is stale: on the same host a dead pid is
detected and the lock taken over; from another host it is refused, and removing the lock file by hand
clears it (the error message says so).
"""
from __future__ import annotations

import errno
import json
import os
import secrets
import socket
import time
from pathlib import Path

from .errors import SparkUnavailable

MARKER = ".rmqcheck-workdir"
LOCK = ".rmqcheck.lock"
MARKER_TEXT = '{"tool": "rmqcheck", "what": "Spark engine work directory (BFS levels and meta.json)"}\n'


def is_work_dir(root: Path) -> bool:
    return (root / MARKER).is_file()


def claim(root: Path) -> None:
    """Mark ``root`` as an rmqcheck work directory, refusing a non-empty directory that is not one."""
    if is_work_dir(root):
        return
    others = sorted(p.name for p in root.iterdir() if p.name != LOCK)
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise SparkUnavailable(f"--work-dir {str(root)!r} is not an rmqcheck work directory (no {MARKER} marker) "
                               f"and is not empty ({shown}); give a new or empty directory")
    (root / MARKER).write_text(MARKER_TEXT)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkDirLock:
    """The exclusive lock of one run on a work directory (a context manager)."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK
        self.token = secrets.token_hex(8)
        self.held = False

    def acquire(self) -> "WorkDirLock":
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if holder is not None and holder.get("host") == socket.gethostname() \
                        and isinstance(holder.get("pid"), int) and not _pid_alive(holder["pid"]):
                    self._unlink()    # left by a run of this host that died: stale
                    continue
                raise SparkUnavailable(self._in_use(holder)) from None
            except OSError as exc:
                raise SparkUnavailable(f"--work-dir {str(self.path.parent)!r}: cannot create the lock file "
                                       f"({exc.strerror or exc})") from None
            with os.fdopen(fd, "w") as f:
                json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time(),
                           "token": self.token}, f)
            self.held = True
            return self
        raise SparkUnavailable(self._in_use(self._holder()))

    def release(self) -> None:
        if self.held:
            self.held = False
            holder = self._holder()
            if holder is not None and holder.get("token") == self.token:
                self._unlink()

    def __enter__(self) -> "WorkDirLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _holder(self) -> dict | None:
        try:
            data = json.loads(self.path.read_text()[:4096])
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _unlink(self) -> None:
        try:
            os.unlink(self.path)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise

    def _in_use(self, holder: dict | None) -> str:
        root = str(self.path.parent)
        if holder is None:
            who = "another rmqcheck run (its lock file is unreadable)"
        else:
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(holder.get("started", 0))))
            who = f"rmqcheck pid {holder.get('pid')} on host {holder.get('host')} since {started}"
        return (f"--work-dir {root!r} is in use by {who}; wait for it, use another directory, or, if no such "
                f"run is alive, remove {str(self.path)!r}")
