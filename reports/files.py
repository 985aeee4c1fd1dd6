"""Output files: checked before a run starts, then written as one set, all or none.

A run's outputs (``--json``, ``--report``, ``--graph``) are first written to temporary files beside their
targets; only when every one is complete are they renamed into place, so a full disk, a signal or a crash
never leaves half a set. Three kinds of path are not renamed into: ``-`` means standard output; a symbolic
link is written through to the file it points at (the link stays a link); a device or a pipe such as
``/dev/stdout`` is written directly. A temporary file is locked (``flock``) by its writer for as long as
it exists; one that nobody holds locked - its writer was killed, SIGKILL included - is removed when the
next run checks the same output path (its name carries the writer's pid: a temporary of a writer still
alive, or of a pid taken again by another process, is left alone for :data:`STALE_AFTER` seconds).
"""
from __future__ import annotations

import fcntl
import os
import re
import stat
import sys
import tempfile
import time
from pathlib import Path

from explore.run_control import pid_alive

STDOUT = "-"
TEMP_SUFFIX = ".rmqcheck-tmp"
#: an unlocked temporary file whose writer's pid is alive is stale once this old (the pid was taken again)
STALE_AFTER = 60.0


class OutputPathError(ValueError):
    """An output path that cannot be written; the message says why."""


def _is_stream(path: str | Path) -> bool:
    """A character device, pipe or socket (e.g. ``/dev/stdout``, ``/dev/null``): written in place."""
    try:
        mode = os.stat(path).st_mode   # follows symbolic links
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def is_standard_output(path: str | Path | None) -> bool:
    """``-``, or a path that names this process's standard output (``/dev/stdout``, ``/proc/self/fd/1``)."""
    if not path:
        return False
    if str(path) == STDOUT:
        return True
    try:
        a, b = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):   # no such file, or stdout is not a real file
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) and not stat.S_ISREG(a.st_mode)


def _target(path: str | Path) -> Path:
    """The file a write lands in: a symbolic link's final target, so the link itself is never replaced."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."



def remove_stale_temps(target: Path, any_name: str | None = None) -> list[Path]:
    """Remove the temporary files a killed rmqcheck left beside ``target`` (or, with ``any_name``, a
    regular expression, those of every file so named in ``target``'s directory): the ones no writer
    holds locked, whose writer's pid is gone or which are older than :data:`STALE_AFTER` seconds."""
    parent = target.parent if str(target.parent) else Path(".")
    name = re.escape(_temp_prefix(target)) if any_name is None else rf"\.(?:{any_name})\."
    pattern = re.compile(name + r"(\d+)\.[^/]*" + re.escape(TEMP_SUFFIX) + "$")
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        m = pattern.match(name)
        if m and _remove_if_stale(parent / name, int(m.group(1))):
            removed.append(parent / name)
    return removed


def _remove_if_stale(path: Path, pid: int) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False   # its writer holds it: a run writing now
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return False
        if pid_alive(pid) and time.time() - st.st_mtime < STALE_AFTER:
            return False   # just created, perhaps not locked yet
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _new_temp(target: Path) -> tuple[int, str]:
    """A new temporary file beside ``target``, locked by this process until its descriptor is closed."""
    parent = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(target)}{os.getpid()}.", suffix=TEMP_SUFFIX, dir=str(parent))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:   # a file system without locks: the pid and the age still tell
        pass
    return fd, tmp


def check_writable(path: str | Path, option: str, allow_stdout: bool = False) -> Path:
    """Fail early (before exploring) when ``path`` cannot be written: the directory must exist and take a
    new file (tried for real with a temporary file, removed at once). Stale temporary files of a killed
    run are removed on the way. A path the system refuses outright (a name over 255 bytes, a loop of
    symbolic links) is an :class:`OutputPathError` too."""
    try:
        return _check_writable(path, option, allow_stdout)
    except (OSError, ValueError) as exc:
        if isinstance(exc, OutputPathError):
            raise
        reason = getattr(exc, "strerror", None) or str(exc)
        raise OutputPathError(f"{option} {str(path)!r}: not a usable path ({reason})") from None


