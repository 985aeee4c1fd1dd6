"""The RocketMQ 4.4 master/slave replication model: configuration, state, actions and kernel.

Its names load on first use (PEP 562): importing ``model.modes`` (the registry of model modes) or the
controller mode must not import the 4.4 mode, and ``RocketMQModel``'s module compiles the kernel's entry
point (an explicit signature compiles at import), which the declaration scripts (``python -m
model.declare``) must not need.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Action": ".actions", "actions_for": ".actions", "parse_action": ".actions",
    "Config": ".config", "ConfigError": ".config", "KNOBS": ".config", "PRESETS": ".config",
    "PRESET_DESCRIPTIONS": ".config", "load_toml": ".config", "preset": ".config",
    "RocketMQModel": ".rocketmq",
}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'model' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
