"""Configuration of the RocketMQ 4.4 model: knobs, failure budgets, switches and presets.

Every public name here is part of rmqcheck's interface (see ``shared/spec/model-scope.md``): the knob
keys are what users write in a TOML file or after ``--set``, and the preset names follow ``--preset``.

A :class:`Config` is validated when it is built. Bad input raises one :class:`ConfigError` whose message
names the key, the value given and the allowed values, so the command line can print it as one line.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .knobs import (VERSION_KEY, ConfigError, Knob, _text, knob_assignments, knob_fields,  # noqa: F401
                    knob_values, load_knobs_toml, read_config_toml, set_assignments, settle_knob_fields)

__all__ = [
    "Config",
    "ConfigError",
    "Knob",
    "KNOBS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "preset",
    "load_toml",
]


_BUDGET = (0, 3)

#: ``slave_read_enable_in_slaves`` per slave, in brokerId order, for two and three slaves that disagree
PER_SLAVE_READ = tuple("-".join(words) for n in (2, 3) for words in itertools.product(("TRUE", "FALSE"), repeat=n)
                       if len(set(words)) > 1)

#: the release the 4.4 mode's defaults are (the key that names a release: model/knobs.py VERSION_KEY)
REFERENCE_RELEASE = "4.4.0"


KNOBS: tuple[Knob, ...] = (
    Knob("broker_role", "enum", "ASYNC_MASTER", ("ASYNC_MASTER", "SYNC_MASTER"), "brokerRole",
         "SYNC_MASTER makes a send wait for a slave to report the message (CommitLog#handleHA).", slot="K_SYNC_MASTER",
         alias="brokerRole"),
    Knob("flush_disk_type", "enum", "ASYNC_FLUSH", ("ASYNC_FLUSH", "SYNC_FLUSH"), "flushDiskType",
         "SYNC_FLUSH makes a send wait for the commitlog flush (CommitLog#handleDiskFlush).", slot="K_SYNC_FLUSH",
         alias="flushDiskType"),
    Knob("slave_read_enable", "bool", False, (), "slaveReadEnable",
         "The master's: lets it suggest pulling from a slave (PullMessageProcessor#processRequest); also every "
         "slave's unless slave_read_enable_in_slaves says otherwise.", slot="K_SLAVE_READ",
         alias="slaveReadEnable"),
    Knob("slave_read_enable_in_slaves", "enum", "AS_MASTER", ("AS_MASTER", "FALSE", "TRUE", *PER_SLAVE_READ),
         "slaveReadEnable in the slaves' broker.conf",
         "The slaves' own value where it differs from the master's (AS_MASTER: slave_read_enable; TRUE or "
         "FALSE: every slave's; TRUE-FALSE...: each slave's in brokerId order, as many words as slaves): a "
         "slave serves a pull either way, and with false suggests the master next "
         "(PullMessageProcessor#processRequest).", slot="K_SLAVE_READ_IN_SLAVES"),
    Knob("offset_check_in_slave", "bool", False, (), "offsetCheckInSlave",
         "A slave corrects illegal pull offsets as a master does (V6; DefaultMessageStore#getMessage).",
         alias="offsetCheckInSlave"),
    Knob("group_broker_id", "int", 0, (0, 3), "SubscriptionGroupConfig.brokerId",
         "The broker the group reads from when slave reads are enabled and the pull is not slow."),
    Knob("which_broker_when_consume_slowly", "int", 1, (0, 3),
         "SubscriptionGroupConfig.whichBrokerWhenConsumeSlowly",
         "The broker suggested when a pull is slow (the 40 % in-memory rule fired).", slot="K_WHICH_BROKER",
         alias="whichBrokerWhenConsumeSlowly"),
    Knob("consume_slowly_backlog", "int", 1, (0, 8), "accessMessageInMemoryMaxRatio (40 %)",
         "A pull is slow when more than this many messages lie in the log after the last entry it scanned "
         "(the last one returned, or the first one left out when the batch was cut).", slot="K_BACKLOG"),
    Knob("slaves", "int", 1, (0, 3), "brokerId 1..n", "Number of slaves in the broker group."),
    Knob("consumers", "int", 1, (1, 3), "consumer group members",
         "Push consumers of the one consumer group (CLUSTERING mode)."),
    Knob("messages", "int", 2, (1, 8), "", "Messages the producer sends, in order, with synchronous sends."),
    Knob("queues", "int", 1, (1, 2), "queueId", "Queues of the one topic; message i goes to queue (i-1) % queues."),
    Knob("max_master_crashes", "int", 1, _BUDGET, "kill -9 of the master",
         "Master process crashes (page cache survives)."),
    Knob("max_master_power_losses", "int", 1, _BUDGET, "power loss of the master",
         "Master machine power losses (only flushed data survives).", slot="K_MAX_MASTER_POWER"),
    Knob("max_slave_crashes", "int", 0, _BUDGET, "kill -9 of a slave", "Slave process crashes, all slaves together."),
    Knob("max_slave_power_losses", "int", 0, _BUDGET, "power loss of a slave",
         "Slave machine power losses, all slaves together.", slot="K_MAX_SLAVE_POWER"),
    Knob("max_consumer_restarts", "int", 0, _BUDGET, "consumer kill -9 and restart",
         "Consumer process crashes (each followed by a possible restart), all consumers together."),
    Knob("max_ha_disconnects", "int", 0, _BUDGET, "HA connection drop",
         "HA connection drops (network or housekeeping timeouts), all slaves together."),
    Knob("pull_batch_in_memory", "int", 0, (0, 8),
         "maxTransferCountOnMessageInMemory / pullBatchSize / maxTransferBytesOnMessageInMemory",
         "A FOUND pull returns a non-empty prefix of at most this many messages (0 = any prefix length: "
         "message sizes are abstract, so the byte limits can end a batch anywhere).", slot="K_PULL_BATCH_MEMORY"),
    Knob("pull_batch_in_disk", "int", 0, (0, 8), "maxTransferCountOnMessageInDisk / maxTransferBytesOnMessageInDisk",
         "The same limit for a message the 40 % rule says is in disk (0 = any prefix length).",
         slot="K_PULL_BATCH_DISK"),
    Knob("commitlog_file_messages", "int", 0, (0, 8), "mapedFileSizeCommitLog",
         "Messages per commitlog file (0 = one unbounded file): file boundaries bound an HA push, and an "
         "empty slave's first push starts at the master's last file.", slot="K_FILE_MESSAGES"),
    Knob("max_file_deletions", "int", 0, (0, 3), "CleanCommitLogService / fileReservedTime",
         "DeleteExpiredFiles actions, all brokers together: each deletes a broker's oldest non-last "
         "commitlog file (a bound, not a failure kind)."),
    Knob("ha_fallbehind_max", "int", 0, (0, 8), "haSlaveFallbehindMax",
         "HAService#isSlaveOK needs the slaves' acknowledged offset within this many messages of the new "
         "message's end (0 = no threshold: 256 MiB is beyond the model's sizes).", slot="K_HA_FALLBEHIND"),
    Knob("monotonic_commit", "bool", False, (), "V1",
         "ConsumerOffsetManager#commitOffset ignores a commit lower than the stored offset."),
    Knob("sync_offsets_max", "bool", False, (), "V2",
         "SlaveSynchronize#syncConsumerOffset keeps the maximum of the slave's and the master's offsets."),
    Knob("reverse_offset_sync", "bool", False, (), "V3",
         "A restarting master adopts a slave's consumer-offset table before it serves clients."),
    Knob("overflow_to_max", "bool", False, (), "V4; RocketMQ 4.9.4 and later",
         "getMessage answers OFFSET_OVERFLOW_BADLY with nextBeginOffset = max whatever the min offset "
         "(the rule of 4.9.4, #4215: a version switch too)."),
    Knob("validate_slave_ack", "bool", False, (), "V5",
         "The master closes an HA connection whose report exceeds its commitlog max, first report included."),
    Knob("ha_close_on_ack_beyond_master_max", "bool", False, (), "RocketMQ 4.9.3 and later",
         "A version switch (4.9.3, #3015): the master closes an HA connection on a report beyond its commitlog "
         "max, except the connection's first report, without notifyTransferSome "
         "(HAConnection.ReadSocketService#processReadEvent)."),
    Knob("subscribe_try_next_slave_id", "bool", False, (), "RocketMQ 4.8.0 and later",
         "A version switch (4.8.0, #2165): a pull's suggested slave id missing from the route falls to the "
         "next id (brokerId + 1) before the first entry (MQClientInstance#findBrokerAddressInSubscribe)."),
)

_KNOB_BY_KEY = {k.key: k for k in KNOBS}


@dataclass(frozen=True)
class Config:
    """A resolved, validated configuration: every knob, failure budget and switch of model-scope.md."""

    broker_role: str = "ASYNC_MASTER"
    flush_disk_type: str = "ASYNC_FLUSH"
    slave_read_enable: bool = False
    slave_read_enable_in_slaves: str = "AS_MASTER"
    offset_check_in_slave: bool = False
    group_broker_id: int = 0
    which_broker_when_consume_slowly: int = 1
    consume_slowly_backlog: int = 1
    slaves: int = 1
    consumers: int = 1
    messages: int = 2
    queues: int = 1
    max_master_crashes: int = 1
    max_master_power_losses: int = 1
    max_slave_crashes: int = 0
    max_slave_power_losses: int = 0
    max_consumer_restarts: int = 0
    max_ha_disconnects: int = 0
    pull_batch_in_memory: int = 0
    pull_batch_in_disk: int = 0
    commitlog_file_messages: int = 0
    max_file_deletions: int = 0
    ha_fallbehind_max: int = 0
    monotonic_commit: bool = False
    sync_offsets_max: bool = False
    reverse_offset_sync: bool = False
    overflow_to_max: bool = False
    validate_slave_ack: bool = False
    ha_close_on_ack_beyond_master_max: bool = False
    subscribe_try_next_slave_id: bool = False
    #: the RocketMQ release checked (model/versions.py): not a knob, it set the version switches' values
    rocketmq_version: str = REFERENCE_RELEASE

    def __post_init__(self) -> None:
        settle_knob_fields(self, KNOBS, "4.4", REFERENCE_RELEASE)
        self._check_consistency()

    def _check_consistency(self) -> None:
        per_slave = self.slave_read_enable_in_slaves.split("-")
        if len(per_slave) > 1 and len(per_slave) != self.slaves:
            raise ConfigError(
                f"knob 'slave_read_enable_in_slaves': value {self.slave_read_enable_in_slaves!r} gives "
                f"{len(per_slave)} slaves' values, but slaves={self.slaves}; give one word per slave, or TRUE, "
                "FALSE or AS_MASTER"
            )
        for key in ("group_broker_id", "which_broker_when_consume_slowly"):
            value = getattr(self, key)
            if value > self.slaves:
                raise ConfigError(
                    f"knob '{key}': value {value} names broker {value}, but slaves={self.slaves}; "
                    f"allowed: 0..{self.slaves}"
                )
        if self.max_file_deletions > 0 and self.commitlog_file_messages == 0:
            raise ConfigError(
                f"knob 'max_file_deletions': value {self.max_file_deletions} needs commitlog files: with "
                "commitlog_file_messages=0 the one file is always the last, which is never deleted; "
                "set commitlog_file_messages=1..8 or max_file_deletions=0"
            )
        if self.max_file_deletions > 0 and self.queues > 1:
            raise ConfigError(
                f"knob 'max_file_deletions': value {self.max_file_deletions} is modelled with queues=1 only "
                f"(queues={self.queues}); allowed with two queues: 0"
            )
        if self.consume_slowly_backlog > self.messages:
            raise ConfigError(
                f"knob 'consume_slowly_backlog': value {self.consume_slowly_backlog} exceeds "
                f"messages={self.messages}; allowed: 0..{self.messages}"
            )

    # -- construction ---------------------------------------------------------------------------------
    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: "Config | None" = None) -> "Config":
        """Build a config from ``base`` (default: 4.4 defaults) with ``values`` applied; validates keys."""
        fields = knob_fields(values, base, KNOBS, "4.4")
        values = knob_values(values, KNOBS)
        if "slaves" in values:
            # broker ids the user did not choose follow a smaller slave count (only the master is left)
            slaves = fields["slaves"]
            for key in ("group_broker_id", "which_broker_when_consume_slowly"):
                if key not in values:
                    fields[key] = min(fields.get(key, _KNOB_BY_KEY[key].default), slaves)
        return cls(**fields)

    def with_overrides(self, assignments: "list[str] | tuple[str, ...]") -> "Config":
        """Apply ``key=value`` strings (the ``--set`` option) on top of this config."""
        return Config.from_mapping(knob_assignments(assignments, "slaves=2"), base=self)

    # -- views ----------------------------------------------------------------------------------------
    def view_kinds(self) -> dict[str, str]:
        """Every readable field of this configuration's states, with the kind of its values
        (:func:`model.view.view_kinds`: ``ids``, ``optional`` or ``plain``). Imported by name: the kernel
        cache follows the imports of the modules the kernels import, and the view changes no kernel."""
        import importlib
        return importlib.import_module("model.view").view_kinds(self)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def sync_master(self) -> bool:
        return self.broker_role == "SYNC_MASTER"

    @property
    def sync_flush(self) -> bool:
        return self.flush_disk_type == "SYNC_FLUSH"

    @property
    def slaves_read_enable(self) -> bool:
        """Whether every slave's own slaveReadEnable is true (:meth:`slave_reads`)."""
        return all(self.slave_reads(s) for s in range(1, self.slaves + 1)) if self.slaves else \
            self.slave_reads(1)

    def slave_reads(self, slave: int) -> bool:
        """Slave ``slave``'s own slaveReadEnable: ``slave_read_enable_in_slaves`` (its word for that slave
        when it gives one per slave), or the master's when AS_MASTER."""
        value = self.slave_read_enable_in_slaves
        if value == "AS_MASTER":
            return self.slave_read_enable
        words = value.split("-")
        return (words[slave - 1] if len(words) > 1 else words[0]) == "TRUE"

    @property
    def queue_capacity(self) -> int:
        """Most messages one queue can hold: message i goes to queue (i-1) % queues."""
        return -(-self.messages // self.queues)

    def short(self) -> str:
        """The knobs that differ from the defaults of the release checked (the 4.4 defaults with that
        release's switches), as ``key=value`` text after the release: ``RocketMQ 4.4.0, messages=1``,
        ``RocketMQ 4.9.4, overflow_to_max=false``, ``RocketMQ 4.4.0 defaults``."""
        default = Config.from_mapping({VERSION_KEY: self.rocketmq_version})
        diffs = [f"{k}={_text(v)}" for k, v in self.as_dict().items() if getattr(default, k) != v]
        release = f"RocketMQ {self.rocketmq_version}"
        return f"{release}, {', '.join(diffs)}" if diffs else f"{release} defaults"


PRESET_DESCRIPTIONS: dict[str, str] = {
    "default": "RocketMQ 4.4 defaults (ASYNC_MASTER, ASYNC_FLUSH), 1 slave, 1 consumer, 2 messages, "
               "one master crash and one master power loss",
    "sync-master": "default with brokerRole=SYNC_MASTER",
    "sync-flush": "default with flushDiskType=SYNC_FLUSH",
    "sync-all": "SYNC_MASTER and SYNC_FLUSH together, the most durable 4.4 setting",
    "read-from-slave": "slaveReadEnable=true and the group reads from slave 1 (SubscriptionGroupConfig.brokerId=1); "
                       "a pull leaving any message behind counts as slow (then the master suggests slave 1 too)",
    "retention": "commitlog files of 2 messages, 3 messages, one DeleteExpiredFiles, a slave that can crash; "
                 "one master crash, no power loss",
    "two-slaves": "SYNC_MASTER with 2 slaves and 1 message (about 2.3 million states)",
    "all-switches": "every alternative behaviour V1-V6 switched on",
    "bench": "a larger space for benchmarks (about 17 million states, about a minute locally): "
             "default with 3 messages and 2 consumers",
    "large": "two-slaves with 2 messages (225,286,977 states, for the Spark engine; see the documentation's Performance page)",
}

PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "sync-master": {"broker_role": "SYNC_MASTER"},
    "sync-flush": {"flush_disk_type": "SYNC_FLUSH"},
    "sync-all": {"broker_role": "SYNC_MASTER", "flush_disk_type": "SYNC_FLUSH"},
    "read-from-slave": {"slave_read_enable": True, "group_broker_id": 1,
                        "which_broker_when_consume_slowly": 1, "consume_slowly_backlog": 0},
    "all-switches": {"monotonic_commit": True, "sync_offsets_max": True, "reverse_offset_sync": True,
                     "overflow_to_max": True, "validate_slave_ack": True, "offset_check_in_slave": True},
    "retention": {"messages": 3, "commitlog_file_messages": 2, "max_file_deletions": 1, "max_slave_crashes": 1,
                  "max_master_power_losses": 0},
    "two-slaves": {"broker_role": "SYNC_MASTER", "slaves": 2, "messages": 1},
    "bench": {"messages": 3, "consumers": 2},
    "large": {"broker_role": "SYNC_MASTER", "slaves": 2, "messages": 2},
}


def preset(name: str) -> Config:
    """The named preset, or a :class:`ConfigError` listing the known names."""
    values = PRESETS.get(name)
    if values is None:
        raise ConfigError(f"unknown preset '{name}'; known presets: {', '.join(PRESETS)}")
    return Config.from_mapping(values)


def load_toml(path: "str | Path", base: Config | None = None) -> Config:
    """Read a TOML config file: top-level ``key = value`` pairs, or a ``[config]`` table of them.

    An optional top-level ``preset = "name"`` starts from that preset instead of the defaults; a ``[run]``
    table is left to the command line.
    """
    return load_knobs_toml(path, "4.4", KNOBS, PRESETS, preset, Config.from_mapping, base)
