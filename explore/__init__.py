"""Engine-neutral exploration core: the Model protocol, properties, the local BFS explorer, traces,
results and random simulation. Knows nothing of RocketMQ."""
from .local import Limits, LocalExplorer, Progress, explore
from .protocol import Model
from invariants.base import ALWAYS, GRAPH, SOMETIMES, Property, PropertySet, UnknownPropertyError
from .result import CheckResult, PropertyResult, Stats, Step, Trace

__all__ = [
    "Limits", "LocalExplorer", "Progress", "explore", "Model", "ALWAYS", "GRAPH", "SOMETIMES", "Property",
    "PropertySet", "UnknownPropertyError", "CheckResult", "PropertyResult", "Stats", "Step", "Trace",
]
