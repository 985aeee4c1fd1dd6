"""Named properties over model states and the reachable graph, grouped by concern."""
from .base import ALWAYS, EVENTUALLY, GRAPH, SOMETIMES, Fairness, Property, PropertySet, UnknownPropertyError


def __getattr__(name: str):
    # PROPERTIES on first use: its module compiles the generated checks (explicit signatures compile at
    # import), which python -m invariants.declare, regenerating them, must not need
    if name == "PROPERTIES":
        from .rocketmq import PROPERTIES
        return PROPERTIES
    raise AttributeError(f"module 'invariants' has no attribute {name!r}")


__all__ = ["ALWAYS", "EVENTUALLY", "Fairness", "GRAPH", "SOMETIMES", "Property", "PropertySet", "UnknownPropertyError", "PROPERTIES"]
