"""``--broker-conf FILE`` and ``--group-config FILE``: an operator's own RocketMQ settings as knobs.

The files of one broker group (the master's ``broker.conf`` and each slave's) are read as RocketMQ reads them
(``BrokerStartup#createBrokerController``: ``Properties#load``, then ``MixAll#properties2Object``) and mapped
onto the knobs of the model mode they describe:

- RocketMQ 4.4 master/slave: the master's ``brokerRole`` and ``flushDiskType``, the master's and the
  slaves' ``slaveReadEnable`` (each broker reads its own), the slaves' ``offsetCheckInSlave``, the number of
  slaves from the files given, and the subscription group's ``brokerId`` and ``whichBrokerWhenConsumeSlowly``;
- RocketMQ 5.3.3 controller mode (``enableControllerMode=true`` in every broker's file, as RocketMQ's
  ``distribution/conf/controller/quick-start`` samples): ``allAckInSyncStateSet``, ``inSyncReplicas``,
  ``minInSyncReplicas``, ``flushDiskType``, each broker's own ``brokerElectionPriority`` (in the order the
  files are given), the number of brokers from the files given, and ``enableElectUncleanMaster`` from
  the controller's own file (``controller.conf``, or a ``namesrv.conf`` with ``enableControllerInNamesrv``)
  given among them; ``brokerId`` (-1 in the samples) and ``brokerRole`` are the controller's to assign, and
  the controller's addresses are read but not modelled (the model has one controller).

The files choose the mode (``enableControllerMode=true``: controller) unless the command line names one
(``--mode``, a preset, a config file's ``mode``); a contradiction is bad input naming the file and the key.
A DLedger commitlog broker (``enableDLegerCommitLog=true``) is refused: that mode is not modelled. Every other
key RocketMQ reads is listed once as not modelled.

Only text in Java properties form holding a broker setting is read: a binary file, or a text file none of
whose keys RocketMQ reads (``/etc/passwd``), is refused naming the file.

Where RocketMQ silently ignores a value it cannot parse (``brokerRole=SYNC_MASTER `` with a trailing
blank keeps ASYNC_MASTER in 4.4; ``slaveReadEnable=yes`` reads as false) or quietly corrects a contradiction
(a master's brokerId is forced to 0), rmqcheck refuses the file with one line naming the file and the key:
the model must check the cluster the operator meant, not a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .broker_keys import BROKER_KEYS, BROKER_KEYS_5, CONTROLLER_KEYS_5, NAMESRV_KEYS_5
from .java_properties import Properties, PropertiesError, parse_properties, read_text
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
#: the keys rmqcheck reads from a controller-mode broker's file, beyond the identity keys
MAPPED_5 = ("enableControllerMode", "allAckInSyncStateSet", "inSyncReplicas", "minInSyncReplicas", "flushDiskType",
            "slaveReadEnable", "enableDLegerCommitLog", "brokerElectionPriority")
#: BrokerConfig.brokerElectionPriority's default (Integer.MAX_VALUE), the largest value the model takes
ELECTION_PRIORITY_DEFAULT = 2**31 - 1
#: the keys rmqcheck reads from a controller's file
CONTROLLER_MAPPED = ("enableElectUncleanMaster", "enableControllerInNamesrv")
#: the keys that hold the controller's addresses: read, not modelled (the model has one controller)
CONTROLLER_ADDRESSES = ("controllerAddr", "fetchControllerAddrByDnsLookup", "controllerDLegerGroup",
                        "controllerDLegerPeers", "controllerDLegerSelfId", "jRaftGroupId", "jRaftServerId",
                        "jRaftInitConf", "jRaftControllerRPCAddr")
#: keys only a controller or a name server reads (a file holding them and no broker-only key is the controller's)
CONTROLLER_ONLY = (CONTROLLER_KEYS_5 | NAMESRV_KEYS_5) - BROKER_KEYS_5 - BROKER_KEYS
BROKER_ONLY = (BROKER_KEYS_5 | BROKER_KEYS) - CONTROLLER_KEYS_5 - NAMESRV_KEYS_5
#: the controller-mode knobs' RocketMQ names -> knob, and their model range (model/controller/config.py)
CONTROLLER_MODE = "controller"
MAX_BROKERS = 4   # the knob 'brokers' allows 2..4
#: what a notice echoes of the keys it names: each at most this long, at most this many, then "and N more"
NOTICE_KEY_CHARS = 80
NOTICE_KEYS = 10


@dataclass
class BrokerSettings:
    """What the files say, as knobs: ``values`` (knob -> value), ``sources`` (knob -> "key in FILE"), the
    keys read but not modelled (each once, with why where it is not obvious), the files read, and the
    model mode they describe (``mode_source``: the file and key that chose it, None for 4.4 by default)."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    not_modelled: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    mode: str = "4.4"
    mode_source: tuple[str, str] | None = None

    def set(self, knob: str, value: Any, key: str, where: Properties) -> None:
        self.values[knob] = value
        self.sources[knob] = f"{key} in {where.path.name}"

    def skip(self, key: str, why: str = "") -> None:
        self.not_modelled.setdefault(key, why)

    def not_modelled_text(self) -> str:
        """The keys not modelled, cut for a notice: each key at most :data:`NOTICE_KEY_CHARS` characters,
        at most :data:`NOTICE_KEYS` keys, then "and N more" (a file may hold keys of any length and number)."""
        items = list(self.not_modelled.items())
        shown = [f"{_cut(k)} ({why})" if why else _cut(k) for k, why in items[:NOTICE_KEYS]]
        if len(items) > NOTICE_KEYS:
            shown.append(f"and {len(items) - NOTICE_KEYS} more")
        return ", ".join(shown)


