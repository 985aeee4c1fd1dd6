"""The 5.x release line of the controller mode: releases 5.0.0 to 5.3.3 and the version switches between them.

Read from apache/rocketmq's history as the 4.x line was (docs/versions.md; model/versions_44.py): each rule
read at both tags (``git show rocketmq-all-X.Y.Z:PATH``) and in the commit. The reference release is 5.3.3:
every switch's knob defaults to 5.3.3's rule (true), so the defaults check 5.3.3, and ``--rocketmq-version``
accepts every release of the line. Almost every controller-mode correctness change landed in 5.1.1: 5.0.0 and
5.1.0 differ from 5.3.3 in all its rows. The switches the model cannot express (the name server, per-queue
offsets, the 5.0.0 registration protocol, a configured brokerRole) are declared with the reason: every
release is checked with 5.3.3's rule there, which docs/versions.md says beside the table.

``pinned`` names a configuration of tests/tooling/pinned.toml (mode controller) with the
switch at its value before ``first``; tests/controller/test_controller_versions.py explores it both ways.
"""
from __future__ import annotations

from .versions import NotModelled, Release, ReleaseLine, Switch

RELEASES = (
    Release("5.0.0", "2022-09-19"),
    Release("5.1.0", "2023-02-16"),
    Release("5.1.1", "2023-05-15"),
    Release("5.1.2", "2023-06-12"),
    Release("5.1.3", "2023-06-24"),
    Release("5.1.4", "2023-09-21"),
    Release("5.2.0", "2024-02-11"),
    Release("5.3.0", "2024-07-08"),
    Release("5.3.1", "2024-09-25"),
    Release("5.3.2", "2025-03-08"),
    Release("5.3.3", "2025-05-07", "the reference release of the controller mode: every knob's default"),
)

#: the test module of the modelled switches
TESTS = "tests/controller/test_controller_versions.py"
#: where the kernel branches are
ACTIONS, STATE = "model/controller/actions.py", "model/controller/state.py"

