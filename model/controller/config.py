"""Configuration of the RocketMQ 5.3.3 controller-mode model: knobs, failure budgets and presets.

The knobs are the settings of the controller mechanisms page (§8, §10) that change behaviour, named in
snake_case after their RocketMQ names, with the 5.3.3 defaults; the sizes and failure budgets bound the
exploration; the version switches (model/versions_5.py) carry the rules of older 5.x releases, set by
``rocketmq_version`` (``--rocketmq-version``). A :class:`ControllerConfig` is validated when it is built;
bad input raises one :class:`model.knobs.ConfigError` naming the key, the value and what is allowed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from ..versions import version_key
from ..knobs import (VERSION_KEY, ConfigError, Knob, _text, knob_assignments, knob_fields, knob_values,
                     settle_knob_fields)
from .params import DEFAULT_ELECTION_PRIORITY

MODE = "controller"
#: ``BrokerConfig.brokerElectionPriority``'s default and the knob's largest value (``Integer.MAX_VALUE``); no
#: negative value: ``DefaultElectPolicy``'s comparator subtracts two priorities as ints, which overflows for
#: a negative one against a large one (-2 would rank after 2147483647), a comparator the model does not take
ELECTION_PRIORITY_MAX = DEFAULT_ELECTION_PRIORITY


KNOBS: tuple[Knob, ...] = (
    Knob("all_ack_in_sync_state_set", "bool", False, (), "MessageStoreConfig.allAckInSyncStateSet",
         "A put waits for every SyncStateSet member's ack, and confirmOffset is the set's smallest ack "
         "(AutoSwitchHAService#computeConfirmOffset); false: SEND_OK after the local append.",
         alias="allAckInSyncStateSet"),
    Knob("in_sync_replicas", "int", 1, (1, 4), "MessageStoreConfig.inSyncReplicas",
         "needAckNums of a put without allAck: 2 or more makes it wait until that many brokers (the master "
         "and any connected slaves, in the set or not) have it (GroupTransferService#doWaitTransfer).",
         alias="inSyncReplicas"),
    Knob("min_in_sync_replicas", "int", 1, (1, 4), "MessageStoreConfig.minInSyncReplicas",
         "A put is refused (IN_SYNC_REPLICAS_NOT_ENOUGH) before the append while the master's in-sync "
         "replica count is below this (CommitLog#asyncPutMessage).", alias="minInSyncReplicas"),
    Knob("enable_elect_unclean_master", "bool", False, (), "ControllerConfig.enableElectUncleanMaster",
         "An election falls back to any live registered broker when no SyncStateSet member is alive "
         "(DefaultElectPolicy#elect).", alias="enableElectUncleanMaster"),
    Knob("brokers", "int", 2, (2, 4), "brokers of the group (controller ids 1..n)",
         "Brokers in the one broker group; the controller assigns their roles."),
    Knob("messages", "int", 2, (1, 3), "messages the producer sends",
         "Messages the producer sends to the one queue, one at a time."),
    Knob("max_broker_crashes", "int", 1, (0, 3), "failure budget",
         "Broker process crashes (the page cache survives: every appended message stays)."),
    Knob("max_broker_power_losses", "int", 0, (0, 3), "failure budget",
         "Broker power losses (the unflushed commitlog tail is lost)."),
    Knob("max_controller_outages", "int", 0, (0, 2), "failure budget",
         "Windows in which the controller answers no request (no election, no AlterSyncStateSet); with "
         "controllers=3: crashes of one controller node (CtlNodeCrash; its restart is free)."),
    Knob("max_link_losses", "int", 0, (0, 2), "failure budget",
         "Losses of one broker's link to the controller (the broker keeps serving clients and peers); with "
         "controllers=3: cuts of one link between a broker and a controller node or between two nodes."),
    Knob("max_ha_disconnects", "int", 0, (0, 2), "failure budget",
         "HA connections closed while both brokers run (housekeeping timeout, a broken socket)."),
    Knob("flush_disk_type", "enum", "ASYNC_FLUSH", ("ASYNC_FLUSH", "SYNC_FLUSH"), "MessageStoreConfig.flushDiskType",
         "SYNC_FLUSH: a put's reply also waits for GroupCommitService to flush it (FLUSH_DISK_TIMEOUT otherwise; "
         "CommitLog#handleDiskFlushAndHA); confirmOffset, and so what consumers read, does not wait for the flush "
         "in controller mode (CommitLog#getConfirmOffset). One value for the group's brokers.",
         alias="flushDiskType"),
    Knob("queues", "int", 1, (1, 2), "TopicConfig.writeQueueNums",
         "Queues of the one topic: message m goes to queue (m - 1) mod queues (the producer's round robin); each "
         "queue has its own queue offsets, assigned from the master's topicQueueTable and rebuilt from the "
         "consume queue and the commitlog past confirmOffset (ConsumeQueueStore#recoverOffsetTable, "
         "#compensateForHA); 1: a queue offset is the commitlog position."),
    Knob("consumer_offsets", "enum", "OFF", ("OFF", "ON"), "RemoteBrokerOffsetStore / ConsumerOffsetManager",
         "on: the consumer commits its offsets to the broker its route names (persistAll; the master, else a slave), "
         "slaves copy the master's table (SlaveSynchronize#syncConsumerOffset), brokers keep consumerOffset.json, "
         "and a restarted consumer reads its committed offset (computePullFromWhereWithException); the properties "
         "committed_offset_never_regresses, no_message_skipped, consumed_message_never_lost and "
         "acked_message_eventually_consumed apply. off: no offsets are committed and those properties hold with "
         "nothing to check."),
    Knob("max_consumer_restarts", "int", 0, (0, 2), "failure budget",
         "Consumer process restarts (kill -9 and start: the offsets not yet committed are lost, the restarted "
         "consumer reads its committed offset); needs consumer_offsets=on."),
    # -- name servers (issue 48 item 1; model/controller/namesrv.py): 0 keeps the abstraction of routing
    Knob("name_servers", "int", 0, (0, 2), "BrokerConfig.namesrvAddr / ClientConfig.namesrvAddr (its addresses)",
         "Name servers the brokers register with (RouteInfoManager#registerBroker: brokerId 0 for the master "
         "role, an older stateVersion rejected while the holder is live) and whose listing the producer and the "
         "consumer route by (a snapshot refreshed by ProducerRouteRefresh / ConsumerRouteRefresh); 0: no name "
         "server, a client reaches any broker in the master role."),
    Knob("max_namesrv_restarts", "int", 0, (0, 2), "failure budget",
         "Name server restarts (its tables start empty: nothing is persisted); needs name_servers >= 1."),
    Knob("max_namesrv_cutoffs", "int", 0, (0, 2), "failure budget",
         "Expiries of a running broker's name-server entry (its registrations did not reach that name server "
         "for 120 s: RouteInfoManager#scanNotActiveBroker); needs name_servers >= 1."),
    # -- the disk under a truncation (issue 48 item 6; model/controller/disk.py)
    Knob("stale_tail", "enum", "OFF", ("OFF", "ON"), "MappedFileQueue#truncateDirtyFiles (model scope)",
         "on: a truncation only moves the write position, so the records past it stay in the commitlog file "
         "until appends overwrite them, and a restart's recovery (CommitLog#recoverNormally / "
         "#recoverAbnormally) reads them back; a crash's budget may then also be spent on a clean shutdown "
         "(BrokerShutdown, normal recovery at the restart). off: a truncation removes the records."),
    # -- the election's ranking (issue 48 item 6)
    Knob("election_ranking", "enum", "RANKED", ("RANKED", "FREE"), "DefaultElectPolicy#elect",
         "RANKED: an election picks, among the live candidates, the broker whose last heartbeat reported the "
         "highest epoch, then the highest max offset, then the lowest brokerElectionPriority, then the lowest "
         "id (the controller's heartbeat table, DefaultBrokerHeartbeatManager#onBrokerHeartbeat); FREE: any "
         "live candidate (a superset of the real choices)."),
    Knob("broker_election_priority", "ints", str(ELECTION_PRIORITY_MAX), (0, ELECTION_PRIORITY_MAX),
         "BrokerConfig.brokerElectionPriority",
         "Each broker's brokerElectionPriority, which its heartbeats carry to the controller "
         "(ReplicasManager#sendHeartbeatToController, BrokerLiveInfo#electionPriority): with "
         "election_ranking=RANKED, among candidates reporting the same epoch and max offset the lower value is "
         "elected (DefaultElectPolicy's comparator); it never outranks a higher epoch or max offset. One value "
         "for every broker, or one per broker in controller-id order joined by '-' (1-2-2); default 2147483647 "
         "(Integer.MAX_VALUE, RocketMQ's default): every broker equal.", alias="brokerElectionPriority"),
    # -- the controller quorum (issue 48 item 2; model/controller/quorum.py)
    Knob("controllers", "int", 1, (1, 3), "ControllerConfig.controllerDLegerPeers / jRaftInitConf (its nodes)",
         "Controller nodes: 1 is one controller that never changes leader; 3 is a Raft group whose leader alone "
         "answers (EventScheduler#appendEvent: CONTROLLER_NOT_LEADER elsewhere), a write answered SUCCESS only "
         "once a majority holds it (DLedgerController#appendToDLedgerAndWait), leader changes with late commits "
         "or overwrites of an earlier leader's request, and each broker sending to the leader address it last "
         "read (ReplicasManager#updateControllerMetadata). 2 is not a deployment: refused."),
    Knob("controller_type", "enum", "DLEDGER", ("DLEDGER", "JRAFT"), "ControllerConfig.controllerType",
         "DLEDGER (DLedgerController): each node keeps its own heartbeat table, the leader's is rebuilt from "
         "its own heartbeats at a leader change, and the leader re-elects whenever its master is not alive "
         "(scanInactiveMasterAndTriggerReelect). JRAFT (JRaftController, RocketMQ 5.2.0 and later): the table "
         "is replicated, and in 5.3.3 no inactive-broker scan runs (RaftBrokerHeartBeatManager#scanNotActiveBroker), "
         "so the controller elects only in the step that finds the master gone."),
    # -- version switches (model/versions_5.py): true is 5.3.3's rule, false the rule before the release
    #    that changed it; --rocketmq-version sets them all
    Knob("sss_union_while_synchronizing", "bool", True, (), "RocketMQ 5.1.1 and later (#5663)",
         "While a SyncStateSet change is on its way to the controller, the ack wait and confirmOffset use "
         "local + proposed set and inSyncReplicasNums the larger of the two "
         "(AutoSwitchHAService#getSyncStateSet); false (5.0.0-5.1.0): the local set only."),
    Knob("confirm_offset_ignores_unacked_connection", "bool", True, (), "RocketMQ 5.1.1 and later (#6728)",
         "computeConfirmOffset counts only members whose slaveAckOffset is above 0; false (5.0.0-5.1.0): a "
         "connection that has not reported yet pulls confirmOffset down to 0."),
    Knob("confirm_offset_frozen_when_member_disconnected", "bool", True, (), "RocketMQ 5.1.1 and later (#6662)",
         "computeConfirmOffset keeps confirmOffset while a set member other than the master has no connection; "
         "false (5.0.0-5.1.0): the member is skipped and confirmOffset can pass it."),
    Knob("confirm_offset_persisted_and_bounds_recovery", "bool", True, (), "RocketMQ 5.1.1 and later (#6609)",
         "confirmOffset is kept in the checkpoint and a restarted broker dispatches only up to it "
         "(CommitLog#recoverAbnormally); false (5.0.0-5.1.0): it is lost at a restart and recovery "
         "dispatches the whole commitlog."),
    Knob("change_to_master_uses_controller_sss", "bool", True, (), "RocketMQ 5.1.1 and later (#6342)",
         "changeToMaster takes the SyncStateSet the controller sent (ReplicasManager#changeToMaster); false "
         "(5.0.0-5.1.0): the new master's local set is itself alone."),
    Knob("same_master_role_change_shortcut", "bool", True, (), "RocketMQ 5.1.1 and later (#6344)",
         "A master told of a higher epoch that keeps it master only records the epoch, its HA connections kept "
         "(changeToMasterWhenLastRoleIsMaster); false (5.0.0-5.1.0): the full changeToMaster path."),
    Knob("controller_scans_inactive_master", "bool", True, (), "RocketMQ 5.1.1 and later (#6382)",
         "The controller re-elects whenever the master it names is not alive "
         "(DLedgerController#scanInactiveMasterAndTriggerReelect); false (5.0.0-5.1.0): only in the step "
         "that finds the master inactive (ControllerManager#onBrokerInactive)."),
    Knob("confirm_offset_max_when_not_allack", "bool", True, (), "RocketMQ 5.2.0 and later (#7657)",
         "With allAckInSyncStateSet=false a master's confirmOffset is its max offset "
         "(CommitLog#getConfirmOffset); false (5.0.0-5.1.4): the smallest ack of the set, as with allAck."),
    Knob("confirm_offset_init_only_when_negative", "bool", True, (), "RocketMQ 5.2.0 and later (#7441)",
         "A master computes its stored confirmOffset at a read only while it is negative (never set) "
         "(CommitLog#getConfirmOffset); false (5.0.0-5.1.4): a stored 0 is computed again at every read."),
    Knob("namesrv_epoch_fences_master", "bool", True, (), "RocketMQ 5.1.1 and later (#6316)",
         "A broker registers with the name servers with its master epoch as DataVersion.stateVersion, so a live "
         "brokerId 0 entry with a greater epoch is kept (RouteInfoManager#registerBroker); false (5.0.0-5.1.0): "
         "stateVersion 0, the last brokerId 0 registration wins. Read only with name_servers >= 1."),
)

#: the release the controller mode's defaults are (the key that names a release: model/knobs.py VERSION_KEY)
REFERENCE_RELEASE = "5.3.3"

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
    flush_disk_type: str = "ASYNC_FLUSH"
    queues: int = 1
    consumer_offsets: str = "OFF"
    max_consumer_restarts: int = 0
    name_servers: int = 0
    max_namesrv_restarts: int = 0
    max_namesrv_cutoffs: int = 0
    stale_tail: str = "OFF"
    election_ranking: str = "RANKED"
    broker_election_priority: str = str(ELECTION_PRIORITY_MAX)
    controllers: int = 1
    controller_type: str = "DLEDGER"
    sss_union_while_synchronizing: bool = True
    confirm_offset_ignores_unacked_connection: bool = True
    confirm_offset_frozen_when_member_disconnected: bool = True
    confirm_offset_persisted_and_bounds_recovery: bool = True
    change_to_master_uses_controller_sss: bool = True
    same_master_role_change_shortcut: bool = True
    controller_scans_inactive_master: bool = True
    confirm_offset_max_when_not_allack: bool = True
    confirm_offset_init_only_when_negative: bool = True
    namesrv_epoch_fences_master: bool = True
    #: the RocketMQ release checked (model/versions_5.py): not a knob, it sets the version switches' values
    rocketmq_version: str = REFERENCE_RELEASE

    mode = MODE

    def __post_init__(self) -> None:
        settle_knob_fields(self, KNOBS, MODE, REFERENCE_RELEASE)
        if self.max_consumer_restarts > 0 and self.consumer_offsets != "ON":
            raise ConfigError(f"knob 'max_consumer_restarts': value {self.max_consumer_restarts} needs "
                              "consumer_offsets=ON (a restarted consumer reads its committed offset)")
        for key in ("max_namesrv_restarts", "max_namesrv_cutoffs"):
            if getattr(self, key) > 0 and self.name_servers == 0:
                raise ConfigError(f"knob '{key}': value {getattr(self, key)} needs a name server; "
                                  f"allowed with name_servers=0: 0")
        words = self.broker_election_priority.split("-")
        if len(words) > 1 and len(words) != self.brokers:
            raise ConfigError(f"knob 'broker_election_priority': value {self.broker_election_priority!r} gives "
                              f"{len(words)} brokers' values, but brokers={self.brokers}; give one value per "
                              "broker, or one for every broker")
        if len(set(words)) == 1:   # every broker alike: one value (2147483647-2147483647 is the default)
            object.__setattr__(self, "broker_election_priority", words[0])
        if self.controllers == 2:
            raise ConfigError("knob 'controllers': value 2 is not a controller deployment; allowed: 1, 3")
        if self.controller_type == "JRAFT" and version_key(self.rocketmq_version) < (5, 2, 0):
            raise ConfigError(f"knob 'controller_type': value JRAFT needs --rocketmq-version 5.2.0 or later "
                              f"(JRaftController is first in 5.2.0); got {self.rocketmq_version}")
        for key in ("in_sync_replicas", "min_in_sync_replicas"):
            if getattr(self, key) > self.brokers:
                raise ConfigError(f"knob '{key}': value {getattr(self, key)} exceeds brokers={self.brokers}; "
                                  f"allowed: 1..{self.brokers}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: "ControllerConfig | None" = None) -> "ControllerConfig":
        """A configuration from ``base`` (default: the 5.3.3 defaults) with ``values`` applied. A broker added
        to ``base``'s per-broker ``broker_election_priority`` (``faults --grow brokers``, ``--set brokers=3``)
        without a value given for it has RocketMQ's default, as a broker whose file sets none."""
        fields = knob_fields(values, base, KNOBS, MODE, f" in mode {MODE}")
        words = str(fields.get("broker_election_priority", "")).split("-")
        if ("broker_election_priority" not in knob_values(values, KNOBS) and 1 < len(words) < fields["brokers"]):
            words += [str(ELECTION_PRIORITY_MAX)] * (fields["brokers"] - len(words))
            fields["broker_election_priority"] = "-".join(words)
        return cls(**fields)

    def with_overrides(self, assignments: "list[str] | tuple[str, ...]") -> "ControllerConfig":
        """Apply ``key=value`` strings (the ``--set`` option) on top of this config."""
        return ControllerConfig.from_mapping(knob_assignments(assignments, "brokers=3"), base=self)

    def as_dict(self) -> dict[str, Any]:
        return {"mode": MODE, **dataclasses.asdict(self)}

    def election_priorities(self) -> tuple[int, ...]:
        """Each broker's ``brokerElectionPriority`` in controller-id order (``broker_election_priority``: one
        value for every broker, or one per broker)."""
        words = [int(w) for w in self.broker_election_priority.split("-")]
        return tuple(words) if len(words) > 1 else tuple(words * self.brokers)

    def view_kinds(self) -> dict[str, str]:
        """Every readable field of this configuration's states, with the kind of its values
        (:mod:`model.controller.view`: ``ids``, ``optional`` or ``plain``)."""
        from .view import view_kinds
        return view_kinds(self)

    def short(self) -> str:
        """The knobs that differ from the defaults of the release checked (the controller defaults with that
        release's switches), after the release: ``controller mode, RocketMQ 5.3.3 defaults``,
        ``controller mode, RocketMQ 5.1.0, messages=1``."""
        default = ControllerConfig.from_mapping({VERSION_KEY: self.rocketmq_version})
        diffs = [f"{k}={_text(v)}" for k, v in dataclasses.asdict(self).items() if getattr(default, k) != v]
        release = f"RocketMQ {self.rocketmq_version}"
        return "controller mode, " + (f"{release}, {', '.join(diffs)}" if diffs else f"{release} defaults")


