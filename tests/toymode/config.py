"""The toy mode's configuration: its knobs, presets and the configuration class the registry names."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from model.knobs import ConfigError, Knob, _text, knob_values, set_assignments

MODE = "toy"

KNOBS: tuple[Knob, ...] = (
    Knob("messages", "int", 2, (1, 3), "messages the client writes", "Messages the client writes, one at a time."),
    Knob("sync_ack", "bool", False, (), "ToyLog.syncAck",
         "The client is told ok once the backup has the write (false: at once).", alias="syncAck"),
    Knob("crash_keeps_log", "bool", False, (), "ToyLog.keepOnCrash",
         "A crashed primary keeps its whole log (false: it falls back to the backup's copy)."),
    Knob("max_crashes", "int", 1, (0, 2), "failure budget", "Primary crashes."),
)
_BY_KEY = {k.key: k for k in KNOBS}


@dataclass(frozen=True)
class ToyConfig:
    """A resolved, validated toy configuration."""

    messages: int = 2
    sync_ack: bool = False
    crash_keeps_log: bool = False
    max_crashes: int = 1

    mode = MODE

    def __post_init__(self) -> None:
        for knob in KNOBS:
            object.__setattr__(self, knob.key, knob.parse(getattr(self, knob.key)))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: "ToyConfig | None" = None) -> "ToyConfig":
        fields = dataclasses.asdict(base) if base is not None else {}
        for key, value in knob_values(values, KNOBS).items():
            if key == "mode" and value == MODE:
                continue
            if key not in _BY_KEY:
                raise ConfigError(f"unknown knob '{key}' (value {value!r}) in mode {MODE}; "
                                  f"known knobs: {', '.join(_BY_KEY)}")
            fields[key] = _BY_KEY[key].parse(value)
        return cls(**fields)

    def with_overrides(self, assignments: "list[str] | tuple[str, ...]") -> "ToyConfig":
        return ToyConfig.from_mapping(set_assignments(assignments, "messages=1"), base=self)

    def as_dict(self) -> dict[str, Any]:
        return {"mode": MODE, **dataclasses.asdict(self)}

    def short(self) -> str:
        default = ToyConfig()
        diffs = [f"{k}={_text(v)}" for k, v in dataclasses.asdict(self).items() if getattr(default, k) != v]
        return "toy mode, " + (", ".join(diffs) if diffs else "defaults")


PRESET_DESCRIPTIONS = {"toy": "the toy log: 2 messages, one crash", "toy-sync": "toy with sync_ack=true"}
PRESETS: dict[str, dict[str, Any]] = {"toy": {}, "toy-sync": {"sync_ack": True}}


def preset(name: str) -> ToyConfig:
    if name not in PRESETS:
        raise ConfigError(f"unknown preset '{name}' in mode {MODE}; known presets: {', '.join(PRESETS)}")
    return ToyConfig.from_mapping(PRESETS[name])
