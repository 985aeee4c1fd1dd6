"""The 4.x release line of mode 4.4: releases 4.4.0 to 4.9.8 and the version switches between them.

Read from apache/rocketmq's history (docs/versions.md: how to re-derive it): for every commit, the first
release tag that contains it is ``git tag --contains COMMIT | grep '^rocketmq-all-' | sort -V | head -1``,
and each rule was read from the commit's diff and checked against the net ``git diff`` of the two tags.
The reference release is 4.4.0: every switch's knob defaults to 4.4.0's rule, so the defaults check 4.4.0.
"""
from __future__ import annotations

from .versions import NotModelled, Release, ReleaseLine, Switch

#: 4.5.0's tag is not in the history read: taken to behave as 4.4.0 and 4.5.1 (see its note)
NO_TAG_450 = ("no rocketmq-all-4.5.0 tag in the history read; it behaves as 4.4.0 and 4.5.1 here: every "
              "switch's first release is 4.7.0 or later and 4.5.1 has none of them, and 4.5.0 came before 4.5.1")

RELEASES = (
    Release("4.4.0", "2019-01-17", "the reference release of mode 4.4: every knob's default"),
    Release("4.5.0", "", NO_TAG_450),
    Release("4.5.1", "2019-05-21"),
    Release("4.5.2", "2019-08-01"),
    Release("4.6.0", "2019-11-19"),
    Release("4.6.1", "2020-01-20"),
    Release("4.7.0", "2020-03-05"),
    Release("4.7.1", "2020-06-24"),
    Release("4.8.0", "2020-12-08"),
    Release("4.9.0", "2021-06-10"),
    Release("4.9.1", "2021-08-16"),
    Release("4.9.2", "2021-10-22"),
    Release("4.9.3", "2022-02-22"),
    Release("4.9.4", "2022-06-20"),
    Release("4.9.5", "2023-03-27"),
    Release("4.9.6", "2023-05-17"),
    Release("4.9.7", "2023-06-12"),
    Release("4.9.8", "2024-02-22", "the last 4.x release"),
)

SWITCHES = (
    Switch(
        name="flush_and_ha_wait_in_parallel",
        commit="f28be82170000f1bcb3abc977217f4689eb936af", first="4.7.0",
        before="CommitLog#putMessage waits for the SYNC_FLUSH flush (handleDiskFlush) and only then evaluates "
               "HAService#isSlaveOK and waits for the slave (handleHA).",
        after="asyncPutMessage, which SendMessageProcessor now calls, submits the flush and the replica request "
              "together (thenCombine): isSlaveOK is evaluated right after the append, and the replica status "
              "still overrides the flush status.",
        rocketmq="CommitLog#asyncPutMessage, #submitFlushRequest, #submitReplicaRequest",
        why_not="the model's SendMessage is one step: the append, the SYNC_FLUSH wait's outcome and isSlaveOK "
                "are taken on one state, so both orders give the same successors; 4.4.0's difference, an HA "
                "connection that opens or drops during the flush wait (up to syncFlushTimeout, 5 s) before "
                "isSlaveOK, needs the send split into two steps, which would move every count of the 4.4.0 "
                "defaults under SYNC_FLUSH. Every release is checked with the one-step send.",
        not_at_bounds="not modelled (see why_not): at the model's granularity the two orders are one."),
    Switch(
        name="subscribe_try_next_slave_id", knob="subscribe_try_next_slave_id", issue="#2165",
        commit="d5cb67ff802c5d92ba8b42f0a0ebe94a05eb9965", first="4.8.0",
        before="findBrokerAddressInSubscribe takes the suggested brokerId if the route lists it, else the "
               "route's first entry (the master when listed).",
        after="a suggested slave id that the route does not list is followed by brokerId + 1 when listed, "
              "before the route's first entry.",
        rocketmq="MQClientInstance#findBrokerAddressInSubscribe",
        kernel="model/routes.py subscribe_broker -> find_listed(next_slave): the broker a Pull goes to",
        test="tests/model/test_version_switches.py::test_subscribe_try_next_slave_id_pulls_from_the_next_slave",
        pinned="release-subscribe-try-next-slave-id"),
    Switch(
        name="ha_close_on_ack_beyond_master_max", knob="ha_close_on_ack_beyond_master_max", issue="#3015",
        commit="84cde5f5beddfc16621f6b5dba31883796d2c216", first="4.9.3",
        before="the master takes every slave report unchecked: notifyTransferSome raises push2SlaveMaxOffset "
               "even beyond the master's own commitlog max.",
        after="a report beyond the master's commitlog max that is not the connection's first closes the "
              "connection before notifyTransferSome; the first report is still taken unchecked.",
        rocketmq="HAConnection.ReadSocketService#processReadEvent",
        kernel="model/ha.py slave_report_offset: the SlaveReportOffset action on a streaming link",
        test="tests/model/test_version_switches.py::test_ha_close_on_ack_beyond_master_max_closes_on_a_later_report",
        pinned="release-ha-close-on-ack-beyond-master-max"),
    Switch(
        name="overflow_to_max", knob="overflow_to_max", issue="#4215",
        commit="844dabfb2f0d3c4e36005b5b632ce96e64465800", first="4.9.4",
        before="getMessage answers OFFSET_OVERFLOW_BADLY with nextBeginOffset = 0 when the queue's min offset "
               "is 0 (the consumer reads the queue again), else the max offset.",
        after="nextBeginOffset is always the queue's max offset (the consumer moves to the queue's end).",
        rocketmq="DefaultMessageStore#getMessage",
        kernel="model/store.py get_message, its GET_OFFSET_OVERFLOW_BADLY branch: the Pull action (the "
               "alternative behaviour V4 of the mechanisms page is this rule)",
        test="tests/model/test_switches.py::test_v4_overflow_to_max",
        pinned="release-overflow-to-max"),
)