def _cut(key: str) -> str:
    """A key as a notice shows it: printable, at most NOTICE_KEY_CHARS characters."""
    key = "".join(c if c.isprintable() else "?" for c in key)
    return key if len(key) <= NOTICE_KEY_CHARS else key[:NOTICE_KEY_CHARS - 3] + "..."


def _bad(props: Properties, key: str, text: str) -> BadInput:
    line = props.lines.get(key)
    at = f" line {line}" if line else ""
    return BadInput(f"--broker-conf {props.name!r}{at}: {key}: {text}")


def _plain(props: Properties, key: str, version: str = "4.4") -> str | None:
    """The value of ``key``, refused when blanks surround it: RocketMQ parses the value as it stands
    (Properties#load keeps trailing blanks), fails, and silently keeps the default."""
    value = props.get(key)
    if value is not None and value != value.strip():
        raise _bad(props, key, f"value {value!r} has blanks around it; RocketMQ {version} does not trim values "
                               "and would ignore this one (keeping its default): remove the blanks")
    return value


def _choice(props: Properties, key: str, allowed: tuple[str, ...], default: str, version: str = "4.4") -> str:
    if version == "4.4":
        value = _plain(props, key)
    else:   # 5.x's MixAll#properties2Object trims a value its setter takes as a string
        value = props.get(key)
        value = value.strip() if value is not None else None
    if value is None:
        return default
    if value not in allowed:
        raise _bad(props, key, f"value {value!r} is not one of {', '.join(allowed)} (RocketMQ {version} would "
                               f"ignore it and keep {default})")
    return value


def _boolean(props: Properties, key: str, default: bool = False, version: str = "4.4") -> bool:
    value = _plain(props, key, version)
    if value is None:
        return default
    if value.lower() not in ("true", "false"):
        raise _bad(props, key, f"value {value!r} is not true or false (RocketMQ {version} reads anything but "
                               "'true' as false); write true or false")
    return value.lower() == "true"


