"""Config validation: every knob of model-scope.md, ``--set`` parsing, TOML loading and the presets.

Every bad input must raise ONE :class:`ConfigError` whose one-line message names the key, the value
given and the allowed values (design.md rule 8), so the CLI can print it as is.
"""
from __future__ import annotations

import dataclasses
import os

import pytest

from model import Config, RocketMQModel
from model.config import KNOBS, PER_SLAVE_READ, PRESETS, ConfigError, load_toml, preset

KNOB = {k.key: k for k in KNOBS}

# model-scope.md, "Knobs": the public names, values and defaults (an interface: keep them exactly)
SCOPE_DEFAULTS = {
    "broker_role": "ASYNC_MASTER", "flush_disk_type": "ASYNC_FLUSH", "slave_read_enable": False,
    "slave_read_enable_in_slaves": "AS_MASTER",   # issue 44: the slaves' own slaveReadEnable
    "offset_check_in_slave": False, "group_broker_id": 0, "which_broker_when_consume_slowly": 1,
    "consume_slowly_backlog": 1, "slaves": 1, "consumers": 1, "messages": 2, "queues": 1,
    "monotonic_commit": False, "sync_offsets_max": False, "reverse_offset_sync": False,
    "overflow_to_max": False, "validate_slave_ack": False,
    # version switches (model/versions_44.py): 4.4.0's rule by default
    "ha_close_on_ack_beyond_master_max": False, "subscribe_try_next_slave_id": False,
    # model-scope.md "Scope, wave 2"
    "pull_batch_in_memory": 0, "pull_batch_in_disk": 0, "commitlog_file_messages": 0, "max_file_deletions": 0,
    "ha_fallbehind_max": 0,
}
BUDGETS = ("max_master_crashes", "max_master_power_losses", "max_slave_crashes", "max_slave_power_losses",
           "max_consumer_restarts", "max_ha_disconnects")
INT_RANGES = {
    "group_broker_id": (0, 3), "which_broker_when_consume_slowly": (0, 3), "consume_slowly_backlog": (0, 8),
    "slaves": (0, 3), "consumers": (1, 3), "messages": (1, 8), "queues": (1, 2),
    **{b: (0, 3) for b in BUDGETS},
    "pull_batch_in_memory": (0, 8), "pull_batch_in_disk": (0, 8), "commitlog_file_messages": (0, 8),
    "max_file_deletions": (0, 3), "ha_fallbehind_max": (0, 8),
}
BOOLS = ("slave_read_enable", "offset_check_in_slave", "monotonic_commit", "sync_offsets_max",
         "reverse_offset_sync", "overflow_to_max", "validate_slave_ack", "ha_close_on_ack_beyond_master_max",
         "subscribe_try_next_slave_id")
ENUMS = {"broker_role": ("ASYNC_MASTER", "SYNC_MASTER"), "flush_disk_type": ("ASYNC_FLUSH", "SYNC_FLUSH"),
         "slave_read_enable_in_slaves": ("AS_MASTER", "FALSE", "TRUE", *PER_SLAVE_READ)}


def one_line_error(excinfo: pytest.ExceptionInfo, *parts: str, path=None) -> str:
    """The error is exactly one ConfigError with a one-line message containing every part (outside the
    file path ``path``, whose digits must not satisfy a check by accident)."""
    message = str(excinfo.value)
    assert type(excinfo.value) is ConfigError
    assert "\n" not in message and message.strip() == message and message
    if path is not None:
        message = message.replace(str(path), "<file>")
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
    return message


def consistent(key: str, value) -> dict:
    """``{key: value}`` plus what keeps the other knobs consistent with it (e.g. enough slaves)."""
    values = {key: value}
    if key in ("group_broker_id", "which_broker_when_consume_slowly") and value > 1:
        values["slaves"] = 3
    if key == "slaves" and value == 0:
        values["which_broker_when_consume_slowly"] = 0
    if key == "consume_slowly_backlog" and value > 2:
        values["messages"] = 8
    if key == "max_file_deletions" and value > 0:
        values["commitlog_file_messages"] = 1
    return values


