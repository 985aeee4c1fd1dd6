"""Breadth-first exploration on Spark over hash-partitioned frontiers. Only this package imports pyspark.

Importing the package registers the engine as ``spark`` with the engine registry
(:func:`explore.protocol.register_explorer`): the core engine package never knows this one, and pyspark is
imported only when a Spark run starts.
"""
from __future__ import annotations

from typing import Any, Callable

from explore.protocol import Explorer, register_explorer


class _OneCall:
    """An engine whose entry point is one function (:func:`spark_explore.engine.explore_on_spark`)."""

    def __init__(self, engine: str, call: Callable[[], Any]) -> None:
        self.engine = engine
        self._call = call

    def run(self) -> Any:
        return self._call()


def _spark(model: Any, properties: Any, limits: Any, listener: Any, **options: Any) -> Explorer:
    import spark_explore.engine as engine    # imports pyspark: only when this engine is chosen
    return _OneCall("spark", lambda: engine.explore_on_spark(model, properties, limits, listener, **options))


register_explorer("spark", _spark)
