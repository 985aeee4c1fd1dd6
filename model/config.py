"""Configuration of the RocketMQ 4.4 model: knobs, failure budgets, switches and presets.

Every public name here is part of rmqcheck's interface (see ``shared/spec/model-scope.md``): the knob
keys are what users write in a TOML file or after ``--set``, and the preset names follow ``--preset``.

A :class:`Config` is validated when it is built. Bad input raises one :class:`ConfigError` whose message
names the key, the value given and the allowed values, so the command line can print it as one line.
"""
from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

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


class ConfigError(ValueError):
    """Bad configuration input; the message is one line naming the key, the value and what is allowed."""


@dataclass(frozen=True)
class Knob:
    """One configuration key: its type, allowed values, default and the RocketMQ name it stands for."""

    key: str
    kind: str  # "enum", "bool" or "int"
    default: Any
    allowed: tuple  # enum values, or (low, high) for ints; () for bools
    rocketmq: str
    doc: str
    slot: str = ""  # the kernel's name for its parameter slot (model/slots.py); "" = K_ + the key in capitals
    #: the RocketMQ property name ``--set`` also takes for this knob (``brokerRole``): only where the
    #: property's values are the knob's values; "" where there is none or its unit differs (bytes, %)
    alias: str = ""

    @property
    def slot_name(self) -> str:
        return self.slot or "K_" + self.key.upper()

    def allowed_text(self) -> str:
        if self.kind == "bool":
            return "true, false"
        if self.kind == "enum":
            return ", ".join(self.allowed)
        low, high = self.allowed
        return f"{low}..{high}"

    def parse(self, value: Any) -> Any:
        """Coerce ``value`` (from TOML or from a ``--set`` string) to this knob's type, or raise. Text is
        read strictly: plain ASCII without blanks (no fullwidth digit, no ``' 1'``), a whole number in
        ASCII digits (no sign on zero, no ``_``); ``true``/``false`` and the enum words in any case."""
        if isinstance(value, str) and not _PLAIN_WORD.fullmatch(value):
            raise self._bad(value, " (only ASCII letters, digits, '_' and '-', no blanks)")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise self._bad(value)
        if self.kind == "enum":
            if isinstance(value, bool) and "TRUE" in self.allowed:
                return "TRUE" if value else "FALSE"   # a TOML boolean for an enum that has true and false
            if isinstance(value, str) and value.upper() in self.allowed:
                return value.upper()
            raise self._bad(value)
        if isinstance(value, bool):
            raise self._bad(value)
        if isinstance(value, str):
            if not _WHOLE_NUMBER.fullmatch(value):
                raise self._bad(value, " (a whole number in ASCII digits)")
            value = int(value, 10)
        if not isinstance(value, int):
            raise self._bad(value)
        low, high = self.allowed
        if not low <= value <= high:
            raise self._bad(value)
        return value

    def _bad(self, value: Any, why: str = "") -> ConfigError:
        return ConfigError(
            f"knob '{self.key}': value {value!r} is not allowed{why}; allowed: {self.allowed_text()}"
        )


#: the text a knob's value may be: ASCII letters, digits, '_' and '-' (str.isdigit would let '１' through)
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_\-]*")
#: a whole number as a knob takes it from text: ASCII digits, a minus only before a non-zero number
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}|-[1-9][0-9]{0,17}")


def knob_values(values: Mapping[str, Any], knobs: Iterable[Knob]) -> dict[str, Any]:
    """``values`` with each knob's RocketMQ name (its ``alias``, e.g. ``brokerRole``) replaced by the knob's
    key (``broker_role``); other keys are left for the caller to refuse. A knob given under both names
    is bad input."""
    by_alias = {k.alias: k.key for k in knobs if k.alias}
    out: dict[str, Any] = {}
    named: dict[str, str] = {}
    for key, value in values.items():
        canonical = by_alias.get(key, key)
        if canonical in out:
            raise ConfigError(f"knob '{canonical}' is given twice, as '{named[canonical]}' and as '{key}' "
                              f"(the RocketMQ name of the same knob); keep one")
        out[canonical] = value
        named[canonical] = key
    return out


_BUDGET = (0, 3)

#: the release the 4.4 mode's defaults are, and the key that names a release (TOML, JSON ``config``)
REFERENCE_RELEASE = "4.4.0"
VERSION_KEY = "rocketmq_version"


