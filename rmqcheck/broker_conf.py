"""``--broker-conf FILE`` and ``--group-config FILE``: an operator's own RocketMQ settings as knobs.

The files of one broker group (the master's ``broker.conf`` and each slave's) are read as RocketMQ 4.4
reads them (``BrokerStartup#createBrokerController``: ``Properties#load``, then ``MixAll#properties2Object``)
and mapped onto the model's knobs: the master's ``brokerRole`` and ``flushDiskType``, ``slaveReadEnable``,
the slaves' ``offsetCheckInSlave``, the number of slaves from the files given, and the subscription group's
``brokerId`` and ``whichBrokerWhenConsumeSlowly``. Every other key RocketMQ reads is listed once as not
modelled.

Where RocketMQ silently ignores a value it cannot parse (``brokerRole=SYNC_MASTER `` with a trailing
blank keeps ASYNC_MASTER; ``slaveReadEnable=yes`` reads as false) or quietly corrects a contradiction
(a master's brokerId is forced to 0), rmqcheck refuses the file with one line naming the file and the key:
the model must check the cluster the operator meant, not a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .broker_keys import BROKER_KEYS
from .java_properties import Properties, PropertiesError, parse_properties, read_properties, read_text
from .setup import BadInput, check_input_file
from .suggest import closest

MASTER_ROLES = ("ASYNC_MASTER", "SYNC_MASTER")
ROLES = (*MASTER_ROLES, "SLAVE")
FLUSH_TYPES = ("ASYNC_FLUSH", "SYNC_FLUSH")
#: MessageStoreConfig defaults (4.4.0) of the keys that map onto knobs only at some values
DEFAULT_FALLBEHIND_BYTES = 256 * 1024 * 1024
DEFAULT_IN_MEMORY_RATIO = 40
MAX_SLAVES = 3   # the knob 'slaves' allows 0..3
#: the keys of a subscription group (SubscriptionGroupConfig#toString, mqadmin updateSubGroup)
GROUP_KEYS = ("groupName", "consumeEnable", "consumeFromMinEnable", "consumeBroadcastEnable", "retryQueueNums",
              "retryMaxTimes", "brokerId", "whichBrokerWhenConsumeSlowly", "notifyConsumerIdsChangedEnable")
#: the keys rmqcheck reads from a broker.conf, beyond the identity keys (cluster, name, id, role)
MAPPED = ("flushDiskType", "slaveReadEnable", "offsetCheckInSlave", "haSlaveFallbehindMax",
          "accessMessageInMemoryMaxRatio")
IDENTITY = ("brokerClusterName", "brokerName", "brokerId", "brokerRole")


@dataclass
class BrokerSettings:
    """What the files say, as knobs: ``values`` (knob -> value), ``sources`` (knob -> "key in FILE"), the
    keys read but not modelled (each once, with why where it is not obvious), and the files read."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    not_modelled: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def set(self, knob: str, value: Any, key: str, where: Properties) -> None:
        self.values[knob] = value
        self.sources[knob] = f"{key} in {where.path.name}"

    def skip(self, key: str, why: str = "") -> None:
        self.not_modelled.setdefault(key, why)

    def not_modelled_text(self) -> str:
        return ", ".join(f"{k} ({why})" if why else k for k, why in self.not_modelled.items())


def _bad(props: Properties, key: str, text: str) -> BadInput:
    line = props.lines.get(key)
    at = f" line {line}" if line else ""
    return BadInput(f"--broker-conf {props.name!r}{at}: {key}: {text}")


def _plain(props: Properties, key: str, what: str = "--broker-conf") -> str | None:
    """The value of ``key``, refused when blanks surround it: RocketMQ parses the value as it stands
    (Properties#load keeps trailing blanks), fails, and silently keeps the default."""
    value = props.get(key)
    if value is not None and value != value.strip():
        raise _bad(props, key, f"value {value!r} has blanks around it; RocketMQ 4.4 does not trim values and "
                               "would ignore this one (keeping its default): remove the blanks")
    return value


def _choice(props: Properties, key: str, allowed: tuple[str, ...], default: str) -> str:
    value = _plain(props, key)
    if value is None:
        return default
    if value not in allowed:
        raise _bad(props, key, f"value {value!r} is not one of {', '.join(allowed)} (RocketMQ 4.4 would ignore it "
                               f"and keep {default})")
    return value


def _boolean(props: Properties, key: str, default: bool = False) -> bool:
    value = _plain(props, key)
    if value is None:
        return default
    if value.lower() not in ("true", "false"):
        raise _bad(props, key, f"value {value!r} is not true or false (RocketMQ 4.4 reads anything but 'true' "
                               "as false); write true or false")
    return value.lower() == "true"


def _integer(props: Properties, key: str, default: int) -> int:
    value = _plain(props, key)
    if value is None:
        return default
    if not re.fullmatch(r"[-+]?[0-9]{1,18}", value):
        raise _bad(props, key, f"value {value!r} is not an integer (RocketMQ 4.4 would ignore it and keep "
                               f"{default})")
    return int(value)


