"""Errors the Spark engine reports to users as bad input (exit code 2): one line, no traceback."""
from __future__ import annotations


class SparkUnavailable(ValueError):
    """Spark cannot run here: no Java, an unreachable master, or an unusable work directory."""


class SparkRefused(ValueError):
    """A request the Spark engine does not support (e.g. a graph property), with the alternative."""
