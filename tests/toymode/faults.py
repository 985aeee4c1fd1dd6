"""What ``rmqcheck faults`` needs of the toy mode: its failure kinds and its answers (explore/fault_profiles.py)."""
from __future__ import annotations

from explore.fault_profiles import FaultProfile
from explore.faults import Vector

from .state import slot


class ToyVector(Vector):
    """A count of the toy's one failure kind."""

    __slots__ = ()
    KINDS = (("crashes", "max_crashes", "failures.crashes"),)


PROFILE = FaultProfile(
    vector=ToyVector, counter_slot=lambda model, name: slot(name), bound_knobs=("messages",),
    grow_knobs=("messages",), settings=("sync_ack", "crash_keeps_log"),
    choices={"sync_ack": (False, True), "crash_keeps_log": (False, True)}, table=("sync_ack", "crash_keeps_log"),
    table_title="per sync_ack and crash_keeps_log", witnesses_path="tests.toymode.properties:AVAILABILITY_WITNESSES",
    availability_path="tests.toymode.properties:AVAILABILITY", actions_path="tests.toymode.declare:ACTIONS", checks_path="tests.toymode.declare:CHECKS",
    view_counters={"crashes": "failures.crashes"})