PRESET_DESCRIPTIONS: dict[str, str] = {
    "controller": "controller mode with the 5.3.3 code defaults (allAckInSyncStateSet=false, "
                  "minInSyncReplicas=1): 2 brokers, 2 messages, one broker crash",
    "controller-allack": "controller with allAckInSyncStateSet=true, as RocketMQ's sample controller "
                         "configurations set it",
    "controller-unclean": "controller with enableElectUncleanMaster=true",
    # one per mechanism of the cluster around the group, each at bounds that explore in seconds
    "controller-namesrv": "controller with one name server (brokers register, clients route by what it "
                          "lists), 1 message",
    "controller-offsets": "controller with consumer offsets (commits to the master, SlaveSynchronize copies, "
                          "consumerOffset.json) and one consumer restart, 1 message",
    "controller-queues": "controller with two queues (queue offsets apart from commitlog positions)",
    "controller-sync-flush": "controller-allack with flushDiskType=SYNC_FLUSH and one power loss instead of "
                             "the crash, 1 message",
    "controller-stale-tail": "controller with the records past a truncation left on disk (read back at the "
                             "restart), two broker crashes, 1 message",
    "controller-quorum": "controller with three DLedger controllers (a Raft group: a leader answers once a "
                         "majority holds the request), 1 message",
    "controller-cluster": "the deployment RocketMQ's samples describe: three DLedger controllers, one name server, "
                          "allAckInSyncStateSet=true, three brokers; 1 message and no failure (one controller node "
                          "crash took it past 57 million states: docs/controller.md)",
}