def test_file_deletions_need_files_and_one_queue():
    with pytest.raises(ConfigError) as excinfo:
        Config.from_mapping({"max_file_deletions": 1})
    one_line_error(excinfo, "max_file_deletions", "commitlog_file_messages")
    with pytest.raises(ConfigError) as excinfo:
        Config.from_mapping({"max_file_deletions": 1, "commitlog_file_messages": 2, "queues": 2})
    one_line_error(excinfo, "max_file_deletions", "queues=2")


# --- the knob table ----------------------------------------------------------------------------------
def test_knob_table_is_exactly_model_scope():
    assert {k.key for k in KNOBS} == set(SCOPE_DEFAULTS) | set(BUDGETS)
    # every field is a knob but the release checked, which sets the version switches (model/versions.py)
    assert {f.name for f in dataclasses.fields(Config)} == {k.key for k in KNOBS} | {"rocketmq_version"}
    defaults = Config().as_dict()
    for key, value in SCOPE_DEFAULTS.items():
        assert defaults[key] == value, key
        assert KNOB[key].default == value, key
    for key, (low, high) in INT_RANGES.items():
        assert KNOB[key].kind == "int" and KNOB[key].allowed == (low, high), key
    for key in BOOLS:
        assert KNOB[key].kind == "bool", key
    for key, values in ENUMS.items():
        assert KNOB[key].kind == "enum" and KNOB[key].allowed == values, key


def test_defaults_are_valid_and_short_text():
    assert Config().short() == "RocketMQ 4.4.0 defaults"
    assert Config.from_mapping({"slaves": 2}).short() == "RocketMQ 4.4.0, slaves=2"
    assert Config.from_mapping({"slave_read_enable": True}).short() == "RocketMQ 4.4.0, slave_read_enable=true"
    assert Config.from_mapping({"rocketmq_version": "4.9.4", "slaves": 2}).short() == "RocketMQ 4.9.4, slaves=2"


# --- every value allowed is accepted -------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(INT_RANGES))
def test_int_knob_accepts_its_whole_range(key):
    low, high = INT_RANGES[key]
    for value in range(low, high + 1):
        cfg = Config.from_mapping(consistent(key, value))
        assert getattr(cfg, key) == value and type(getattr(cfg, key)) is int


@pytest.mark.parametrize("key", BOOLS)
def test_bool_knob_accepts_true_false_and_their_text(key):
    for given, expected in ((True, True), (False, False), ("true", True), ("False", False), ("TRUE", True)):
        assert getattr(Config.from_mapping({key: given}), key) is expected


@pytest.mark.parametrize("key", sorted(ENUMS))
def test_enum_knob_accepts_its_values_in_any_case(key):
    for value in ENUMS[key]:
        fits = {"slaves": value.count("-") + 1} if "-" in value else {}   # a word per slave
        assert getattr(Config.from_mapping({key: value, **fits}), key) == value
        assert getattr(Config.from_mapping({key: value.lower(), **fits}), key) == value


# --- every bad value is one ConfigError naming key, value and allowed values -----------------------------
def test_unknown_key_names_it_and_lists_the_known_knobs():
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"slave_count": 2})
    message = one_line_error(e, "slave_count")
    for key in KNOB:
        assert key in message


@pytest.mark.parametrize("key", sorted(INT_RANGES))
def test_int_knob_out_of_range(key):
    low, high = INT_RANGES[key]
    for bad in (low - 1, high + 1):
        with pytest.raises(ConfigError) as e:
            Config.from_mapping({key: bad})
        one_line_error(e, f"'{key}'", str(bad), f"{low}..{high}")


@pytest.mark.parametrize("key", sorted(INT_RANGES))
@pytest.mark.parametrize("bad", [True, 1.0, "two", "", None, [1], "1.5"], ids=repr)
def test_int_knob_wrong_type(key, bad):
    low, high = INT_RANGES[key]
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({key: bad})
    one_line_error(e, f"'{key}'", repr(bad), f"{low}..{high}")


