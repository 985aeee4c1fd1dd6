"""What ``rmqcheck faults`` needs of the controller mode (:class:`explore.fault_profiles.FaultProfile`): its
failure kinds (the budgets of docs/controller.md), the counts an answer rests on, the settings a closing
change may set, the decision table (allAckInSyncStateSet x minInSyncReplicas), its availability witnesses
and the words its failure modes are told in (its declarations)."""
from __future__ import annotations

from typing import Any

from explore.fault_profiles import FaultProfile
from explore.faults import Vector


class ControllerVector(Vector):
    """A combination of the controller mode's failures (its budgets, docs/controller.md): the five every
    configuration has."""

    __slots__ = ()
    KINDS = (
        ("broker_crashes", "max_broker_crashes", "budget.crashes"),
        ("broker_power_losses", "max_broker_power_losses", "budget.powerLosses"),
        ("controller_outages", "max_controller_outages", "budget.controllerOutages"),
        ("link_losses", "max_link_losses", "budget.linkLosses"),
        ("ha_disconnects", "max_ha_disconnects", "budget.haDisconnects"),
    )


#: the failure kinds of the mechanisms a configuration may enable, after the five: a consumer process restart
#: (consumer_offsets=ON: it reads its committed offset, model/controller/offsets.py), a name server restart and
#: a broker channel expired on a name server (name_servers >= 1: RouteInfoManager#scanNotActiveBroker,
#: model/controller/namesrv.py)
CONSUMER_KINDS = (("consumer_restarts", "max_consumer_restarts", "budget.consumerRestarts"),)
NAMESRV_KINDS = (("namesrv_restarts", "max_namesrv_restarts", "budget.nameserverRestarts"),
                 ("namesrv_cutoffs", "max_namesrv_cutoffs", "budget.nameserverCutoffs"))


class ControllerOffsetsVector(ControllerVector):
    """The five, and consumer restarts (consumer_offsets=ON)."""

    __slots__ = ()
    KINDS = ControllerVector.KINDS + CONSUMER_KINDS


class ControllerNamesrvVector(ControllerVector):
    """The five, and the name-server failures (name_servers >= 1)."""

    __slots__ = ()
    KINDS = ControllerVector.KINDS + NAMESRV_KINDS


class ControllerOffsetsNamesrvVector(ControllerVector):
    """The five, consumer restarts and the name-server failures."""

    __slots__ = ()
    KINDS = ControllerVector.KINDS + CONSUMER_KINDS + NAMESRV_KINDS


def vector_of(cfg: Any) -> type[Vector]:
    """The failure kinds ``faults`` varies for ``cfg``: the five, and the kinds of the mechanisms it enables
    (consumer offsets, name servers), whatever their budgets; so a configuration without them keeps the
    five keys in every combination."""
    offsets = getattr(cfg, "consumer_offsets", "OFF") == "ON"
    namesrv = getattr(cfg, "name_servers", 0) >= 1
    return {(False, False): ControllerVector, (True, False): ControllerOffsetsVector,
            (False, True): ControllerNamesrvVector, (True, True): ControllerOffsetsNamesrvVector}[offsets, namesrv]


def _field_slot(model: Any, name: str) -> tuple[int, int, int]:
    """A controller counter's place in the model's layout (model/controller/fields.py; width 0 for a
    budget of 0)."""
    return model.layout.slot(name)


CONTROLLER = FaultProfile(
    vector=ControllerVector, vector_of=vector_of, counter_slot=_field_slot,
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
    # the view names them alike; a configuration's own kinds are those of its vector (replay reads those)
    view_counters={key: counter for key, _, counter in ControllerOffsetsNamesrvVector.KINDS})