@dataclass(frozen=True)
class Broker:
    """One broker.conf: its file, role and brokerId."""

    props: Properties
    role: str
    broker_id: int

    @property
    def is_master(self) -> bool:
        return self.role in MASTER_ROLES


def _broker(path: str) -> Broker:
    check_input_file(path, "--broker-conf")
    try:
        props = read_properties(path, "--broker-conf")
    except PropertiesError as exc:
        raise BadInput(str(exc)) from None
    for key in props.values:
        if key in BROKER_KEYS:
            continue
        near = closest(key, [*IDENTITY, *MAPPED])
        if near is not None and near.lower() == key.lower():
            raise _bad(props, key, f"RocketMQ reads keys case-sensitively and would ignore this one; did you mean "
                                   f"'{near}'?")
        if near is not None:
            raise _bad(props, key, f"not a RocketMQ 4.4 broker setting (RocketMQ would ignore it); did you mean "
                                   f"'{near}'?")
    role = _choice(props, "brokerRole", ROLES, "ASYNC_MASTER")
    broker_id = _integer(props, "brokerId", 0)
    if role == "SLAVE" and broker_id <= 0:
        raise _bad(props, "brokerId", f"a SLAVE needs brokerId > 0, not {broker_id} (BrokerStartup refuses to "
                                      "start it: \"Slave's brokerId must be > 0\")")
    if role != "SLAVE" and broker_id != 0:
        raise _bad(props, "brokerId", f"brokerId={broker_id} with brokerRole={role}: a master is brokerId 0 "
                                      "(BrokerStartup overrides it); set brokerId=0, or brokerRole=SLAVE")
    return Broker(props, role, broker_id)


def read_broker_group(broker_paths: Sequence[str], group_path: str | None = None) -> BrokerSettings:
    """The knobs the broker.conf files of one broker group (and the subscription group's settings) set,
    or :class:`BadInput` naming the file and the key of the first contradiction."""
    if group_path and not broker_paths:
        raise BadInput("--group-config needs the brokers' files too (--broker-conf FILE, repeatable): its "
                       "brokerId names one of them")
    brokers = [_broker(path) for path in broker_paths]
    _same_group(brokers)
    masters = [b for b in brokers if b.is_master]
    if not masters:
        first = brokers[0].props
        raise _bad(first, "brokerRole", "no master among the files given (every one is a SLAVE); add the master's "
                                        "broker.conf (brokerRole=ASYNC_MASTER or SYNC_MASTER)")
    if len(masters) > 1:
        raise _bad(masters[1].props, "brokerRole", f"a second master (brokerRole={masters[1].role}) beside "
                                                   f"{masters[0].props.name!r}; a broker group has one master")
    master = masters[0]
    slaves = sorted((b for b in brokers if not b.is_master), key=lambda b: b.broker_id)
    for a, b in zip(slaves, slaves[1:]):
        if a.broker_id == b.broker_id:
            raise _bad(b.props, "brokerId", f"brokerId={b.broker_id} is also the brokerId of {a.props.name!r}; "
                                            "each slave of a group has its own")
    if len(slaves) > MAX_SLAVES:
        raise _bad(slaves[MAX_SLAVES].props, "brokerRole",
                   f"a slave beyond the {MAX_SLAVES} the model holds ({len(slaves)} SLAVE files given)")

    out = BrokerSettings(files=[b.props.name for b in brokers])
    m = master.props
    out.set("broker_role", master.role, "brokerRole", m)
    out.set("flush_disk_type", _choice(m, "flushDiskType", FLUSH_TYPES, "ASYNC_FLUSH"), "flushDiskType", m)
    out.values["slaves"] = len(slaves)
    out.sources["slaves"] = f"{len(slaves)} SLAVE file{'s' if len(slaves) != 1 else ''}"
    out.set("slave_read_enable", _agreed_boolean(brokers, "slaveReadEnable"), "slaveReadEnable", m)
    if slaves:
        out.set("offset_check_in_slave", _agreed_boolean(slaves, "offsetCheckInSlave"), "offsetCheckInSlave",
                slaves[0].props)
    _ratio(m, out)
    _fallbehind(m, out)
    for b in slaves:
        _choice(b.props, "flushDiskType", FLUSH_TYPES, "ASYNC_FLUSH")
        if "flushDiskType" in b.props.values:
            out.skip("flushDiskType on a slave", "a slave's flush is periodic in the model either way")
        _integer(b.props, "haSlaveFallbehindMax", DEFAULT_FALLBEHIND_BYTES)
        _integer(b.props, "accessMessageInMemoryMaxRatio", DEFAULT_IN_MEMORY_RATIO)
    if "offsetCheckInSlave" in m.values:
        _boolean(m, "offsetCheckInSlave")
        out.skip("offsetCheckInSlave on the master", "only a slave reads it")
    for b in brokers:
        for key in b.props.values:
            if key not in IDENTITY and key not in MAPPED:
                out.skip(key, "" if key in BROKER_KEYS else "not a RocketMQ 4.4 broker setting")
    if group_path:
        _group(group_path, [master, *slaves], out)
    return out