@pytest.mark.parametrize("key", BOOLS)
@pytest.mark.parametrize("bad", [1, 0, "yes", "on", "", None, 1.0], ids=repr)
def test_bool_knob_wrong_type(key, bad):
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({key: bad})
    one_line_error(e, f"'{key}'", repr(bad), "true, false")


@pytest.mark.parametrize("key,bad", [(key, bad) for key in sorted(ENUMS)
                                     for bad in ["SLAVE", "ASYNC", "", 0, True, None, 1.0, "yes"]
                                     if not (isinstance(bad, bool) and "TRUE" in ENUMS[key])], ids=repr)
def test_enum_knob_bad_value(key, bad):
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({key: bad})
    one_line_error(e, f"'{key}'", repr(bad), *ENUMS[key])


def test_slave_read_enable_in_slaves_takes_booleans_and_follows_the_master_by_default():
    """A TOML ``true``/``false`` is the value TRUE/FALSE; AS_MASTER (the default) is the master's value, so
    ``slave_read_enable`` alone still sets every broker's slaveReadEnable."""
    for given, expected in ((True, "TRUE"), (False, "FALSE"), ("false", "FALSE"), ("as_master", "AS_MASTER")):
        assert Config.from_mapping({"slave_read_enable_in_slaves": given}).slave_read_enable_in_slaves == expected
    assert Config.from_mapping({"slave_read_enable": True}).slaves_read_enable is True
    assert Config().slaves_read_enable is False
    pair = Config.from_mapping({"slaveReadEnable": True, "slave_read_enable_in_slaves": False})
    assert (pair.slave_read_enable, pair.slaves_read_enable) == (True, False)
    assert Config.from_mapping({"slave_read_enable_in_slaves": "TRUE"}).slaves_read_enable is True
    assert pair.short() == "RocketMQ 4.4.0, slave_read_enable=true, slave_read_enable_in_slaves=FALSE"


def test_slave_read_enable_in_slaves_takes_one_word_per_slave():
    """Slaves that disagree: one word per slave in brokerId order (``TRUE-FALSE``), as many as slaves."""
    mixed = Config.from_mapping({"slaves": 2, "slave_read_enable_in_slaves": "true-false"})
    assert (mixed.slave_read_enable_in_slaves, mixed.slave_reads(1), mixed.slave_reads(2)) == ("TRUE-FALSE", True, False)
    assert mixed.slaves_read_enable is False
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"slaves": 3, "slave_read_enable_in_slaves": "TRUE-FALSE"})
    one_line_error(e, "'slave_read_enable_in_slaves'", "2 slaves' values", "slaves=3")
    with pytest.raises(ConfigError):
        Config.from_mapping({"slaves": 2, "slave_read_enable_in_slaves": "TRUE-TRUE"})   # alike: TRUE


def test_brokerrole_slave_is_not_a_master_role():
    """Mechanisms §0: the modelled broker group's brokerId 0 is a master; SLAVE is not a value here."""
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"broker_role": "SLAVE"})
    one_line_error(e, "broker_role", "'SLAVE'", "ASYNC_MASTER, SYNC_MASTER")


def test_direct_construction_validates_too():
    with pytest.raises(ConfigError) as e:
        Config(slaves=4)
    one_line_error(e, "'slaves'", "4", "0..3")
    assert Config(slaves="2").slaves == 2


# --- the inconsistent values ---------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["group_broker_id", "which_broker_when_consume_slowly"])
def test_broker_id_naming_a_missing_slave(key):
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({key: 2, "slaves": 1})
    one_line_error(e, f"'{key}'", "2", "slaves=1", "0..1")
    assert getattr(Config.from_mapping({key: 2, "slaves": 2}), key) == 2


