"""Output files: checked before a run starts, written atomically so nothing is ever half-written."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputPathError(ValueError):
    """An output path that cannot be written; the message says why."""


def check_writable(path: str | Path, option: str) -> Path:
    """Fail early (before exploring) when ``path`` cannot be created or replaced: the directory must
    exist and take a new file (tried for real with a temporary file, removed at once)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.exists() and p.is_dir():
        raise OutputPathError(f"{option} {str(p)!r}: is a directory; give a file path")
    if not parent.exists():
        raise OutputPathError(f"{option} {str(p)!r}: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise OutputPathError(f"{option} {str(p)!r}: {str(parent)!r} is not a directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputPathError(f"{option} {str(p)!r}: not writable (the file is read-only)")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", dir=str(parent))
    except OSError as exc:
        raise OutputPathError(f"{option} {str(p)!r}: not writable ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)
    return p


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=str(p.parent) if str(p.parent) else ".")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
