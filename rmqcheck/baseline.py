"""The invariant gate's baseline file: configurations and the verdict expected for each property.

A baseline is TOML, one ``[[configuration]]`` table per configuration::

    [[configuration]]
    name = "default-1-message"        # unique; shown in the gate's diff
    preset = "default"                # optional, default "default" (a controller preset: controller mode); or instead
    # mode = "controller"             # optional: the model mode (default: the preset's, or the run file's)
    # config = "runs/prod.toml"       # a run file (relative to the baseline): its knobs, broker files, properties
    # rocketmq_version = "4.9.4"      # optional: the RocketMQ release checked (default: the mode's reference)
    properties = ["replicas_agree"]   # optional, default: every property
    [configuration.set]               # optional knob values on top of the preset
    messages = 1
    [configuration.expect]            # written by ``rmqcheck gate --update`` from exploration
    replicas_agree = "violated"

Verdicts are never typed by hand: ``--update`` rewrites every ``expect`` table from what exploration
produced, in place: the file's comments and layout stay. Anything malformed (bad TOML, an unknown key, knob, preset, property or verdict word) is bad
input, reported with the file and the entry.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explore.result import HOLDS, REACHED, S_VIOLATED, UNKNOWN, UNREACHED, CheckResult
from invariants.base import ALWAYS, EVENTUALLY, FAIRNESS_MODES, GRAPH, SOMETIMES, Fairness, UnknownPropertyError
from model.knobs import ConfigError
from model.modes import check_knobs, mode_of, resolve_mode
from model.input_text import InputFileError, parse_bounded, read_input_text

from .setup import BadInput

#: verdict words a property of each kind can have
VERDICTS = {ALWAYS: (HOLDS, S_VIOLATED, UNKNOWN), GRAPH: (HOLDS, S_VIOLATED, UNKNOWN),
            SOMETIMES: (REACHED, UNREACHED, UNKNOWN), EVENTUALLY: (HOLDS, S_VIOLATED, UNKNOWN)}
ENTRY_KEYS = ("name", "mode", "preset", "config", "rocketmq_version", "properties", "set", "fairness", "unfair",
              "expect")


@dataclass
class BaselineEntry:
    """One configuration of the baseline and the verdicts it expects."""

    name: str
    preset: str
    knobs: dict[str, Any]
    properties: tuple[str, ...]
    listed: bool                      # properties given explicitly in the file
    config: Any                       # the typed configuration, of its mode
    expect: dict[str, str] = field(default_factory=dict)
    fairness: Fairness = Fairness()   # of its eventually properties (fairness = "...", unfair = [...])


def _fail(path: str, entry: str, message: str) -> BadInput:
    where = f"baseline {path!r}" + (f", configuration {entry}" if entry else "")
    return BadInput(f"{where}: {message}")


def load_baseline(path: str | Path, need_expect: bool = True) -> list[BaselineEntry]:
    """Read and validate a baseline; ``need_expect=False`` (for ``--update``) allows missing verdicts."""
    from .setup import check_input_file

    where = str(path)
    check_input_file(path, "baseline")
    try:
        data = parse_bounded(tomllib.loads, read_input_text(path, "baseline"), "TOML", f"baseline {where!r}")
    except InputFileError as exc:
        raise BadInput(str(exc)) from None
    extra = sorted(set(data) - {"configuration"})
    if extra:
        raise _fail(where, "", f"unknown top-level key '{extra[0]}'; allowed: [[configuration]] tables")
    tables = data.get("configuration")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise _fail(where, "", "no [[configuration]] tables; each names a configuration (name, preset, set)")
    entries: list[BaselineEntry] = []
    for i, table in enumerate(tables, start=1):
        entry = _entry(where, i, table, need_expect)
        if any(e.name == entry.name for e in entries):
            raise _fail(where, entry.name, "the name is used twice; names must be unique")
        entries.append(entry)
    return entries


def _entry(where: str, i: int, table: dict[str, Any], need_expect: bool) -> BaselineEntry:
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(where, f"#{i}", "missing name = \"...\" (a unique name for the configuration)")
    extra = sorted(set(table) - set(ENTRY_KEYS))
    if extra:
        raise _fail(where, name, f"unknown key '{extra[0]}'; allowed: {', '.join(ENTRY_KEYS)}")
    mode_name = table.get("mode")
    knobs = table.get("set", {})
    if not isinstance(table.get("preset", ""), str) or not isinstance(mode_name, (str, type(None))):
        raise _fail(where, name, "preset and mode must be strings")
    if not isinstance(knobs, dict):
        raise _fail(where, name, "set must be a table of knob = value")
    if "rocketmq_version" in knobs:
        raise _fail(where, name, "set: rocketmq_version is not a knob; write rocketmq_version = \"X.Y.Z\" in the "
                                 "configuration itself (it sets every version switch; set then changes one)")
    run_properties = None
    try:
        mode = resolve_mode(mode_name, table.get("preset"), _run_file_path(where, name, table.get("config")))
        preset_name = table.get("preset", mode.default_preset)
        check_knobs(mode, list(knobs))
        if "config" in table:
            if "preset" in table:
                raise _fail(where, name, "preset and config cannot be used together; give one of them")
            base, run_properties = _run_file(where, name, table["config"], mode)
        else:
            base = mode.preset(preset_name)
        if "rocketmq_version" in table:   # the release's switches, then the set table's knobs
            from model.versions import with_release
            base = with_release(base, table["rocketmq_version"], "rocketmq_version")
        config = mode.from_mapping(knobs, base=base)
    except ConfigError as exc:
        raise _fail(where, name, str(exc)) from None
    properties = mode.properties()
    listed = "properties" in table or run_properties is not None
    names = table.get("properties", run_properties or properties.names())
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise _fail(where, name, "properties must be a non-empty list of property names")
    try:
        props = properties.select(names)
    except UnknownPropertyError as exc:
        raise _fail(where, name, str(exc)) from None
    fairness = _fairness(where, name, table, config)
    expect = table.get("expect", {})
    if not isinstance(expect, dict):
        raise _fail(where, name, "expect must be a table of property = \"verdict\"")
    for prop_name, verdict in expect.items():
        try:
            kind = properties.get(prop_name).kind
        except UnknownPropertyError as exc:
            raise _fail(where, name, f"expect: {exc}") from None
        if prop_name not in props.names():
            raise _fail(where, name, f"expect names {prop_name}, which is not in its properties list")
        if verdict not in VERDICTS[kind]:
            raise _fail(where, name, f"expect: {prop_name} = {verdict!r} is not a verdict of a {kind} property; "
                                     f"allowed: {', '.join(VERDICTS[kind])}")
    if need_expect:
        missing = [n for n in props.names() if n not in expect]
        if missing:
            raise _fail(where, name, f"no expected verdict for {missing[0]}; run 'rmqcheck gate --baseline "
                                     f"{where} --update' to record verdicts from exploration")
    return BaselineEntry(name.strip(), preset_name, dict(knobs), tuple(props.names()), listed, config, dict(expect),
                         fairness)


def _fairness(where: str, name: str, table: dict[str, Any], config: Any) -> Fairness:
    """An entry's ``fairness = "weak"|"strong"|"none"`` and ``unfair = ["ActionKind", ...]`` (as ``check
    --fairness`` and ``--unfair`` give them; action kinds of ``config``'s mode)."""
    from explore.fairness import unknown_kinds
    mode = table.get("fairness", "weak")
    if mode not in FAIRNESS_MODES:
        raise _fail(where, name, f"fairness = {mode!r}; allowed: {', '.join(FAIRNESS_MODES)}")
    unfair = table.get("unfair", [])
    if not isinstance(unfair, list) or not all(isinstance(k, str) for k in unfair):
        raise _fail(where, name, "unfair must be a list of action kinds, e.g. [\"MasterRestart\"]")
    known = list(mode_of(config).kinds()) if unfair else []
    bad = unknown_kinds(unfair, known)
    if bad:
        raise _fail(where, name, f"unfair: {bad[0]!r} is not an action kind")
    return Fairness(mode, tuple(unfair))