def test_no_slaves_lets_the_broker_ids_not_given_follow():
    """The default whichBrokerWhenConsumeSlowly=1 names slave 1: with slaves=0 alone it follows to 0 (only the
    master is left); a broker id given explicitly with it is still checked."""
    cfg = Config.from_mapping({"slaves": 0})
    assert (cfg.slaves, cfg.group_broker_id, cfg.which_broker_when_consume_slowly) == (0, 0, 0)
    assert Config.from_mapping({"slaves": 0, "which_broker_when_consume_slowly": 0}) == cfg
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"slaves": 0, "which_broker_when_consume_slowly": 1})
    one_line_error(e, "'which_broker_when_consume_slowly'", "1", "slaves=0", "0..0")


def test_broker_ids_follow_only_a_smaller_slave_count():
    """Raising slaves leaves the ids alone; lowering it caps only the ids above it, keeping the others."""
    assert Config.from_mapping({"slaves": 3}).which_broker_when_consume_slowly == 1
    base = Config.from_mapping({"slaves": 3, "group_broker_id": 1, "which_broker_when_consume_slowly": 3})
    cfg = Config.from_mapping({"slaves": 2}, base=base)
    assert (cfg.group_broker_id, cfg.which_broker_when_consume_slowly) == (1, 2)
    rs = Config.from_mapping({"slaves": 0}, base=preset("read-from-slave"))
    assert (rs.slave_read_enable, rs.group_broker_id, rs.which_broker_when_consume_slowly) == (True, 0, 0)


def test_set_slaves_alone_is_enough():
    cfg = Config().with_overrides(["slaves=0"])
    assert (cfg.slaves, cfg.which_broker_when_consume_slowly) == (0, 0)
    with pytest.raises(ConfigError) as e:
        Config().with_overrides(["slaves=0", "group_broker_id=1"])
    one_line_error(e, "'group_broker_id'", "1", "slaves=0", "0..0")


def test_backlog_above_messages():
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"consume_slowly_backlog": 3, "messages": 2})
    one_line_error(e, "'consume_slowly_backlog'", "3", "messages=2", "0..2")
    assert Config.from_mapping({"consume_slowly_backlog": 2, "messages": 2}).consume_slowly_backlog == 2


def test_consistency_is_checked_on_the_result_of_all_values():
    """Values are checked together: raising slaves in the same mapping makes a broker id valid."""
    cfg = Config.from_mapping({"group_broker_id": 3, "which_broker_when_consume_slowly": 3, "slaves": 3})
    assert (cfg.group_broker_id, cfg.which_broker_when_consume_slowly) == (3, 3)
    # ... and on top of a base: lowering slaves makes the base's broker ids follow, unless given again
    lowered = Config.from_mapping({"slaves": 1}, base=cfg)
    assert (lowered.group_broker_id, lowered.which_broker_when_consume_slowly) == (1, 1)
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"slaves": 1, "group_broker_id": 3}, base=cfg)
    one_line_error(e, "'group_broker_id'", "3", "slaves=1", "0..1")


# --- --set ---------------------------------------------------------------------------------------------
def test_with_overrides_parses_key_value_strings():
    cfg = Config().with_overrides(["slaves=2", "messages=3", "broker_role=sync_master",
                                   "slave_read_enable=true", "group_broker_id=2"])
    assert (cfg.slaves, cfg.messages, cfg.broker_role, cfg.slave_read_enable, cfg.group_broker_id) == \
        (2, 3, "SYNC_MASTER", True, 2)
    assert Config().with_overrides([]) == Config()


def test_with_overrides_later_assignment_wins_and_keeps_the_base():
    base = preset("sync-master")
    cfg = base.with_overrides(["messages=3", "messages=4"])
    assert cfg.messages == 4 and cfg.broker_role == "SYNC_MASTER"


@pytest.mark.parametrize("item", ["slaves", "=2", " =2", ""])
def test_with_overrides_needs_key_equals_value(item):
    with pytest.raises(ConfigError) as e:
        Config().with_overrides([item])
    one_line_error(e, "--set", repr(item), "key=value")


