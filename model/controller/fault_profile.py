"""What ``rmqcheck faults`` needs of the controller mode (:class:`explore.fault_profiles.FaultProfile`): its
failure kinds (the budgets of docs/controller.md), the counts an answer rests on, the settings a closing
change may set, the decision table (allAckInSyncStateSet x minInSyncReplicas), its availability witnesses
and the words its failure modes are told in (its declarations)."""
from __future__ import annotations

from typing import Any

from explore.fault_profiles import FaultProfile
from explore.faults import Vector


class ControllerVector(Vector):
    """A combination of the controller mode's failures (its budgets, docs/controller.md)."""

    __slots__ = ()
    KINDS = (
        ("broker_crashes", "max_broker_crashes", "budget.crashes"),
        ("broker_power_losses", "max_broker_power_losses", "budget.powerLosses"),
        ("controller_outages", "max_controller_outages", "budget.controllerOutages"),
        ("link_losses", "max_link_losses", "budget.linkLosses"),
        ("ha_disconnects", "max_ha_disconnects", "budget.haDisconnects"),
    )


def _field_slot(model: Any, name: str) -> tuple[int, int, int]:
    """A controller counter's place in the fixed field layout (model/controller/fields.py)."""
    from model.controller import fields as F
    i = F.NAMES.index(name)
    return int(F.WORD[i]), int(F.SHIFT[i]), int(F.WIDTH[i])


CONTROLLER = FaultProfile(
    vector=ControllerVector, counter_slot=_field_slot,
    bound_knobs=("brokers", "messages"), grow_knobs=("messages", "brokers"),
    settings=("all_ack_in_sync_state_set", "min_in_sync_replicas", "in_sync_replicas",
              "enable_elect_unclean_master"),
    choices={"all_ack_in_sync_state_set": (False, True), "min_in_sync_replicas": (1, 2, 3),
             "in_sync_replicas": (1, 2, 3)},
    table=("all_ack_in_sync_state_set", "min_in_sync_replicas"),
    table_title="per allAckInSyncStateSet and minInSyncReplicas",
    witnesses_path="invariants.controller:AVAILABILITY_WITNESSES",
    availability_path="invariants.witnesses:AVAILABILITY",
    actions_path="model.controller.declare:CONTROLLER", checks_path="invariants.controller.declare:CONTROLLER",
    counter_prefix="budget.",
    view_counters={key: counter for key, _, counter in ControllerVector.KINDS})   # the view names them alike