NOT_MODELLED = (
    NotModelled("DefaultMessageStore#start: reput starts at the largest physical offset the consume queues "
                "reference, waits for the dispatch, then recoverTopicQueueTable", "4.5.1",
                "after 4.4's recovery the consume queues end where the commitlog does (a normal shutdown waits "
                "for the dispatch, abnormal recovery dispatches again): no difference the model can see",
                ("e1494951e933372e6d524feeb21f38b892d2ed55", "3f0b0b231eb3cce7e9f33e8bade21c44740f5301",
                 "0c69acafa9d64c04b5c64c17148c2d604db5592b")),
    NotModelled("CommitLog#recoverNormally: with no commitlog file, positions reset and the consume queues "
                "destroyed", "4.5.1", "needs every commitlog file deleted: outside the model",
                ("a50b733df8bc4e3d4df94eff7391c5c5de60c95d",)),
    NotModelled("ConsumeQueue keeps the end offset (offset + size) of the last entry", "4.5.1",
                "a byte-level refactor for DLedger: the same at message granularity"),
    NotModelled("RouteInfoManager#registerBroker removes another brokerId registered at the same address",
                "4.5.1", "needs a broker changing its brokerId at one address: no such action in mode 4.4",
                ("41373641ff2b3d3b4794bfcd9409effbad3c1b53",)),
    NotModelled("SlaveSynchronize every 3 s / 10 s instead of 10 s / 60 s; a slave skips syncing from its own "
                "address", "4.5.1", "timers are abstracted; the self-address case needs a role swap",
                ("84bd6409b95f80b72f1a20875ad53b3ecb8e5bf0",)),
    NotModelled("HAClient refreshes lastWriteTimestamp after each report sent, not each read", "4.5.2",
                "changes only when heartbeat reports and housekeeping closes happen: timers are abstracted",
                ("b39031a7d1a3dd6a1cce011791edaec6ee541226",)),
    NotModelled("GroupTransferService#doWaitTransfer loops until the syncFlushTimeout deadline instead of "
                "5 x 1 s", "4.6.0", "the timeout's length only", ("85a6cc1c8ee97fa6dade53971bc3ab5594707c5a",)),
    NotModelled("a slave records StoreCheckpoint.physicMsgTimestamp at dispatch", "4.6.0",
                "chooses the file abnormal recovery starts from; dispatching again is idempotent and files "
                "are abstracted there", ("44153fd9c9021adb4567bda87e818838e45fa5dc",)),
    NotModelled("RemoteBrokerOffsetStore#persistAll with no message queue drops every memory offset", "4.6.0",
                "only when a consumer owns no queue", ("4a4a464b25c91e215f627d87d90afd97970401e4",)),
    NotModelled("computePullFromWhereWithException: an exception from the offset lookup skips the queue this "
                "round", "4.9.0", "for a concurrent consumer the same as -1, not taken this round",
                ("6ab6afd006fcef784b3e3202b497080fcf4d023a",)),
    NotModelled("an orderly consumer retries such a first pull later", "4.9.1", "orderly consumers are not modelled",
                ("d7c2d25c2a7344506ee001f7dfaf72f62c5f6c47",)),
    NotModelled("WaitNotifyObject wake-up bookkeeping", "4.7.1", "timing only"),
    NotModelled("the HA wait uses slaveTimeout (3 s) instead of syncFlushTimeout (5 s), its deadline taken at "
                "the request", "4.9.3", "the timeout's length only", ("7428d6520b9829051370badd00a7c4b1e8bf1e4a",)),
    NotModelled("offset fetch and commit find the master with findBrokerAddressInSubscribe(MASTER_ID, true), "
                "refresh the route, then any broker", "4.9.3",
                "the same broker as findBrokerAddressInAdmin (the master if listed, else the lowest slave); the "
                "added route refresh gives no new outcome where ClientRouteRefresh is already a step",
                ("e2a4b3778519ef761dac9ce4963eb20905fb35f4",)),
    NotModelled("a DLedger role change forces a registration", "4.9.3", "DLedger mode only",
                ("2385f0446832d4e799c16d280a88cafc548fab39",)),
    NotModelled("HAClient#run continues after a failed report", "4.9.4", "a scheduling detail",
                ("a597c8e341b3c6070a3bd6bf0f73a5945f0cd56a",)),
    NotModelled("LMQ, multiple dispatch, IPv6, multiple store paths, disk space and metrics", "4.9.x",
                "outside the model (byte sizes, disks, metrics)"),
)

LINE = ReleaseLine(mode="4.4", reference="4.4.0", releases=RELEASES, switches=SWITCHES,
                   not_modelled=NOT_MODELLED)
