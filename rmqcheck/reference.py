"""The documentation's reference tables, written from the declarations in the code so they cannot drift:
the commands and their options (click), the knobs and presets (model/config.py), the properties
(invariants), the actions (model/declare.py), the exit codes (rmqcheck/exit_codes.py) and the RocketMQ
releases with their version switches (model/versions.py).

The documentation site's build hook (docs/hooks/reference.py) replaces each ``<!-- reference:NAME -->``
line of a page with ``tables()[NAME]()``.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import click


def _cell(text: object) -> str:
    """One Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def commands() -> str:
    """Each command: its help text and a table of its options."""
    from .cli import cli

    ctx = click.Context(cli, info_name="rmqcheck")
    parts = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        sub = click.Context(command, info_name=name, parent=ctx)
        usage = " ".join(command.collect_usage_pieces(sub))
        parts += [f"## `rmqcheck {name}`", "", inspect.cleandoc(command.help or ""), "",
                  "```text", f"rmqcheck {name} {usage}", "```", ""]
        rows = []
        for param in command.params:
            if not isinstance(param, click.Option) or param.hidden:
                continue
            record = param.get_help_record(sub)
            if record:
                rows.append((f"`{record[0]}`", record[1]))
        if rows:
            parts += [_table(("option", "meaning"), rows), ""]
    return "\n".join(parts)


def _mode(name: str | None) -> Any:
    from model.modes import DEFAULT_MODE, get_mode
    return get_mode(name or DEFAULT_MODE)


def knobs(mode: str | None = None) -> str:
    """The knob table of ``mode`` (default: the default mode)."""
    rows = []
    for k in _mode(mode).knobs:   # three columns: a wider table hid its meanings off the screen's edge
        default = str(k.default).lower() if isinstance(k.default, bool) else k.default
        meaning = f"{k.rocketmq}: {k.doc}" if k.rocketmq else k.doc
        rows.append((f"`{k.key}`", f"{k.allowed_text()} (default **{default}**)", meaning))
    return _table(("knob", "allowed (default)", "RocketMQ setting: meaning"), rows)


def presets(mode: str | None = None) -> str:
    """The preset table of ``mode`` (default: the default mode)."""
    m = _mode(mode)
    rows = []
    for name, values in m.presets.items():
        knobs_set = ", ".join(f"`{k}={str(v).lower() if isinstance(v, bool) else v}`" for k, v in values.items())
        rows.append((f"`{name}`", m.preset_descriptions.get(name, ""), knobs_set or "(none: every default)"))
    return _table(("preset", "what it is", "knobs it sets"), rows)


def properties(mode: str | None = None) -> str:
    """Each property of ``mode`` (default: the default mode): a table, then its own documentation."""
    props = _mode(mode).properties()
    parts = [_table(("property", "kind", "claim"), [(f"`{p.name}`", p.kind, p.summary) for p in props]), ""]
    for p in props:
        parts += [f"### `{p.name}`", "", f"*{p.kind}*: {p.summary}.", "", inspect.cleandoc(p.doc or ""), ""]
    return "\n".join(parts)


#: what each action argument means, every value a trace may show (tests/test_docs.py: one per declared Arg)
ARGUMENTS: dict[str, str] = {
    "broker": "the brokerId: `0` the master, `1`..`n` the slaves",
    "slave": "the slave's brokerId, `1`..`n`",
    "consumer": "the consumer of the group, `1`..`n`",
    "queue": "the queueId, from `0`",
    "batch": "how many messages a FOUND pull returns when it returns fewer than the queue holds after the pull "
             "offset, `1`..; left out of the label when it returns all of them (`0`)",
    "flush": "under SYNC_FLUSH, how the producer's wait for the flush ends (`CommitLog#handleDiskFlush`): `ok` the "
             "flush completed within syncFlushTimeout, `timeout` it did not and the producer is told "
             "FLUSH_DISK_TIMEOUT; `none` (ASYNC_FLUSH, nothing waited for) is left out of the label",
}


