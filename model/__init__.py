"""The RocketMQ 4.4 master/slave replication model: configuration, state, actions and kernel."""
from . import kernel_cache  # noqa: F401  (first: fixes where compiled kernels are cached)
from .actions import Action, actions_for, parse_action
from .config import KNOBS, PRESET_DESCRIPTIONS, PRESETS, Config, ConfigError, load_toml, preset
from .rocketmq import RocketMQModel

__all__ = [
    "Action", "actions_for", "parse_action", "Config", "ConfigError", "KNOBS", "PRESETS",
    "PRESET_DESCRIPTIONS", "load_toml", "preset", "RocketMQModel",
]