PRESETS: dict[str, dict[str, Any]] = {
    "controller": {},
    "controller-allack": {"all_ack_in_sync_state_set": True},
    "controller-unclean": {"enable_elect_unclean_master": True},
    "controller-namesrv": {"name_servers": 1, "messages": 1},
    "controller-offsets": {"consumer_offsets": "ON", "max_consumer_restarts": 1, "messages": 1},
    "controller-queues": {"queues": 2},
    "controller-sync-flush": {"all_ack_in_sync_state_set": True, "flush_disk_type": "SYNC_FLUSH",
                              "max_broker_crashes": 0, "max_broker_power_losses": 1, "messages": 1},
    "controller-stale-tail": {"stale_tail": "ON", "max_broker_crashes": 2, "messages": 1},
    "controller-quorum": {"controllers": 3, "messages": 1},
    "controller-cluster": {"all_ack_in_sync_state_set": True, "controllers": 3, "name_servers": 1, "brokers": 3,
                           "messages": 1, "max_broker_crashes": 0},
}


def preset(name: str) -> ControllerConfig:
    values = PRESETS.get(name)
    if values is None:
        raise ConfigError(f"unknown preset '{name}' in mode {MODE}; known presets: {', '.join(PRESETS)}")
    return ControllerConfig.from_mapping(values)