@pytest.mark.parametrize("item, key, value, allowed", [
    ("slaves=9", "slaves", "9", "0..3"),
    ("slaves=", "slaves", "''", "0..3"),
    ("slaves=two", "slaves", "'two'", "0..3"),
    ("broker_role=SLAVE", "broker_role", "'SLAVE'", "ASYNC_MASTER, SYNC_MASTER"),
    ("monotonic_commit=1", "monotonic_commit", "'1'", "true, false"),
])
def test_with_overrides_bad_value(item, key, value, allowed):
    with pytest.raises(ConfigError) as e:
        Config().with_overrides([item])
    one_line_error(e, f"'{key}'", value, allowed)


def test_with_overrides_unknown_key():
    with pytest.raises(ConfigError) as e:
        Config().with_overrides(["slave=2"])
    one_line_error(e, "'slave'", "slaves")


# --- TOML ----------------------------------------------------------------------------------------------
def write(tmp_path, text: str):
    path = tmp_path / "rmq.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_top_level_knobs(tmp_path):
    cfg = load_toml(write(tmp_path, 'slaves = 2\nbroker_role = "SYNC_MASTER"\nmonotonic_commit = true\n'))
    assert (cfg.slaves, cfg.broker_role, cfg.monotonic_commit) == (2, "SYNC_MASTER", True)
    assert cfg.messages == 2  # the rest keeps the 4.4 defaults


def test_toml_config_table_and_preset(tmp_path):
    cfg = load_toml(write(tmp_path, 'preset = "sync-flush"\n[config]\nmessages = 3\n'))
    assert (cfg.flush_disk_type, cfg.messages) == ("SYNC_FLUSH", 3)
    cfg = load_toml(write(tmp_path, '[config]\nqueues = 2\n'))
    assert cfg.queues == 2 and cfg.flush_disk_type == "ASYNC_FLUSH"


def test_toml_preset_inside_the_config_table(tmp_path):
    cfg = load_toml(write(tmp_path, '[config]\npreset = "sync-flush"\nmessages = 3\n'))
    assert cfg == Config.from_mapping({**PRESETS["sync-flush"], "messages": 3})
    with pytest.raises(ConfigError) as e:
        load_toml(write(tmp_path, '[config]\npreset = "fast"\n'))
    one_line_error(e, "'fast'", "known presets", path=tmp_path / "rmq.toml")


def test_toml_slaves_zero_alone_lets_the_broker_ids_follow(tmp_path):
    cfg = load_toml(write(tmp_path, 'preset = "read-from-slave"\nslaves = 0\n'))
    assert (cfg.slaves, cfg.group_broker_id, cfg.which_broker_when_consume_slowly) == (0, 0, 0)


def test_toml_preset_at_top_level_with_knobs(tmp_path):
    cfg = load_toml(write(tmp_path, 'preset = "read-from-slave"\nmessages = 4\n'))
    assert cfg == Config.from_mapping({**PRESETS["read-from-slave"], "messages": 4})


def test_toml_values_override_the_base(tmp_path):
    cfg = load_toml(write(tmp_path, "messages = 5\n"), base=preset("bench"))
    assert cfg == Config.from_mapping({**PRESETS["bench"], "messages": 5})


def test_toml_empty_file_is_the_defaults(tmp_path):
    assert load_toml(write(tmp_path, "")) == Config()