def _run_file_path(where: str, name: str, config: Any) -> str | None:
    """The path of an entry's run file (``config = "FILE"``), inside the baseline's directory; None without."""
    from .run_file import inside

    if config is None:
        return None
    if not isinstance(config, str) or not config:
        raise _fail(where, name, "config must be the path of a run file (TOML)")
    try:
        return str(inside(Path(where).parent, config, "config"))
    except BadInput as exc:
        raise _fail(where, name, str(exc)) from None


def _run_file(where: str, name: str, config: Any, mode: Any) -> tuple[Any, list[str] | None]:
    """A configuration's ``config = "FILE"``: the run file's knobs in the entry's ``mode`` (with its broker
    files applied) and its properties (None when it names none), the path taken inside the baseline's
    directory (rmqcheck/run_file.py ``inside``: a baseline in a pull request reads no file outside it). Its
    limits, engine and threads are the command line's: the gate explores without limits."""
    from model.modes import base_config

    from .broker_conf import read_broker_group
    from .run_file import read_run_table

    path = _run_file_path(where, name, config)
    try:
        cfg = base_config(mode, None, path)
        run = read_run_table(path)
        if run.get("broker_confs") or run.get("group_config"):
            settings = read_broker_group(run.get("broker_confs") or (), run.get("group_config"), mode.name,
                                         f"config = {config!r} (a run file of mode {mode.name})")
            cfg = mode.from_mapping(settings.values, base=cfg)
    except (BadInput, ConfigError) as exc:
        raise _fail(where, name, str(exc)) from None
    return cfg, run.get("property_names")