def _check_writable(path: str | Path, option: str, allow_stdout: bool) -> Path:
    if str(path) == STDOUT:
        if not allow_stdout:
            raise OutputPathError(f"{option} '-': standard output is only available for --json")
        return Path(STDOUT)
    if _is_stream(path):
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"{option} {str(path)!r}: not writable")
        return Path(path)
    p = _target(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.exists() and p.is_dir():
        raise OutputPathError(f"{option} {str(path)!r}: is a directory; give a file path")
    if not parent.exists():
        raise OutputPathError(f"{option} {str(path)!r}: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise OutputPathError(f"{option} {str(path)!r}: {str(parent)!r} is not a directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputPathError(f"{option} {str(path)!r}: not writable (the file is read-only)")
    remove_stale_temps(p)
    try:
        fd, probe = _new_temp(p)
    except OSError as exc:
        raise OutputPathError(f"{option} {str(path)!r}: not writable ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)
    return p


class OutputSet:
    """The files of one run, written together: every one or none (see the module docstring)."""

    def __init__(self) -> None:
        self._files: list[tuple[str, str]] = []

    def add(self, path: str | Path, text: str) -> None:
        self._files.append((str(path), text))

    def __len__(self) -> int:
        return len(self._files)

    def files(self) -> list[str]:
        """The paths of the set that are files (not standard output or another stream), in order."""
        return [path for path, _ in self._files if path != STDOUT and not _is_stream(path)]

    def write(self) -> None:
        """Write every file; on any failure (disk full, a signal) remove the temporaries and raise
        :class:`OutputPathError` (an ``OSError``) or the interruption itself."""
        staged: list[tuple[str, Path, int]] = []
        current = ""
        try:
            streams = []
            for current, text in self._files:
                if current == STDOUT or _is_stream(current):
                    streams.append((current, text))
                else:
                    staged.append(_stage(current, text))
            for current, text in streams:
                _write_stream(current, text)
            while staged:
                tmp, target, fd = staged[0]
                current = str(target)
                os.replace(tmp, target)
                staged.pop(0)
                os.close(fd)   # the lock goes once the file is in place
        except OSError as exc:
            raise OutputPathError(_failed(current, exc, self._files)) from None
        finally:
            for tmp, _target_path, fd in staged:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                os.close(fd)


def _stage(path: str, text: str) -> tuple[str, Path, int]:
    """``text`` in a complete temporary file beside ``path``'s target: ``(temporary, target, descriptor)``;
    the descriptor, which holds the file's lock, stays open until the file is renamed or removed."""
    target = _target(path)
    fd, tmp = _new_temp(target)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
        with os.fdopen(fd, "w", encoding="utf-8", closefd=False) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        os.close(fd)
        raise
    return tmp, target, fd


def _write_stream(path: str, text: str) -> None:
    if path == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _failed(path: str, exc: OSError, files: list[tuple[str, str]]) -> str:
    what = "standard output" if path == STDOUT else repr(path)
    others = ", ".join(repr(p) for p, _ in files)
    return (f"cannot write {what} ({exc.strerror or exc}); "
            f"{'none of the output files (' + others + ') was' if len(files) > 1 else 'nothing was'} written")


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write one file the safe way (a set of one)."""
    files = OutputSet()
    files.add(path, text)
    files.write()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def format_by_suffix(path: str | Path, formats: dict[str, str], what: str, option: str) -> str:
    """The output format a path's extension names (``formats``: suffix -> format); bad input otherwise."""
    fmt = formats.get(Path(path).suffix.lower())
    if fmt is None:
        raise OutputPathError(f"{option} {str(path)!r}: unknown {what} format {Path(path).suffix or '(none)'!r}; "
                              f"allowed extensions: {', '.join(formats)}")
    return fmt