def _versions() -> Any:
    """model/versions.py, imported by name: the kernel cache (model/kernel_cache.py) is keyed on the modules
    the kernels import, and the release declarations change no kernel."""
    import importlib
    return importlib.import_module("model.versions")


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
    Knob("slave_read_enable_in_slaves", "enum", "AS_MASTER", ("AS_MASTER", "FALSE", "TRUE"),
         "slaveReadEnable in the slaves' broker.conf",
         "The slaves' own value where it differs from the master's (AS_MASTER: slave_read_enable): a slave "
         "serves a pull either way, and with FALSE suggests the master next "
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
        for knob in KNOBS:
            value = getattr(self, knob.key)
            parsed = knob.parse(value)
            if parsed != value or type(parsed) is not type(value):
                object.__setattr__(self, knob.key, parsed)
        if self.rocketmq_version != REFERENCE_RELEASE:
            object.__setattr__(self, "rocketmq_version", _versions().normalize(self.rocketmq_version, "4.4"))
        self._check_consistency()

    def _check_consistency(self) -> None:
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
        fields = dataclasses.asdict(base) if base is not None else {}
        values = knob_values(values, KNOBS)
        if VERSION_KEY in values:
            # the release first (its switches' values), then the knobs given beside it: an explicit one wins
            values = dict(values)
            version = _versions().normalize(values.pop(VERSION_KEY), "4.4")
            fields[VERSION_KEY] = version
            fields.update(_versions().release_line("4.4").knob_values(version))
        for key, value in values.items():
            knob = _KNOB_BY_KEY.get(key)
            if knob is None:
                raise ConfigError(f"unknown knob '{key}' (value {value!r}); known knobs: {', '.join(_KNOB_BY_KEY)}")
            fields[key] = knob.parse(value)
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
        """The slaves' own slaveReadEnable: ``slave_read_enable_in_slaves``, or the master's when AS_MASTER."""
        if self.slave_read_enable_in_slaves == "AS_MASTER":
            return self.slave_read_enable
        return self.slave_read_enable_in_slaves == "TRUE"

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


def set_assignments(assignments: "Iterable[str]", example: str) -> dict[str, str]:
    """The ``--set key=value`` strings as a mapping (bad input names the item and shows ``example``): no
    blank anywhere in an item (``messages= 1`` is refused, not trimmed)."""
    values: dict[str, str] = {}
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r}: expected key=value, e.g. --set {example}")
        if any(c.isspace() for c in item):
            raise ConfigError(f"--set {item!r}: blanks in key=value; write it without blanks, e.g. --set {example}")
        values[key] = value
    return values


def knob_assignments(assignments: "Iterable[str]", example: str) -> dict[str, str]:
    """:func:`set_assignments` of knobs only: the release is not a knob (``--rocketmq-version`` sets it)."""
    values = set_assignments(assignments, example)
    if VERSION_KEY in values:
        raise ConfigError(f"--set {VERSION_KEY}={values[VERSION_KEY]}: the RocketMQ release is not a knob; give "
                          f"--rocketmq-version {values[VERSION_KEY]} (it sets every version switch; --set then "
                          "changes one)")
    return values


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


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


def read_config_toml(path: "str | Path") -> dict:
    """The TOML document of config file ``path``, read within model.input_text's bounds (every mode's
    loader starts here); :class:`ConfigError` with one line naming the file otherwise."""
    from .input_text import InputFileError, parse_bounded, read_input_text

    try:
        return parse_bounded(tomllib.loads, read_input_text(Path(path), "config file"), "TOML",
                             f"config file {str(path)!r}")
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None


def load_toml(path: "str | Path", base: Config | None = None) -> Config:
    """Read a TOML config file: top-level ``key = value`` pairs, or a ``[config]`` table of them.

    An optional top-level ``preset = "name"`` starts from that preset instead of the defaults; a ``[run]``
    table is left to the command line.
    """
    return load_knobs_toml(path, "4.4", KNOBS, PRESETS, preset, Config.from_mapping, base)


def load_knobs_toml(path: "str | Path", mode: str, knobs: "Iterable[Knob]", presets: "Iterable[str]",
                    preset_of: Any, from_mapping: Any, base: Any = None) -> Any:
    """A TOML config file of model mode ``mode`` (whose ``knobs``, ``presets``, ``preset_of(name)`` and
    ``from_mapping(values, base=...)`` are given), read strictly: every value of the type its key takes
    (``mode`` and ``preset`` strings, knobs plain values), nothing beside ``[config]`` but ``preset``,
    ``mode`` and ``[run]`` (the command line's: rmqcheck/run_file.py), a ``mode`` that is this one."""
    path = Path(path)
    where = f"config file {str(path)!r}"
    data = read_config_toml(path)
    data.pop("run", None)
    inner: dict = {}
    if "config" in data and isinstance(data["config"], dict):
        extra = sorted(set(data) - {"config", "preset", "mode"})
        if extra:
            raise ConfigError(f"{where}: unexpected top-level key '{extra[0]}' "
                              "beside [config]; allowed: preset, [config], [run]")
        inner = dict(data["config"])
        values = inner
    else:
        values = dict(data)
    names: dict[str, Any] = {}
    for key in ("mode", "preset"):
        given = [data[key]] if values is inner and key in data else []
        if key in values:
            given.append(values.pop(key))
        if len(given) == 2 and given[0] != given[1]:
            raise ConfigError(f"{where} names two {key}s, {given[0]!r} at the top and {given[1]!r} in [config]; "
                              "keep one")
        names[key] = given[0] if given else None
    _check_mode_name(where, names["mode"], mode)
    name = names["preset"]
    if name is not None:
        if not isinstance(name, str):
            raise ConfigError(f"{where}: preset {name!r} is not a preset name; "
                              f"known presets: {', '.join(presets)}")
        base = preset_of(name)
    by_key = {k.key: k for k in knobs}
    for key, value in knob_values(values, knobs).items():
        knob = by_key.get(key)
        if knob is not None and isinstance(value, (dict, list)):
            raise ConfigError(f"{where}: knob '{key}': value {value!r} is not allowed "
                              f"(one plain value); allowed: {knob.allowed_text()}")
    return from_mapping(values, base=base)


def _check_mode_name(where: str, name: Any, mode: str) -> None:
    """A config file's ``mode`` must be a mode name (a string), and the mode being read."""
    from .modes import MODES

    if name is None:
        return
    if not isinstance(name, str) or name not in MODES:
        raise ConfigError(f"{where}: mode {name!r} is not a mode name; known modes: {', '.join(MODES)}")
    if name != mode:
        raise ConfigError(f"{where}: mode {name!r}, but it is read as mode {mode}; give one mode")