def _integer(props: Properties, key: str, default: int, version: str = "4.4") -> int:
    value = _plain(props, key, version)
    if value is None:
        return default
    if not re.fullmatch(r"[-+]?[0-9]{1,18}", value):
        raise _bad(props, key, f"value {value!r} is not an integer (RocketMQ {version} would ignore it and keep "
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


#: bytes no text file holds (NUL and the control characters but tab, line feed, form feed, carriage return)
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _text_file(path: str, what: str) -> str:
    """The text of ``path``, refused (naming the file) unless it is text: a gzip or ELF file, or any file
    with NUL or control bytes, is no properties file a RocketMQ process was started with."""
    check_input_file(path, what)
    try:
        raw = read_text(path, what)
    except PropertiesError as exc:
        raise BadInput(str(exc)) from None
    m = _BINARY.search(raw.encode("latin-1"))
    if m is not None:
        raise BadInput(f"{what} {path!r}: not a text file (byte 0x{m.group()[0]:02x} at offset {m.start()}); "
                       "a RocketMQ configuration is Java properties text (key=value lines)")
    return raw


def _load(path: str) -> Properties:
    """One ``--broker-conf`` file: text in Java properties form with at least one key a RocketMQ broker or
    controller reads; bad input naming the file otherwise."""
    raw = _text_file(path, "--broker-conf")
    try:
        props = parse_properties(raw, Path(path), "--broker-conf")
    except PropertiesError as exc:
        raise BadInput(str(exc)) from None
    known = BROKER_KEYS | BROKER_KEYS_5 | CONTROLLER_KEYS_5 | NAMESRV_KEYS_5
    if not any(key in known for key in props.values):
        what = f"none of its {len(props.values)} keys is" if props.values else "it holds no key=value line, nor"
        raise BadInput(f"--broker-conf {path!r}: not a RocketMQ broker configuration: {what} a setting a broker "
                       "reads (such as brokerRole, brokerId, flushDiskType)")
    dledger = props.get("enableDLegerCommitLog")
    if dledger is not None and dledger.strip().lower() == "true":
        raise _bad(props, "enableDLegerCommitLog", "DLedger commitlog mode is not modelled (rmqcheck models RocketMQ "
                                                   "4.4 master/slave and the 5.3.3 controller mode)")
    return props


def _is_controller_file(props: Properties) -> bool:
    """A controller's own file (controller.conf, or a name server's with its embedded controller): it holds
    keys only a controller or name server reads and none only a broker reads."""
    keys = set(props.values)
    return bool(keys & CONTROLLER_ONLY) and not keys & BROKER_ONLY


def _check_keys(props: Properties, known: frozenset[str], mapped: tuple[str, ...], version: str) -> None:
    """A key RocketMQ does not read but that is close to one rmqcheck maps is refused with the key meant."""
    for key in props.values:
        if key in known or len(key) > NOTICE_KEY_CHARS:
            continue
        near = closest(key, [*IDENTITY, *mapped])
        if near is not None and near.lower() == key.lower():
            raise _bad(props, key, f"RocketMQ reads keys case-sensitively and would ignore this one; did you mean "
                                   f"'{near}'?")
        if near is not None:
            raise _bad(props, key, f"not a RocketMQ {version} broker setting (RocketMQ would ignore it); did you "
                                   f"mean '{near}'?")


def _broker(props: Properties) -> Broker:
    _check_keys(props, BROKER_KEYS, MAPPED, "4.4")
    role = _choice(props, "brokerRole", ROLES, "ASYNC_MASTER")
    broker_id = _integer(props, "brokerId", 0)
    if role == "SLAVE" and broker_id <= 0:
        raise _bad(props, "brokerId", f"a SLAVE needs brokerId > 0, not {broker_id} (BrokerStartup refuses to "
                                      "start it: \"Slave's brokerId must be > 0\")")
    if role != "SLAVE" and broker_id != 0:
        raise _bad(props, "brokerId", f"brokerId={broker_id} with brokerRole={role}: a master is brokerId 0 "
                                      "(BrokerStartup overrides it); set brokerId=0, or brokerRole=SLAVE")
    return Broker(props, role, broker_id)


def files_mode(files: Sequence[Properties], mode: str | None = None, mode_where: str = "") -> tuple[str, tuple[str, str] | None]:
    """The model mode the files describe and the file and key that say so: controller when a broker's file
    has ``enableControllerMode=true`` (every broker's file must then have it) or a controller's file is
    among them; else 4.4. ``mode``: the mode the command line names (``mode_where``: where), which the
    files must not contradict."""
    brokers = [f for f in files if not _is_controller_file(f)]
    controllers = [f for f in files if _is_controller_file(f)]
    on = [f for f in brokers if _boolean(f, "enableControllerMode", version="5.3.3")]
    source = None
    if on:
        source = (on[0].name, "enableControllerMode")
    elif controllers:
        source = (controllers[0].name, next(k for k in controllers[0].values if k in CONTROLLER_ONLY))
    found = CONTROLLER_MODE if source else "4.4"
    if mode is not None and mode != found:
        if found == CONTROLLER_MODE:
            props = on[0] if on else controllers[0]
            what = "true" if on else "a controller's file"
            raise _bad(props, source[1], f"{what}: a RocketMQ 5.3.3 controller-mode group, but {mode_where} asks for "
                                         f"mode {mode}; drop {mode_where} (the files choose mode {CONTROLLER_MODE})")
        first = brokers[0] if brokers else files[0]
        raise _bad(first, "enableControllerMode", f"not true: a {found} master/slave broker, but {mode_where} asks "
                                                  f"for mode {mode}; set enableControllerMode=true or drop {mode_where}")
    if found == CONTROLLER_MODE:
        off = next((f for f in brokers if f not in on), None)
        if off is not None:
            raise _bad(off, "enableControllerMode", f"not true here but true in {on[0].name!r}: the brokers of a "
                                                    "controller-mode group all run in controller mode; set "
                                                    "enableControllerMode=true in every broker's file"
                       if on else f"not true here, but {controllers[0].name!r} is a controller's file: set "
                                  "enableControllerMode=true in every broker's file")
    return found, source


def read_broker_group(broker_paths: Sequence[str], group_path: str | None = None, mode: str | None = None,
                      mode_where: str = "--mode") -> BrokerSettings:
    """The knobs the files of one broker group (and the subscription group's settings) set, in the model
    mode they describe, or :class:`BadInput` naming the file and the key of the first contradiction.
    ``mode``: the mode the command line names (``mode_where``: where it names it), or None."""
    if group_path and not broker_paths:
        raise BadInput("--group-config needs the brokers' files too (--broker-conf FILE, repeatable): its "
                       "brokerId names one of them")
    files = [_load(path) for path in broker_paths]
    found, source = files_mode(files, mode, mode_where)
    if found == CONTROLLER_MODE:
        if group_path:
            raise BadInput(f"--group-config {group_path!r}: read for mode 4.4 only (the controller mode's consumer "
                           "reads from the master)")
        out = _controller_group(files)
    else:
        out = _group_44([_broker(f) for f in files], group_path)
    out.mode, out.mode_source = found, source
    return out


def _group_44(brokers: list[Broker], group_path: str | None) -> BrokerSettings:
    """The 4.4 knobs of one master's and its slaves' files."""
    _same_group([b.props for b in brokers])
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
    _slave_read(master, slaves, out)
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


def _controller_group(files: list[Properties]) -> BrokerSettings:
    """The controller-mode knobs of the brokers' files (and of the controller's own files among them).

    ``BrokerStartup#buildBrokerController`` leaves ``brokerId`` alone in controller mode (the samples say -1)
    and the controller assigns each broker's role (``ReplicasManager#changeToMaster`` / ``#changeToSlave``),
    so both are checked for form only. ``allAckInSyncStateSet``, ``inSyncReplicas`` and
    ``minInSyncReplicas`` are read by whichever broker is master (``CommitLog#asyncPutMessage``,
    ``GroupTransferService#doWaitTransfer``) and any broker may become it: the model has one value of each
    for the group, so every file must agree. ``enableElectUncleanMaster`` is the controller's
    (``DefaultElectPolicy#elect``), read from the controller's own files."""
    brokers = [f for f in files if not _is_controller_file(f)]
    controllers = [f for f in files if _is_controller_file(f)]
    if not brokers:
        raise BadInput(f"--broker-conf {controllers[0].name!r}: a controller's file; give the brokers' files too "
                       "(--broker-conf FILE, one per broker of the group)")
    v = "5.3.3"
    for props in brokers:
        _check_keys(props, BROKER_KEYS_5, MAPPED_5, v)
        if "enableElectUncleanMaster" in props.values:
            raise _bad(props, "enableElectUncleanMaster", "a controller's setting (ControllerConfig), which a broker "
                                                          "does not read; put it in the controller's file "
                                                          "(controller.conf, or namesrv.conf with "
                                                          "enableControllerInNamesrv=true) and give that file too")
        _choice(props, "brokerRole", ROLES, "ASYNC_MASTER", v)
        _integer(props, "brokerId", 0, v)
    if len(brokers) < 2 or len(brokers) > MAX_BROKERS:
        culprit = brokers[MAX_BROKERS] if len(brokers) > MAX_BROKERS else brokers[0]
        raise _bad(culprit, "enableControllerMode", f"{len(brokers)} controller-mode broker file"
                                                    f"{'s' if len(brokers) != 1 else ''} given; the model's broker "
                                                    f"group has 2 to {MAX_BROKERS} brokers (one file each)")
    _same_group(brokers, v)
    out = BrokerSettings(files=[p.name for p in files])
    first = brokers[0]
    out.values["brokers"] = len(brokers)
    out.sources["brokers"] = f"{len(brokers)} broker files"
    _set_agreed(out, brokers, "all_ack_in_sync_state_set", "allAckInSyncStateSet", _boolean, False)
    for key, knob in (("inSyncReplicas", "in_sync_replicas"), ("minInSyncReplicas", "min_in_sync_replicas")):
        value = _set_agreed(out, brokers, knob, key, _integer, 1)
        if not 1 <= value <= len(brokers):
            culprit = next(p for p in brokers if key in p.values)
            raise _bad(culprit, key, f"value {value}: the model takes 1..{len(brokers)} (1 to the brokers given)")
    _set_agreed(out, brokers, "flush_disk_type", "flushDiskType",
                lambda p, key, default, version: _choice(p, key, FLUSH_TYPES, default, version), "ASYNC_FLUSH")
    for props in brokers:
        if _boolean(props, "slaveReadEnable", False, v):
            raise _bad(props, "slaveReadEnable", "true is not modelled in the controller mode (a slave rejects "
                                                 "pulls: PullMessageProcessor#rejectRequest); remove it or set false")
        _boolean(props, "enableDLegerCommitLog", False, v)
    _election_priority(brokers, out)
    if controllers:
        _set_agreed(out, controllers, "enable_elect_unclean_master", "enableElectUncleanMaster", _boolean, False)
    for props in controllers:
        in_namesrv = _boolean(props, "enableControllerInNamesrv", False, v)
        if set(props.values) & NAMESRV_KEYS_5 - CONTROLLER_KEYS_5 and not in_namesrv:
            raise _bad(props, "enableControllerInNamesrv", "a name server's file without "
                                                           "enableControllerInNamesrv=true runs no controller, so "
                                                           "its controller settings are not read; set it true")
    for props in brokers:
        for key in props.values:
            if key in CONTROLLER_ADDRESSES:
                out.skip(key, "the model has one controller")
            elif key in ("brokerId", "brokerRole"):
                out.skip(key, "the controller assigns it")
            elif key not in IDENTITY and key not in MAPPED_5:
                out.skip(key, "" if key in BROKER_KEYS_5 else "not a RocketMQ 5.3.3 broker setting")
    for props in controllers:
        for key in props.values:
            if key in CONTROLLER_ADDRESSES:
                out.skip(key, "the model has one controller")
            elif key not in CONTROLLER_MAPPED:
                out.skip(key, "" if key in CONTROLLER_KEYS_5 | NAMESRV_KEYS_5 else "not a RocketMQ 5.3.3 controller "
                                                                                   "setting")
    return out


def _election_priority(brokers: Sequence[Properties], out: BrokerSettings) -> None:
    """``brokerElectionPriority``: each broker's own (``BrokerConfig``), sent in its heartbeats to the
    controller (``ReplicasManager#sendHeartbeatToController``) and ranked by ``DefaultElectPolicy`` (the lower
    first among equal epochs and max offsets), so the files may differ: ``broker_election_priority`` is one
    value when they agree, else one per broker in the order the files are given (controller ids 1..n).
    Absent: ``Integer.MAX_VALUE``, RocketMQ's default. ``MixAll#properties2Object`` reads it with
    ``Integer#parseInt`` (no trim): a value that is no int is ignored by RocketMQ and refused here, and a
    negative one is refused since the comparator's int subtraction overflows for it (not modelled)."""
    key, v = "brokerElectionPriority", "5.3.3"
    values = []
    for props in brokers:
        value = _integer(props, key, ELECTION_PRIORITY_DEFAULT, v)
        if value > ELECTION_PRIORITY_DEFAULT:
            raise _bad(props, key, f"value {value} is beyond an int (RocketMQ {v} would ignore it and keep "
                                   f"{ELECTION_PRIORITY_DEFAULT})")
        if value < 0:
            raise _bad(props, key, f"value {value}: a negative priority is not modelled (DefaultElectPolicy "
                                   "subtracts two priorities as ints, which overflows against a large one); "
                                   f"use 0..{ELECTION_PRIORITY_DEFAULT}, the lower elected first")
        values.append(value)
    knob = "broker_election_priority"
    given = [p for p in brokers if key in p.values]
    if len(set(values)) == 1:
        out.values[knob] = str(values[0])
        out.sources[knob] = (f"{key} in {given[0].path.name}" if len(given) == len(brokers) else
                             f"no {key} in the files: RocketMQ's default" if not given else
                             f"{key} {values[0]} in {given[0].path.name}, RocketMQ's default elsewhere")
        return
    out.values[knob] = "-".join(str(x) for x in values)
    out.sources[knob] = f"{key} per broker: " + "; ".join(
        f"{x} in {p.path.name}" if key in p.values else f"RocketMQ's default ({x}): none in {p.path.name}"
        for x, p in zip(values, brokers))


def _set_agreed(out: BrokerSettings, files: Sequence[Properties], knob: str, key: str, read: Any, default: Any) -> Any:
    """Set ``knob`` from ``key`` as every file gives it (see :func:`_agreed`), saying where it came from."""
    value = _agreed(files, key, read, default)
    holder = next((p for p in files if key in p.values), None)
    if holder is not None:
        out.set(knob, value, key, holder)
    else:
        out.values[knob] = value
        out.sources[knob] = f"no {key} in the files: RocketMQ's default"
    return value


def _agreed(files: Sequence[Properties], key: str, read: Any, default: Any) -> Any:
    """A setting the model holds once for all these files: every file must say the same (absent: ``default``)."""
    values = [(read(p, key, default, "5.3.3"), p) for p in files]
    first_value, first = values[0]
    for value, p in values[1:]:
        if value != first_value:
            shown = (lambda x: str(x).lower()) if isinstance(value, bool) else str
            raise _bad(p, key, f"{shown(value)} here but {shown(first_value)} in {first.name!r}; the model has one "
                               f"{key} for these brokers (any may become master): set it alike in every file")
    return first_value
def _same_group(files: list[Properties], version: str = "4.4") -> None:
    """Every file names the same cluster and broker group (RocketMQ defaults: DefaultCluster, the host name;
    a file without brokerName is compared as it would start: on its host's name, unknown here). 5.x trims
    these names (``MixAll#properties2Object``); 4.4 keeps blanks, refused."""
    def name(props: Properties, key: str) -> str | None:
        value = _plain(props, key, version) if version == "4.4" else props.get(key)
        return value.strip() if value is not None else None

    for key in ("brokerClusterName", "brokerName"):
        first = next((p for p in files if p.get(key) is not None), None)
        if first is None:
            continue
        for props in files:
            value = name(props, key)
            if value is not None and value != name(first, key):
                raise _bad(props, key, f"{key}={value!r} but {first.name!r} has {key}={name(first, key)!r}; the "
                                       "files of one broker group name the same one")


def _agreed_boolean(brokers: Sequence[Broker], key: str, these: str = "these brokers",
                    files: str = "every file") -> bool:
    """A boolean the model holds once for all these brokers: every file must say the same (absent: false)."""
    values = [(_boolean(b.props, key), b) for b in brokers]
    first_value, first = values[0]
    for value, b in values[1:]:
        if value != first_value:
            raise _bad(b.props, key, f"{str(value).lower()} here but {str(first_value).lower()} in "
                                     f"{first.props.name!r}; the model has one {key} for {these}: set it "
                                     f"alike in {files}")
    return first_value


def _slave_read(master: Broker, slaves: Sequence[Broker], out: BrokerSettings) -> None:
    """``slaveReadEnable``, which ``PullMessageProcessor#processRequest`` reads on the broker serving the
    pull: the master's is ``slave_read_enable`` (whether it suggests a slave); each slave's own, where one
    differs from the master's, is ``slave_read_enable_in_slaves`` (whether that slave suggests itself again
    or the master): TRUE or FALSE when the slaves agree, else one word per slave in brokerId order
    (``TRUE-FALSE``). RocketMQ's default is false, so a master with ``slaveReadEnable=true`` beside a slave
    file without it is the common case."""
    m = master.props
    value = _boolean(m, "slaveReadEnable")
    out.set("slave_read_enable", value, "slaveReadEnable", m)
    if not slaves:
        return
    own = [_boolean(b.props, "slaveReadEnable") for b in slaves]
    if all(v == value for v in own):
        out.values["slave_read_enable_in_slaves"] = "AS_MASTER"
        out.sources["slave_read_enable_in_slaves"] = "slaveReadEnable alike in every file"
        return
    words = ["TRUE" if v else "FALSE" for v in own]
    out.values["slave_read_enable_in_slaves"] = words[0] if len(set(words)) == 1 else "-".join(words)
    said = [f"{str(v).lower()} in {b.props.path.name}" if "slaveReadEnable" in b.props.values
            else f"RocketMQ's default (false): none in {b.props.path.name}" for v, b in zip(own, slaves)]
    out.sources["slave_read_enable_in_slaves"] = "slaveReadEnable " + "; ".join(said) if len(said) > 1 else (
        f"slaveReadEnable in {slaves[0].props.path.name}" if "slaveReadEnable" in slaves[0].props.values
        else f"no slaveReadEnable in {slaves[0].props.path.name}: RocketMQ's default (false)")


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
    raw = _text_file(path, "--group-config")
    found = _GROUP_LINE.findall(raw)
    if len(found) > 1:
        raise BadInput(f"--group-config {path!r}: {len(found)} 'SubscriptionGroupConfig [...]' lines; the file "
                       "describes one subscription group: keep one")
    try:
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

