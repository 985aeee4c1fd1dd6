"""Configuration of the RocketMQ 5.3.3 controller-mode model: knobs, failure budgets and presets.

The knobs are the settings of the controller mechanisms page (§8, §10) that change behaviour, named in
snake_case after their RocketMQ names, with the 5.3.3 defaults; the sizes and failure budgets bound the
exploration. A :class:`ControllerConfig` is validated when it is built; bad input raises one
:class:`model.config.ConfigError` naming the key, the value and what is allowed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from ..knobs import ConfigError, Knob, _text, knob_values, set_assignments

MODE = "controller"

KNOBS: tuple[Knob, ...] = (
    Knob("all_ack_in_sync_state_set", "bool", False, (), "MessageStoreConfig.allAckInSyncStateSet",
         "A put waits for every SyncStateSet member's ack, and confirmOffset is the set's smallest ack "
         "(AutoSwitchHAService#computeConfirmOffset); false: SEND_OK after the local append.",
         alias="allAckInSyncStateSet"),
    Knob("in_sync_replicas", "int", 1, (1, 3), "MessageStoreConfig.inSyncReplicas",
         "needAckNums of a put without allAck: 2 or more makes it wait until that many brokers (the master "
         "and any connected slaves, in the set or not) have it (GroupTransferService#doWaitTransfer).",
         alias="inSyncReplicas"),
    Knob("min_in_sync_replicas", "int", 1, (1, 3), "MessageStoreConfig.minInSyncReplicas",
         "A put is refused (IN_SYNC_REPLICAS_NOT_ENOUGH) before the append while the master's in-sync "
         "replica count is below this (CommitLog#asyncPutMessage).", alias="minInSyncReplicas"),
    Knob("enable_elect_unclean_master", "bool", False, (), "ControllerConfig.enableElectUncleanMaster",
         "An election falls back to any live registered broker when no SyncStateSet member is alive "
         "(DefaultElectPolicy#elect).", alias="enableElectUncleanMaster"),
    Knob("brokers", "int", 2, (2, 3), "brokers of the group (controller ids 1..n)",
         "Brokers in the one broker group; the controller assigns their roles."),
    Knob("messages", "int", 2, (1, 3), "messages the producer sends",
         "Messages the producer sends to the one queue, one at a time."),
    Knob("max_broker_crashes", "int", 1, (0, 3), "failure budget",
         "Broker process crashes (the page cache survives: every appended message stays)."),
    Knob("max_broker_power_losses", "int", 0, (0, 3), "failure budget",
         "Broker power losses (the unflushed commitlog tail is lost)."),
    Knob("max_controller_outages", "int", 0, (0, 2), "failure budget",
         "Windows in which the controller answers no request (no election, no AlterSyncStateSet)."),
    Knob("max_link_losses", "int", 0, (0, 2), "failure budget",
         "Losses of one broker's link to the controller (the broker keeps serving clients and peers)."),
    Knob("max_ha_disconnects", "int", 0, (0, 2), "failure budget",
         "HA connections closed while both brokers run (housekeeping timeout, a broken socket)."),
)

_KNOB_BY_KEY = {k.key: k for k in KNOBS}


@dataclass(frozen=True)
class ControllerConfig:
    """A resolved, validated controller-mode configuration."""

    all_ack_in_sync_state_set: bool = False
    in_sync_replicas: int = 1
    min_in_sync_replicas: int = 1
    enable_elect_unclean_master: bool = False
    brokers: int = 2
    messages: int = 2
    max_broker_crashes: int = 1
    max_broker_power_losses: int = 0
    max_controller_outages: int = 0
    max_link_losses: int = 0
    max_ha_disconnects: int = 0

    mode = MODE

    def __post_init__(self) -> None:
        for knob in KNOBS:
            value = getattr(self, knob.key)
            parsed = knob.parse(value)
            if parsed != value or type(parsed) is not type(value):
                object.__setattr__(self, knob.key, parsed)
        for key in ("in_sync_replicas", "min_in_sync_replicas"):
            if getattr(self, key) > self.brokers:
                raise ConfigError(f"knob '{key}': value {getattr(self, key)} exceeds brokers={self.brokers}; "
                                  f"allowed: 1..{self.brokers}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: "ControllerConfig | None" = None) -> "ControllerConfig":
        fields = dataclasses.asdict(base) if base is not None else {}
        for key, value in knob_values(values, KNOBS).items():
            knob = _KNOB_BY_KEY.get(key)
            if knob is None:
                raise ConfigError(f"unknown knob '{key}' (value {value!r}) in mode {MODE}; "
                                  f"known knobs: {', '.join(_KNOB_BY_KEY)}")
            fields[key] = knob.parse(value)
        return cls(**fields)

    def with_overrides(self, assignments: "list[str] | tuple[str, ...]") -> "ControllerConfig":
        """Apply ``key=value`` strings (the ``--set`` option) on top of this config."""
        return ControllerConfig.from_mapping(set_assignments(assignments, "brokers=3"), base=self)

    def as_dict(self) -> dict[str, Any]:
        return {"mode": MODE, **dataclasses.asdict(self)}

    def view_kinds(self) -> dict[str, str]:
        """Every readable field of this configuration's states, with the kind of its values
        (:mod:`model.controller.view`: ``ids``, ``optional`` or ``plain``)."""
        from .view import view_kinds
        return view_kinds(self)

    def short(self) -> str:
        default = ControllerConfig()
        diffs = [f"{k}={_text(v)}" for k, v in dataclasses.asdict(self).items() if getattr(default, k) != v]
        return "controller mode, " + (", ".join(diffs) if diffs else "5.3.3 defaults")


PRESET_DESCRIPTIONS: dict[str, str] = {
    "controller": "controller mode with the 5.3.3 code defaults (allAckInSyncStateSet=false, "
                  "minInSyncReplicas=1): 2 brokers, 2 messages, one broker crash",
    "controller-allack": "controller with allAckInSyncStateSet=true, as RocketMQ's sample controller "
                         "configurations set it",
    "controller-unclean": "controller with enableElectUncleanMaster=true",
}

PRESETS: dict[str, dict[str, Any]] = {
    "controller": {},
    "controller-allack": {"all_ack_in_sync_state_set": True},
    "controller-unclean": {"enable_elect_unclean_master": True},
}


def preset(name: str) -> ControllerConfig:
    values = PRESETS.get(name)
    if values is None:
        raise ConfigError(f"unknown preset '{name}' in mode {MODE}; known presets: {', '.join(PRESETS)}")
    return ControllerConfig.from_mapping(values)
