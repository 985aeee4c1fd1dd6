"""Named properties over model states and the reachable graph, grouped by concern."""
from .base import ALWAYS, GRAPH, SOMETIMES, Property, PropertySet, UnknownPropertyError
from .rocketmq import PROPERTIES

__all__ = ["ALWAYS", "GRAPH", "SOMETIMES", "Property", "PropertySet", "UnknownPropertyError", "PROPERTIES"]