def explored_note(result: CheckResult) -> str:
    s = result.stats
    return f"explored: {s.distinct_states:,} distinct states, {s.transitions:,} transitions, depth {s.depth}"


def updated_baseline(text: str, entries: list[BaselineEntry], results: list[CheckResult]) -> str:
    """``text`` (a baseline ``load_baseline`` accepted) with every ``expect`` table taken from ``results``
    (one per entry), edited in place with tomlkit: the file's comments, order, spacing and quoting stay as
    the user wrote them. Each configuration's ``# explored: ...`` line is refreshed; one without such a line
    gets the note as the comment of its ``[configuration.expect]`` header."""
    import tomlkit
    from tomlkit.items import Comment, Table

    doc = tomlkit.parse(text)
    for table, entry, result in zip(doc["configuration"], entries, results):
        note = explored_note(result)
        body = table.value.body
        refreshed = False
        for i, (key, item) in enumerate(body):
            if key is None and isinstance(item, Comment) and item.as_string().strip().startswith("# explored:"):
                body[i] = (None, tomlkit.comment(note))
                refreshed = True
        expect = table.get("expect")
        if not isinstance(expect, Table):
            expect = tomlkit.table()
            table["expect"] = expect
            expect = table["expect"]
        verdicts = {p.name: p.status for p in result.properties}
        for name in [k for k in expect if k not in verdicts]:
            del expect[name]
        for name, status in verdicts.items():
            if expect.get(name) != status:
                expect[name] = status
        if not refreshed:
            expect.comment(note)
    return tomlkit.dumps(doc)


def check_updatable(path: str, text: str, entries: list[BaselineEntry]) -> None:
    """Before exploring for ``--update``: bad input unless :func:`updated_baseline` can rewrite ``text``
    (tried with placeholder results), e.g. not for configurations written as an inline array of tables
    (``configuration = [{...}]``), which cannot take an ``expect`` table with its comment."""
    from types import SimpleNamespace

    placeholders = [SimpleNamespace(stats=SimpleNamespace(distinct_states=0, transitions=0, depth=0),
                                    properties=[SimpleNamespace(name=n, status=UNKNOWN) for n in e.properties])
                    for e in entries]
    updated_text(path, text, entries, placeholders)


def updated_text(path: str, text: str, entries: list[BaselineEntry], results: list[Any]) -> str:
    """:func:`updated_baseline`, with a layout it cannot rewrite as bad input naming the file."""
    try:
        return updated_baseline(text, entries, results)
    except Exception as exc:   # tomlkit refuses an edit (ValueError, its own TOMLKitError...)
        raise _fail(path, "", f"--update cannot rewrite this layout ({' '.join(str(exc).split())}); write each "
                              "configuration as a [[configuration]] table") from None


def differences(entry: BaselineEntry, result: CheckResult) -> list[tuple[str, str, str, str]]:
    """``(configuration, property, expected, got)`` for every verdict that differs."""
    got = result.verdicts()
    return [(entry.name, name, expected, got.get(name, "missing"))
            for name, expected in entry.expect.items() if got.get(name) != expected]