@pytest.mark.parametrize("text, parts", [
    ("slaves = 7\n", ["'slaves'", "7", "0..3"]),
    ("slaves = 2.0\n", ["'slaves'", "2.0", "0..3"]),
    ('slaves = "x"\n', ["'slaves'", "'x'", "0..3"]),
    ("monotonic_commit = 1\n", ["'monotonic_commit'", "1", "true, false"]),
    ('flush_disk_type = "SOMETIMES"\n', ["'flush_disk_type'", "'SOMETIMES'", "ASYNC_FLUSH, SYNC_FLUSH"]),
    ("nope = 1\n", ["'nope'", "known knobs", "broker_role"]),
    ("[config]\nnope = 1\n", ["'nope'", "known knobs"]),
    ("group_broker_id = 1\nslaves = 0\nwhich_broker_when_consume_slowly = 0\n",
     ["'group_broker_id'", "1", "0..0"]),
    ('preset = "fast"\n', ["'fast'", "known presets", "default", "sync-master"]),
    ("preset = 3\n", ["preset 3", "known presets"]),
    ("slaves = [1, 2]\n", ["'slaves'", "[1, 2]", "plain value", "0..3"]),
    ("[slaves]\nx = 1\n", ["'slaves'", "{'x': 1}", "plain value", "0..3"]),
    ("[config]\nslaves = { n = 1 }\n", ["'slaves'", "{'n': 1}", "plain value", "0..3"]),
    ('monotonic_commit = [true]\n', ["'monotonic_commit'", "[True]", "true, false"]),
    ("[config]\npreset = 3\n", ["preset 3", "known presets"]),
    ("messages = 3\n[config]\nslaves = 2\n", ["'messages'", "[config]"]),
])
def test_toml_bad_content(tmp_path, text, parts):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, *parts, path=path)


def test_toml_list_value_names_the_allowed_values(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_toml(write(tmp_path, "slaves = [1, 2]\n"))
    one_line_error(e, "'slaves'", "[1, 2]", "0..3", path=tmp_path / "rmq.toml")


def test_toml_non_string_preset_names_the_value(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_toml(write(tmp_path, "preset = 31337\n"))
    one_line_error(e, "preset 31337", "is not a preset name", "known presets", *PRESETS, path=tmp_path / "rmq.toml")


def test_toml_malformed(tmp_path):
    path = write(tmp_path, "slaves = = 2\n")
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, str(path), "not valid TOML")


def test_toml_missing_file(tmp_path):
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, str(path), "cannot read")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_toml_unreadable_file(tmp_path):
    path = write(tmp_path, "slaves = 2\n")
    path.chmod(0)
    try:
        with pytest.raises(ConfigError) as e:
            load_toml(path)
        one_line_error(e, str(path), "cannot read")
    finally:
        path.chmod(0o600)


def test_toml_read_permission_denied(tmp_path, monkeypatch):
    """The same check as above when the tests run as root: the read itself fails with EACCES."""
    path = write(tmp_path, "slaves = 2\n")

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    import model.input_text
    monkeypatch.setattr(model.input_text, "open", denied, raising=False)   # input files are read with open()
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, str(path), "cannot read", "Permission denied")


def test_toml_directory_is_unreadable(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_toml(tmp_path)
    one_line_error(e, str(tmp_path), "cannot read")


def test_toml_not_utf8(tmp_path):
    """A file that is not UTF-8 is one ConfigError line naming the file and the first bad byte, not a
    UnicodeDecodeError traceback (design.md rule 8)."""
    path = tmp_path / "latin.toml"
    path.write_bytes(b"# \xff\xfe\nslaves = 2\n")
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, str(path), "not UTF-8", "byte 2")


