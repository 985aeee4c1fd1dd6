"""The RocketMQ 4.4 master/slave replication model: configuration, state, actions and kernel."""
from . import kernel_cache  # noqa: F401  (first: fixes where compiled kernels are cached)
from .actions import Action, actions_for, parse_action
from .config import KNOBS, PRESET_DESCRIPTIONS, PRESETS, Config, ConfigError, load_toml, preset

# RocketMQModel is imported on first use: its module compiles the kernel's entry point (an explicit
# signature compiles at import), and the declaration scripts (python -m model.declare) import this package
# without needing it, so regenerating the dispatch never compiles anything.


def __getattr__(name: str):
    if name == "RocketMQModel":
        from .rocketmq import RocketMQModel
        return RocketMQModel
    raise AttributeError(f"module 'model' has no attribute {name!r}")


__all__ = [
    "Action", "actions_for", "parse_action", "Config", "ConfigError", "KNOBS", "PRESETS",
    "PRESET_DESCRIPTIONS", "load_toml", "preset", "RocketMQModel",
]
