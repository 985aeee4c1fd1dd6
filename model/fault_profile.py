"""What ``rmqcheck faults`` needs of the RocketMQ 4.4 mode (:class:`explore.fault_profiles.FaultProfile`): its
failure kinds, the counts an answer rests on, the settings a closing change may set (the durability
settings and the alternative behaviours V1-V6), the decision table, the slave count as a structural change,
its availability witnesses and the words its failure modes are told in (its declarations)."""
from __future__ import annotations

from typing import Any

from explore.fault_profiles import FaultProfile, Structural
from explore.faults import Vector


def _layout_slot(model: Any, name: str) -> "tuple[int, int, int] | None":
    """A 4.4 counter's place in the configuration's layout (None: a budget of 0 gives it no bits)."""
    for s in model.layout.slots:
        if s.name == name:
            return s.word, s.shift, s.width
    return None


#: the alternative behaviour switches (mechanisms page §10); V6 is the knob offset_check_in_slave
SWITCHES = ("monotonic_commit", "sync_offsets_max", "reverse_offset_sync", "overflow_to_max",
            "validate_slave_ack", "offset_check_in_slave")

ROCKETMQ_44 = FaultProfile(
    vector=Vector, counter_slot=_layout_slot,
    bound_knobs=("messages", "consumers", "queues", "slaves"), grow_knobs=("messages", "consumers", "slaves"),
    settings=("broker_role", "flush_disk_type", *SWITCHES),
    choices={"broker_role": ("ASYNC_MASTER", "SYNC_MASTER"), "flush_disk_type": ("ASYNC_FLUSH", "SYNC_FLUSH")},
    table=("broker_role", "flush_disk_type"), table_title="per durability setting",
    witnesses_path="invariants.rocketmq:AVAILABILITY_WITNESSES", availability_path="invariants.witnesses:AVAILABILITY",
    actions_path="model.declare:ROCKETMQ_44", checks_path="invariants.declare:ROCKETMQ_44",
    structural=Structural("slaves", 0, 3, "removes the slave", "removes a slave"),
    # V4 (overflow_to_max) is release 4.9.4's rule (model/versions_44.py), V6 the broker setting offsetCheckInSlave
    code_changes=("monotonic_commit", "sync_offsets_max", "reverse_offset_sync", "validate_slave_ack"),
    view_counters={"master_crashes": "failures.masterCrashes", "master_power_losses": "failures.masterPowerLosses",
                   "slave_crashes": "failures.slaveCrashes", "slave_power_losses": "failures.slavePowerLosses",
                   "consumer_restarts": "failures.consumerRestarts", "ha_disconnects": "failures.haDisconnects"})