# --- presets -------------------------------------------------------------------------------------------
def test_presets_of_model_scope_exist():
    assert {"default", "sync-master", "sync-flush", "read-from-slave", "all-switches", "bench"} <= set(PRESETS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_a_model(name):
    cfg = preset(name)
    assert cfg == Config.from_mapping(PRESETS[name])
    m = RocketMQModel(cfg, strict=True)
    (s,) = m.initial()
    assert m.encode(m.view(s)) == s
    assert m.enabled(s), "a preset's initial state must have enabled actions"


def test_preset_contents():
    assert preset("default") == Config()
    assert preset("sync-master").broker_role == "SYNC_MASTER"
    assert preset("sync-flush").flush_disk_type == "SYNC_FLUSH"
    rs = preset("read-from-slave")
    assert rs.slave_read_enable and rs.group_broker_id == 1
    sw = preset("all-switches")
    assert all([sw.monotonic_commit, sw.sync_offsets_max, sw.reverse_offset_sync, sw.overflow_to_max,
                sw.validate_slave_ack, sw.offset_check_in_slave])


def test_unknown_preset():
    with pytest.raises(ConfigError) as e:
        preset("turbo")
    one_line_error(e, "'turbo'", *PRESETS)


# --- strict values (issue 45, item 5) --------------------------------------------------------------------
@pytest.mark.parametrize("item, key", [
    ("messages=\uff11", "messages"),         # a fullwidth digit: str.isdigit and int() take it, rmqcheck does not
    ("messages=\u0661", "messages"),         # an Arabic-Indic digit
    ("slaves=-0", "slaves"),                 # a sign on zero
    ("messages=1_0", "messages"),            # int() reads 10
    ("messages=+1", "messages"),
    ("slave_read_enable=tru\u0435", "slave_read_enable"),   # a Cyrillic e
    ("broker_role=\u017fync_master", "broker_role"),         # a long s, which str.upper() turns into S
])
def test_a_value_in_other_than_plain_ascii_is_refused(item, key):
    with pytest.raises(ConfigError) as e:
        Config().with_overrides([item])
    one_line_error(e, f"'{key}'", "not allowed")


@pytest.mark.parametrize("item", ["messages= 1", "messages =1", " messages=1", "messages=1 ", "messages=\t1",
                                  "broker_role=SYNC_MASTER\u00a0"])
def test_a_set_item_with_a_blank_is_refused(item):
    with pytest.raises(ConfigError) as e:
        Config().with_overrides([item])
    one_line_error(e, "--set", "blank")


@pytest.mark.parametrize("text, parts", [
    ("mode = 5\nmessages = 1\n", ["mode 5", "not a mode name", "4.4, controller"]),
    ('mode = "controller"\nmessages = 1\n', ["mode 'controller'", "read as mode 4.4"]),
    ('mode = ["4.4"]\n', ["mode ['4.4']", "not a mode name"]),
    ('mode = "4.4"\n[config]\nmode = "controller"\n', ["two modes"]),
    ('broker_role = " SYNC_MASTER"\n', ["'broker_role'", "not allowed"]),
    ('messages = "\uff12"\n', ["'messages'", "not allowed"]),
])
def test_toml_values_of_the_wrong_type_or_form(tmp_path, text, parts):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load_toml(path)
    one_line_error(e, *parts, path=path)


def test_toml_mode_4_4_is_read(tmp_path):
    """The one mode line a 4.4 file may carry is its own."""
    assert load_toml(write(tmp_path, 'mode = "4.4"\nmessages = 1\n')) == Config(messages=1)


# --- RocketMQ's names as aliases (issue 44, item 3) ----------------------------------------------------------
def test_rocketmq_names_are_aliases_of_the_knobs():
    cfg = Config().with_overrides(["brokerRole=SYNC_MASTER", "flushDiskType=SYNC_FLUSH", "slaveReadEnable=true",
                                   "offsetCheckInSlave=true", "whichBrokerWhenConsumeSlowly=0"])
    assert cfg == Config(broker_role="SYNC_MASTER", flush_disk_type="SYNC_FLUSH", slave_read_enable=True,
                         offset_check_in_slave=True, which_broker_when_consume_slowly=0)
    assert Config.from_mapping({"brokerRole": "SYNC_MASTER"}) == preset("sync-master")


def test_a_knob_and_its_rocketmq_name_together_are_refused():
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"broker_role": "SYNC_MASTER", "brokerRole": "ASYNC_MASTER"})
    one_line_error(e, "'broker_role'", "'brokerRole'", "twice")


def test_an_alias_is_only_where_the_values_mean_the_same():
    """haSlaveFallbehindMax is bytes, the knob messages; accessMessageInMemoryMaxRatio a percentage: no alias."""
    aliases = {k.key: k.alias for k in KNOBS if k.alias}
    assert aliases == {"broker_role": "brokerRole", "flush_disk_type": "flushDiskType",
                       "slave_read_enable": "slaveReadEnable", "offset_check_in_slave": "offsetCheckInSlave",
                       "which_broker_when_consume_slowly": "whichBrokerWhenConsumeSlowly"}
    for knob in KNOBS:
        if knob.alias:
            assert knob.rocketmq.endswith(knob.alias), knob.key
