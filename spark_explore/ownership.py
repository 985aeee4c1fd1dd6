"""Who may use a Spark work directory: the rmqcheck marker, and one run at a time.

A work directory is rmqcheck's only when it holds the marker file ``.rmqcheck-workdir``; a non-empty
directory without it is refused, never used or cleaned, so ``--work-dir ~/data`` cannot delete a user's
``levels/`` or ``meta.json``. A run holds the directory's lock for its whole length: ``.rmqcheck.lock``,
created exclusively (``O_CREAT | O_EXCL``, atomic on local filesystems and on NFS v3 and later, unlike
``flock`` between hosts), holding the owner's pid, host, start time and a random token. A second run is
refused at once, naming the holder. A lock left by a run that died (SIGKILL, a lost machine) is stale: on
the same host a dead pid is detected and the lock taken over; from another host it is refused, and
removing the lock file by hand clears it (the error message says so).

Taking a stale lock over is "judge the holder dead, remove its file, create ours": two runs doing it at
once could both succeed (one removing the lock the other had just created; measured: both held it in 16
of 200 races). So the judging and the removal happen under ``flock`` on a second file,
``.rmqcheck.lock.takeover`` (only runs of one host take a lock over, and ``flock`` excludes the processes
of one host on any filesystem), and the lock is removed only if it still holds the very holder judged
dead. And since a lock can still be taken from a run (a user removing it by hand, a pid judged dead
wrongly), a run checks before every write of ``meta.json`` that the lock still holds its token
(:meth:`WorkDirLock.check`): a run that lost it stops writing (:class:`WorkDirLost`).
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import socket
import time
from pathlib import Path

from explore.run_control import pid_alive

from .errors import SparkUnavailable, WorkDirLost

MARKER = ".rmqcheck-workdir"
LOCK = ".rmqcheck.lock"
TAKEOVER = ".rmqcheck.lock.takeover"
MARKER_TEXT = '{"tool": "rmqcheck", "what": "Spark engine work directory (BFS levels and meta.json)"}\n'


def is_work_dir(root: Path) -> bool:
    return (root / MARKER).is_file()


def claim(root: Path) -> None:
    """Mark ``root`` as an rmqcheck work directory, refusing a non-empty directory that is not one."""
    if is_work_dir(root):
        return
    others = sorted(p.name for p in root.iterdir() if p.name not in (LOCK, TAKEOVER))
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise SparkUnavailable(f"--work-dir {str(root)!r} is not an rmqcheck work directory (no {MARKER} marker) "
                               f"and is not empty ({shown}); give a new or empty directory")
    (root / MARKER).write_text(MARKER_TEXT)



#: how often a lock file that exists but cannot be read is read again before a run counts it lost
READ_RETRIES = 3


class WorkDirLock:
    """The exclusive lock of one run on a work directory (a context manager)."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK
        self.token = secrets.token_hex(8)
        self.held = False
        self.lost = False      # check() found the lock taken: nothing more may be written

    def acquire(self) -> "WorkDirLock":
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if _stale(holder) and self._take_over(holder):
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

    def _take_over(self, judged: dict) -> bool:
        """Remove the lock file if it still holds ``judged``, the holder found dead: under the takeover
        lock, so that no other run of this host removes the lock between this run's look and its removal
        (and so never the fresh lock of a run that took it over first). False when the takeover lock
        cannot be had (a filesystem without ``flock``, such as NFS without its lock service): the stale lock
        is then left for the user to remove, as one from another host."""
        return self._guarded(lambda: self._unlink_if(judged.__eq__))

    def _guarded(self, action) -> bool:
        """Run ``action()`` holding the takeover lock; False when that lock cannot be had."""
        try:
            guard = os.open(self.path.with_name(TAKEOVER), os.O_CREAT | os.O_RDWR, 0o644)
        except OSError:
            return False
        try:
            fcntl.flock(guard, fcntl.LOCK_EX)
            action()
            return True
        except OSError:
            return False
        finally:
            os.close(guard)   # releases the flock

    def _unlink_if(self, holds) -> None:
        """Remove the lock file when ``holds(holder)`` is true of what it holds now."""
        holder = self._holder()
        if holder is not None and holds(holder):
            self._unlink()

    def check(self) -> None:
        """Raise :class:`WorkDirLost` unless the lock file still holds this run's token (fencing: a run
        whose lock was taken must stop writing into the directory). A lock file that cannot be read for
        a moment (a shared filesystem's transient error) is read again before the run gives up."""
        holder = self._holder()
        for _ in range(READ_RETRIES):
            if holder is not None or not self._unreadable():
                break
            time.sleep(0.2)
            holder = self._holder()
        if not self.held or holder is None or holder.get("token") != self.token:
            self.held, self.lost = False, True
            raise WorkDirLost(f"the lock of --work-dir {str(self.path.parent)!r} was taken from this run "
                              f"({_who(holder) if holder else 'its lock file was removed'})")

    def release(self) -> None:
        """Remove this run's lock, if it is still this run's: checked and removed under the takeover lock,
        so a lock another run took meanwhile is never removed (unguarded where ``flock`` is missing)."""
        if self.held:
            self.held = False
            mine = lambda holder: holder.get("token") == self.token   # noqa: E731
            if not self._guarded(lambda: self._unlink_if(mine)):
                self._unlink_if(mine)

    def _unreadable(self) -> bool:
        """Whether the lock file exists but could not be read (an error other than its absence)."""
        try:
            self.path.read_bytes()
        except FileNotFoundError:
            return False
        except OSError:
            return True
        return False

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
        who = "another rmqcheck run (its lock file is unreadable)" if holder is None else _who(holder)
        return (f"--work-dir {root!r} is in use by {who}; wait for it, use another directory, or, if no such "
                f"run is alive, remove {str(self.path)!r}")


def _who(holder: dict) -> str:
    try:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(holder.get("started", 0))))
    except (TypeError, ValueError, OverflowError, OSError):
        started = "?"
    return f"rmqcheck pid {holder.get('pid')} on host {holder.get('host')} since {started}"


def _stale(holder: dict | None) -> bool:
    """A lock of a run of this host whose process is gone."""
    return (holder is not None and holder.get("host") == socket.gethostname()
            and isinstance(holder.get("pid"), int) and not pid_alive(holder["pid"]))