def _same_group(brokers: list[Broker]) -> None:
    """Every file names the same cluster and broker group (RocketMQ defaults: DefaultCluster, the host name;
    a file without brokerName is compared as it would start: on its host's name, unknown here)."""
    for key in ("brokerClusterName", "brokerName"):
        first = next((b.props for b in brokers if b.props.get(key) is not None), None)
        if first is None:
            continue
        for b in brokers:
            value = _plain(b.props, key)
            if value is not None and value != first.get(key):
                raise _bad(b.props, key, f"{key}={value!r} but {first.name!r} has {key}={first.get(key)!r}; the "
                                         "files of one broker group name the same one")


def _agreed_boolean(brokers: Sequence[Broker], key: str) -> bool:
    """A boolean the model holds once for all these brokers: every file must say the same (absent: false)."""
    values = [(_boolean(b.props, key), b) for b in brokers]
    first_value, first = values[0]
    for value, b in values[1:]:
        if value != first_value:
            raise _bad(b.props, key, f"{str(value).lower()} here but {str(first_value).lower()} in "
                                     f"{first.props.name!r}; the model has one {key} for these brokers: set it "
                                     "alike in every file")
    return first_value


def _ratio(m: Properties, out: BrokerSettings) -> None:
    """accessMessageInMemoryMaxRatio: 0 makes every pull that leaves a message behind slow, which is
    consume_slowly_backlog=0; the model counts messages, not bytes of RAM, so other ratios are not modelled."""
    ratio = _integer(m, "accessMessageInMemoryMaxRatio", DEFAULT_IN_MEMORY_RATIO)
    if ratio == 0:
        out.set("consume_slowly_backlog", 0, "accessMessageInMemoryMaxRatio", m)
    elif ratio != DEFAULT_IN_MEMORY_RATIO:
        out.skip("accessMessageInMemoryMaxRatio", f"{ratio} % of RAM; the model counts messages: "
                                                  "--set consume_slowly_backlog=N")


def _fallbehind(m: Properties, out: BrokerSettings) -> None:
    """haSlaveFallbehindMax, in bytes: its default (256 MiB) is beyond any model size, which is
    ha_fallbehind_max=0 (no threshold); another value needs a message size the files do not give."""
    value = _integer(m, "haSlaveFallbehindMax", DEFAULT_FALLBEHIND_BYTES)
    if value == DEFAULT_FALLBEHIND_BYTES:
        if "haSlaveFallbehindMax" in m.values:
            out.set("ha_fallbehind_max", 0, "haSlaveFallbehindMax", m)
    else:
        out.skip("haSlaveFallbehindMax", f"{value} bytes; the model counts messages: --set ha_fallbehind_max=N")


_GROUP_LINE = re.compile(r"SubscriptionGroupConfig\s*\[(?P<body>[^\]]*)\]")


def _group(path: str, brokers: list[Broker], out: BrokerSettings) -> None:
    """The subscription group's brokerId and whichBrokerWhenConsumeSlowly, read from what ``mqadmin
    updateSubGroup`` prints (``SubscriptionGroupConfig [groupName=..., brokerId=0, ...]``) or from
    ``key=value`` lines; each must name a broker of the group, and slave k of the model is the slave with
    the k-th smallest brokerId."""
    check_input_file(path, "--group-config")
    try:
        raw = read_text(path, "--group-config")
        m = _GROUP_LINE.search(raw)
        if m is None:
            props = parse_properties(raw, Path(path), "--group-config")
        else:
            pairs = [item.strip().partition("=") for item in m["body"].split(",") if item.strip()]
            props = Properties(Path(path), {k.strip(): v.strip() for k, _, v in pairs}, {})
    except PropertiesError as exc:
        raise BadInput(str(exc)) from None
    where = f"--group-config {props.name!r}"
    index = {b.broker_id: i for i, b in enumerate(brokers)}
    for key, knob in (("brokerId", "group_broker_id"), ("whichBrokerWhenConsumeSlowly",
                                                        "which_broker_when_consume_slowly")):
        value = props.get(key)
        if value is None:
            continue
        if not re.fullmatch(r"[0-9]{1,18}", value):
            raise BadInput(f"{where}: {key}: value {value!r} is not a brokerId (a whole number >= 0)")
        broker_id = int(value)
        if broker_id not in index:
            raise BadInput(f"{where}: {key}: brokerId {broker_id} is none of the brokers given (brokerIds "
                           f"{', '.join(str(b) for b in sorted(index))})")
        out.values[knob] = index[broker_id]
        out.sources[knob] = f"{key} in {props.path.name}"
    for key in props.values:
        if key not in ("brokerId", "whichBrokerWhenConsumeSlowly"):
            if key not in GROUP_KEYS:
                near = closest(key, GROUP_KEYS)
                hint = f"; did you mean '{near}'?" if near else f"; known keys: {', '.join(GROUP_KEYS)}"
                raise BadInput(f"{where}: {key}: not a subscription group setting{hint}")
            out.skip(key)
    out.files.append(props.name)

