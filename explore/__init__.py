"""Engine-neutral exploration core: the Model protocol, properties, the local BFS explorer, traces,
results and random simulation. Knows nothing of RocketMQ.

The names below load on first use (PEP 562): importing ``explore.result`` alone (the command line does,
for ``--help``) must not compile or load the numba kernels of ``explore.local``.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Limits": ".run_control", "Progress": ".run_control", "LocalExplorer": ".local", "explore": ".local",
    "Model": ".protocol",
    "ALWAYS": "invariants.base", "GRAPH": "invariants.base", "SOMETIMES": "invariants.base",
    "Property": "invariants.base", "PropertySet": "invariants.base", "UnknownPropertyError": "invariants.base",
    "CheckResult": ".result", "PropertyResult": ".result", "Stats": ".result", "Step": ".result", "Trace": ".result",
}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'explore' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
