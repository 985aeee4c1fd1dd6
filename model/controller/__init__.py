"""The RocketMQ 5.3.3 controller-mode model (``--mode controller``): configuration, state, actions and
kernel, beside the 4.4 model of the parent package. The mechanisms are those of the controller
mechanisms page (docs/controller.md summarises them); every action's docstring names its 5.3.3
``Class#method``."""
from .config import KNOBS, MODE, PRESET_DESCRIPTIONS, PRESETS, ControllerConfig, preset


def __getattr__(name: str):
    if name == "ControllerModel":   # compiles the kernel's entry point: on first use only
        from .model import ControllerModel
        return ControllerModel
    raise AttributeError(f"module 'model.controller' has no attribute {name!r}")


__all__ = ["KNOBS", "MODE", "PRESETS", "PRESET_DESCRIPTIONS", "ControllerConfig", "preset", "ControllerModel"]