def actions() -> str:
    """The default mode's actions, their RocketMQ methods and the arguments a trace shows."""
    declarations = _mode(None).actions().declarations
    rows = [(f"`{d.name}`", d.actor, ", ".join(f"`{a.name}`" for a in d.args) or "", f"`{d.rocketmq}`", d.phrase)
            for d in declarations()]
    used = list(dict.fromkeys(a.name for d in declarations() for a in d.args))
    return "\n".join([_table(("action", "actor", "arguments", "RocketMQ 4.4", "what it does"), rows), "",
                      "The arguments, as a trace shows them (`Name(argument=value, ...)`):", "",
                      _table(("argument", "values and meaning"), [(f"`{a}`", ARGUMENTS[a]) for a in used])])


def exit_codes() -> str:
    from . import exit_codes as codes

    source = inspect.getsource(codes)
    rows = []
    for name in ("EXIT_OK", "EXIT_VIOLATED", "EXIT_BAD_INPUT", "EXIT_INCOMPLETE", "EXIT_MODEL_ERROR"):
        line = next(ln for ln in source.splitlines() if ln.startswith(f"{name} ="))
        rows.append((getattr(codes, name), line.split("#", 1)[1].strip()))
    return _table(("code", "meaning"), rows)


def _releases(mode: str) -> str:
    """A mode's releases and the switches that change at each, then every switch in full."""
    from .versions_cmd import line_of, release_rows, switch_rows

    line = line_of(mode)
    rows = [(f"`{r}`" if r else "", d, f"`{s}`" if s else "", f"`{c}`" if c else "", rule, m)
            for r, d, s, c, rule, m in release_rows(line)]
    full = [(f"`{n}`", f"`{f}`", f"`{c}`", f"`{r}`", b, m) for n, f, c, r, b, m in switch_rows(line)]
    return "\n".join([_table(("release", "date", "switch", "commit", "rule from this release", "model"), rows), "",
                      _table(("switch", "first release", "commit", "RocketMQ", "rule before", "model"), full)])


def _values(mode: str) -> str:
    """Which release has which rule: a column per group of releases whose modelled switches all agree, a row
    per switch (its knob's value there: false is the rule before its first release); a switch the model
    does not carry says so."""
    from .versions_cmd import line_of

    line = line_of(mode)
    groups: dict[str, list[str]] = {}
    for version in line.versions():
        groups.setdefault(line.same_as(version), []).append(version)
    heads = [vs[0] if len(vs) == 1 else f"{vs[0]} - {vs[-1]}" for vs in groups.values()]
    rows = []
    for s in line.switches:
        if s.modelled:
            cells = [f"`{str(s.value_at(first)).lower()}`" for first in groups]
        else:
            cells = ["5.3.3's rule (not modelled)"] * len(groups)
        rows.append((f"`{s.name}` ({s.first})", *cells))
    return _table(("switch (first release)", *heads), rows)


def _not_modelled(mode: str) -> str:
    from .versions_cmd import line_of

    line = line_of(mode)
    rows = [(c.first, c.change, ", ".join(f"`{h[:10]}`" for h in c.commits), c.why) for c in line.not_modelled]
    return _table(("first release", "change", "commits", "why it is no switch"), rows)


def derive() -> str:
    from model.versions import DERIVE

    return "\n".join(["```sh", *DERIVE, "```"])


TABLES: dict[str, Callable[[], str]] = {
    "commands": commands, "knobs": knobs, "presets": presets, "properties": properties, "actions": actions,
    "exit-codes": exit_codes,
    "derive-versions": derive,
}


def tables() -> dict[str, Callable[[], str]]:
    """Every generated table by name: :data:`TABLES` (the default mode's) and, per model mode of the
    registry, its knobs, presets, properties, releases, the changes it does not model and which release
    has which switch value (``knobs-controller``, ``releases-4.4``, ``values-controller``)."""
    from model.modes import MODES

    per_mode = {"knobs": knobs, "presets": presets, "properties": properties, "releases": _releases,
                "not-modelled": _not_modelled, "values": _values}
    return {**TABLES, **{f"{table}-{name}": functools.partial(make, name)
                         for table, make in per_mode.items() for name in MODES}}


def expand(markdown: str) -> str:
    """``markdown`` with each ``<!-- reference:NAME -->`` line replaced by its generated table."""
    out = []
    known = tables()
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("<!-- reference:") and stripped.endswith("-->"):
            name = stripped[len("<!-- reference:"):-3].strip()
            if name not in known:
                raise ValueError(f"unknown reference table {name!r}; known: {', '.join(known)}")
            out.append(known[name]())
        else:
            out.append(line)
    return "\n".join(out)
