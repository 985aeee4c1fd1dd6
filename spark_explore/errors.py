"""Errors the Spark engine reports to users as bad input (exit code 2): one line, no traceback."""
from __future__ import annotations


class SparkUnavailable(ValueError):
    """Spark cannot run here: no Java, an unreachable master, or an unusable work directory."""


class SparkRefused(ValueError):
    """A request the Spark engine does not support (e.g. a graph property), with the alternative."""


def root_cause(exc: BaseException) -> str:
    """The innermost cause of a Spark failure as one line (Java stacks and Python tracebacks dropped)."""
    java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    if java is not None:
        try:
            while java.getCause() is not None:
                java = java.getCause()
            text = str(java.toString())
        except Exception:  # the JVM may be gone: fall back to the Python side's text
            text = str(exc)
    else:
        cause = exc
        while cause.__cause__ is not None:
            cause = cause.__cause__
        text = f"{type(cause).__name__}: {cause}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    return first if len(first) <= 400 else first[:397] + "..."