SWITCHES = (
    Switch(
        name="sss_union_while_synchronizing", issue="#5663", first="5.1.1",
        commit="2cc899fc35ae867477c5e992bfaa435433512745",
        before="one SyncStateSet: an expand or shrink goes to the controller and the local set changes only when "
               "the reply is applied; the ack wait, confirmOffset and inSyncReplicasNums use that set.",
        after="a local and a remote set while synchronizing: the ack wait and confirmOffset use their union, "
              "inSyncReplicasNums the larger of the two.",
        rocketmq="AutoSwitchHAService#maybeExpandInSyncStateSet, #maybeShrinkSyncStateSet, #getSyncStateSet",
        knob="sss_union_while_synchronizing",
        kernel=(f"{STATE} union_set and in_sync_replicas: the ack wait (SendMessage, AckWaitDone), "
                "computeConfirmOffset and the minInSyncReplicas check"),
        test=f"{TESTS}::test_sss_union_while_synchronizing",
        pinned="release-sss-union-while-synchronizing"),
    Switch(
        name="confirm_offset_ignores_unacked_connection", issue="#6728", first="5.1.1",
        commit="5dc2e20efc9866f0f9d4f242d41ad4b4cfc65644",
        before="computeConfirmOffset takes the minimum over every connected set member's ack, a fresh "
               "connection's -1 or 0 included.",
        after="only members whose slaveAckOffset is above 0 count.",
        rocketmq="AutoSwitchHAService#computeConfirmOffset", knob="confirm_offset_ignores_unacked_connection",
        kernel=(f"{STATE} compute_confirm_offset: every action that recomputes confirmOffset (SlaveReportOffset, "
                "the role and set changes)"),
        test=f"{TESTS}::test_confirm_offset_ignores_unacked_connection",
        pinned="release-confirm-offset-ignores-unacked-connection"),
    Switch(
        name="confirm_offset_frozen_when_member_disconnected", issue="#6662", first="5.1.1",
        commit="7903c70412fc4d20baafd7b75ca93788551fb88f",
        before="a set member without a connection is skipped, so confirmOffset can run ahead of it.",
        after="while a member other than the master has no connection, confirmOffset keeps its value.",
        rocketmq="AutoSwitchHAService#computeConfirmOffset", knob="confirm_offset_frozen_when_member_disconnected",
        kernel=f"{STATE} compute_confirm_offset: a set member without a connection",
        test=f"{TESTS}::test_confirm_offset_frozen_when_member_disconnected",
        pinned="release-confirm-offset-frozen-when-member-disconnected"),
    Switch(
        name="confirm_offset_persisted_and_bounds_recovery", issue="#6609", first="5.1.1",
        commit="b410557e873ee4bdfa56561eb719a26007c1a3bb", also=("41e9b8cf06745e09b785e90b97aed3912d1a0be8",),
        before="confirmOffset lives in memory only; abnormal recovery dispatches every valid message.",
        after="confirmOffset is written to the checkpoint and restored at load; abnormal recovery dispatches "
              "only up to it and clamps it into the log's range.",
        rocketmq="CommitLog#recoverAbnormally, #setConfirmOffset, StoreCheckpoint, DefaultMessageStore#load",
        knob="confirm_offset_persisted_and_bounds_recovery",
        kernel=(f"{ACTIONS} broker_restart: the BrokerRestart action (confirmOffset and the consume queue after "
                "recovery)"),
        test=f"{TESTS}::test_confirm_offset_persisted_and_bounds_recovery",
        pinned="release-confirm-offset-persisted-and-bounds-recovery"),
    Switch(
        name="fenced_until_role_confirmed", issue="#6508", first="5.1.1",
        commit="526a107557a25b6e6101c247a1d9dbe06e3ff074", also=("e73a9aa8a71a05b70970939dd2036ee89355d75f",),
        before="a starting broker accepts writes in its configured brokerRole until the controller answers.",
        after="the store is fenced (not writeable) from before load until the role is confirmed.",
        rocketmq="ReplicasManager#setFenced, RunningFlags#isWriteable",
        why_not="the model has no configured brokerRole: a restarted broker waits for the controller's role in "
                "every release (BrokerRestart: fenced). Up to 5.1.0 it starts in its broker.conf role; as "
                "RocketMQ's controller quick-start files set it (SLAVE) that refuses puts and pulls and opens no HA "
                "connection until the controller names a master, as the fence does; the difference needs "
                "brokerRole=ASYNC_MASTER or SYNC_MASTER in the file and a producer route naming the restarted "
                "broker before its registration, which the model does not have."),
    Switch(
        name="change_to_master_uses_controller_sss", issue="#6342", first="5.1.1",
        commit="63a014b810387d11c9eaddd66fdbd80d158076ab",
        before="changeToMaster sets the local SyncStateSet to the broker alone.",
        after="changeToMaster takes the set the controller sent.",
        rocketmq="ReplicasManager#changeToMaster", knob="change_to_master_uses_controller_sss",
        kernel=f"{ACTIONS} change_to_master: the set it applies (RegisterBroker, BrokerElect, SyncBrokerMetadata)",
        test=f"{TESTS}::test_change_to_master_uses_controller_sss",
        pinned="release-change-to-master-uses-controller-sss"),
    Switch(
        name="same_master_role_change_shortcut", issue="#6344", first="5.1.1",
        commit="4e0a723d225c0fb62bc764ead54f1267f9da2bfc",
        before="every role change with a higher epoch runs the full changeToMaster / changeToSlave path "
               "(truncation, recoverTopicQueueTable, HA reconnect).",
        after="a change that keeps the same master only records the epoch (master) or the state version (slave).",
        rocketmq="ReplicasManager#changeToMaster, #changeToSlave", knob="same_master_role_change_shortcut",
        kernel=(f"{ACTIONS} change_to_master: the master half (the model's changeToSlave has no same-master "
                "shortcut at any release: the slave's masterBrokerId is no state)"),
        test=f"{TESTS}::test_same_master_role_change_shortcut",
        pinned="release-same-master-role-change-shortcut"),
    Switch(
        name="namesrv_epoch_fences_master", issue="#6316", first="5.1.1",
        commit="20dc5c96eacaa831b81e9cb038a6e5e33f81ec19",
        before="brokers register with state version 0, so the latest brokerId 0 registration wins.",
        after="brokers register with their master epoch; a live brokerId 0 entry with a larger epoch is kept.",
        rocketmq="RouteInfoManager#registerBroker, ReplicasManager#changeToMaster",
        knob="namesrv_epoch_fences_master",
        kernel=("model/controller/namesrv.py register: the stateVersion NsRegister carries (read only with "
                "name_servers >= 1)"),
        test=f"{TESTS}::test_namesrv_epoch_fences_master",
        pinned="release-namesrv-epoch-fences-master"),
    Switch(
        name="controller_scans_inactive_master", issue="#6382", first="5.1.1",
        commit="1e2a301266a41e7b4088f6f956dd850df407a600",
        before="an election only on a broker-inactive event for the master or a broker's elect request.",
        after="also a scan every 5 s re-elects for groups whose master is set but not alive.",
        rocketmq="DLedgerController#scanInactiveMasterAndTriggerReelect", knob="controller_scans_inactive_master",
        kernel=(f"{ACTIONS} controller_election_due and controller_declare_dead: ControllerElect, "
                "ControllerElectNone, ControllerDeclareDead (the removal and its election one step before 5.1.1: "
                "the steps between them are left out)"),
        test=f"{TESTS}::test_controller_scans_inactive_master",
        pinned="release-controller-scans-inactive-master"),
    Switch(
        name="register_elect_protocol_v2", issue="#5045", first="5.1.1",
        commit="a1de567e11953ebc37edbf160575ec5aad253fb8",
        before="registration itself elects (an unknown group's first registrant, or a set member when there is "
               "no master) and names the stored master without a liveness check.",
        after="registration allocates ids and names the master only if alive; the first election is the first "
              "broker's elect request.",
        rocketmq="ReplicasInfoManager#registerBroker, #electMaster",
        why_not="a protocol of its own, not a branch of the model's: up to 5.1.0 ReplicasInfoManager#registerBroker "
                "elects (an unknown group's first registrant; with the master not alive, an alive set member, "
                "possibly another broker than the registrant, whose address the reply then names; a failed "
                "attempt applies ElectMasterEvent(false)), ids are allocated by address, and a broker whose poll "
                "finds no master registers again instead of calling brokerElect. The model's RegisterBroker and "
                "BrokerElect are 5.3.3's (ids fixed 1..n, §9.2): every release is checked with them."),
    Switch(
        name="confirm_offset_max_when_not_allack", first="5.2.0",
        commit="80c0330f752dcf3219cb8631f3004c1725bedf1e", issue="#7657",
        before="a master's confirmOffset is its max offset only with a one-member local set, else the minimum of "
               "the acks, allAckInSyncStateSet=false included.",
        after="with allAckInSyncStateSet=false (or a one-member set) confirmOffset is the max offset.",
        rocketmq="CommitLog#getConfirmOffset", knob="confirm_offset_max_when_not_allack",
        kernel=(f"{STATE} confirm_offset: what ReputMessage dispatches, the expansion test of SlaveReportOffset, "
                "the header of PushData and PushHeartbeat"),
        test=f"{TESTS}::test_confirm_offset_max_when_not_allack",
        pinned="release-confirm-offset-max-when-not-allack"),
    Switch(
        name="confirm_offset_init_only_when_negative", issue="#7441", first="5.2.0",
        commit="7e4879a3bc120d6289aabc8354a2811f349ac8a6",
        before="a master whose local set has more than one member computes confirmOffset again, and stores it, at "
               "every read while the stored value is 0 or below (if (confirmOffset <= 0)).",
        after="only while the stored value is negative (never set): a stored 0 stays until the next recompute.",
        rocketmq="CommitLog#getConfirmOffset (5.0.0-5.1.0: AutoSwitchHAService#getConfirmOffset)",
        knob="confirm_offset_init_only_when_negative",
        kernel=(f"{STATE} confirm_offset: ReputMessage, the expansion test of SlaveReportOffset, PushData, "
                "PushHeartbeat"),
        test=f"{TESTS}::test_confirm_offset_init_only_when_negative",
        pinned="release-confirm-offset-init-only-when-negative"),
    Switch(
        name="compensate_queue_offsets_for_ha", issue="#7689", first="5.2.0",
        commit="2c898c9b31bf195174cf1e3a626a7c61f7576381",
        before="recoverTopicQueueTable takes each queue's next offset from the consume queue, which ends at "
               "confirmOffset.",
        after="it also scans the commitlog from confirmOffset to the end and sets the next offsets past those "
              "messages.",
        rocketmq="ConsumeQueueStore#recoverOffsetTable",
        why_not="the model has no per-queue offset table: a message's queue offset is its commitlog position (one "
                "queue, one message per position), so the next queue offset cannot lag the commitlog; modelling "
                "it needs a queue offset per message and a recoverTopicQueueTable step."),
)

