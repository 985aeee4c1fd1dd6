"""Errors the Spark engine reports to users as bad input (exit code 2): one line, no traceback."""
from __future__ import annotations

import re


class SparkUnavailable(ValueError):
    """Spark cannot run here: no Java, an unreachable master, or an unusable work directory."""


class SparkRefused(ValueError):
    """A request the Spark engine does not support (e.g. a graph property), with the alternative."""


def root_cause(exc: BaseException) -> str:
    """The innermost cause of a Spark failure as one line (Java stacks and Python tracebacks dropped). A
    task that failed in its Python worker reaches the driver as a Java ``PythonException`` whose text is
    the worker's traceback: the cause is then the exception line that ends it (type and message)."""
    text = _innermost_text(exc)
    first = _python_exception(text)
    if first is None:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        first = lines[0] if lines else type(exc).__name__
    return first if len(first) <= 400 else first[:397] + "..."


def _innermost_text(exc: BaseException) -> str:
    java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    if java is not None:
        try:
            while java.getCause() is not None:
                java = java.getCause()
            return str(java.toString())
        except Exception:  # the JVM may be gone: fall back to the Python side's text
            return str(exc)
    cause = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return f"{type(cause).__name__}: {cause}"


_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*)(: .*)?$")


def _python_exception(text: str) -> str | None:
    """``Type: message`` of the last exception of a Python traceback inside ``text`` (None without one):
    the lines after the last ``Traceback`` header up to Spark's own suffix (``SQLSTATE``, a Java stack),
    whose last unindented line starts the exception; its type without the module path."""
    at = text.rfind("Traceback (most recent call last):")
    if at < 0:
        return None
    lines = []
    for line in text[at:].splitlines()[1:]:
        if line.startswith("\tat ") or line.strip().startswith("SQLSTATE:"):
            break
        lines.append(line)
    starts = [i for i, line in enumerate(lines) if _EXCEPTION_LINE.match(line)]
    if not starts:
        return None
    kind, message = _EXCEPTION_LINE.match(lines[starts[-1]]).groups()
    rest = " ".join(line.strip() for line in lines[starts[-1] + 1:] if line.strip())
    return (kind.rsplit(".", 1)[-1] + (message or "") + (" " + rest if rest else "")).strip()


def failure_cause(exc: BaseException, work_dir: str) -> str:
    """A Spark failure's root cause for the user (:func:`root_cause`), a full disk (ENOSPC, from Python or
    from Java) named as such, with the work directory when the failed write was under it."""
    cause = root_cause(exc)
    if "No space left on device" not in cause and "[Errno 28]" not in cause:
        return cause
    where = f" under the work directory {work_dir}" if work_dir in cause else ""
    return f"the disk is full (no space left on device{where}): {cause}"


class ExchangeFileError(RuntimeError):
    """An exchange file a step expects (its manifest names it) is missing, short or different: the step
    fails (Spark runs the task again; when it keeps failing the run ends incomplete naming the file)
    rather than read an absent file as "no successors"."""


class WorkDirLost(RuntimeError):
    """This run's lock on its work directory was taken (by another run, or removed by hand): the run stops
    writing there and ends incomplete."""