NOT_MODELLED = (
    NotModelled("electionPriority tie-break in the election policy", "5.1.0",
                "every priority is equal by default: no change unless configured",
                ("93e82c82052691cf73610cb72fc91cc1f648417c",)),
    NotModelled("role-change notification sent asynchronously", "5.1.1",
                "delivery is already nondeterministic in the model", ("52c4c0cdf61f4b11d06fa70002499c3d79aedc3e",)),
    NotModelled("truncateInvalidMsg scan and consume-queue build edge cases", "5.1.1",
                "byte-level torn-tail handling", ("709537595c790b855e30f5bb499eaa458cb46970",
                                                  "e3b8178871158e1a981915ac40c11e3a5e451922")),
    NotModelled("GroupTransferService polls every 1 ms instead of 1 s", "5.1.2", "latency only",
                ("acd8b099df2b564ee53b64d1698c15d76de077dd",)),
    NotModelled("concurrent modification of the SyncStateSet; the synchronizing flag set only on a change", "5.1.4",
                "a race fix; the flag rule is 5.3.3's already", ("017ad110475e8024585327b44f47e5e97aabc63b",)),
    NotModelled("non-controller confirmOffset under SYNC_FLUSH; readUnCommitted added (default false)", "5.3.0",
                "the controller path is unchanged by default", ("d60198f621baac54bffb981d7a797a04dfa0bb5a",)),
    NotModelled("heartbeat manager's active-broker count starts at 1", "5.3.1", "a metric",
                ("cc484d56805b8387f0660809ae7e3117a8fd1c46",)),
    NotModelled("RocksDB consume queue, tiered store, pop, timer, transactions, ACL, metrics", "5.x",
                "outside the model"),
)

LINE = ReleaseLine(mode="controller", reference="5.3.3", releases=RELEASES, switches=SWITCHES,
                   not_modelled=NOT_MODELLED)
