"""The pinned numbers: one table (``pinned.toml``, beside this module) of every configuration, in every model
mode, whose exploration results the tests, the benchmarks and the documentation rely on.

Each ``[[configuration]]`` names its model mode (``mode``; none: the registry's default mode,
model/modes.py), a group (the default mode's ``golden``: tiny configurations with their verdicts;
``mechanism``: one small configuration per modelled mechanism; ``reference``: configurations the engine is
compared on with a plain networkx graph, some with a seeded bug (``mutation``); ``preset``: whole presets;
``release``: one small configuration per version switch, model/versions_44.py; ``controller``: the
controller mode's configurations, each property holding in one and broken there by a seeded bug), its knobs
(``preset`` and/or ``set``), and what exploring it with every property of its mode on the local engine
produced: ``distinct_states``, ``transitions``, ``depth`` and ``verdicts`` by property name. ``large =
true`` marks a configuration too big for the test suite (the ``bench`` preset: it is the benchmark's own
check).

Every number is PRODUCED BY EXPLORATION, never typed: after a deliberate model change,

    python -m tests.tooling.pinned --update                    # re-explore every configuration, rewrite
    python -m tests.tooling.pinned --update --skip-large
    python -m tests.tooling.pinned --mode controller --update  # one mode's configurations
    python -m tests.tooling.pinned                             # compare only: exit 1 with a diff when one moved

rewrites the numbers and verdicts (an entry's ``history`` says why its numbers moved before), and the
commit says which configurations moved and why.
"""
from __future__ import annotations

import inspect
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import tomlkit

PINNED_PATH = Path(__file__).with_name("pinned.toml")
#: the groups of the table, in its order
GROUPS = ("golden", "mechanism", "reference", "preset", "release", "controller")


def _default_mode() -> str:
    from model.modes import DEFAULT_MODE
    return DEFAULT_MODE


@dataclass(frozen=True)
class Pinned:
    """One pinned configuration and the numbers its exploration produced."""

    name: str
    group: str
    preset: str | None
    knobs: dict[str, Any]
    distinct_states: int
    transitions: int
    depth: int
    verdicts: dict[str, str]
    large: bool = False
    mutation: str | None = None     # a seeded bug of the mode's mutants, for the reference tests
    mode: str = ""                  # the model mode ("": the registry's default mode)

    @property
    def counts(self) -> tuple[int, int, int]:
        return self.distinct_states, self.transitions, self.depth

    @property
    def mode_name(self) -> str:
        return self.mode or _default_mode()

    def config(self) -> Any:
        """The configuration: the preset (or the mode's defaults) with ``knobs`` applied, in its mode."""
        from model.modes import get_mode
        mode = get_mode(self.mode_name)
        return mode.from_mapping(self.knobs, base=mode.preset(self.preset) if self.preset else None)


def _entry(raw: Any) -> Pinned:
    return Pinned(name=str(raw["name"]), group=str(raw["group"]), preset=raw.get("preset"),
                  knobs=dict(raw.get("set", {})),
                  distinct_states=int(raw["distinct_states"]), transitions=int(raw["transitions"]),
                  depth=int(raw["depth"]), verdicts={str(k): str(v) for k, v in raw.get("verdicts", {}).items()},
                  large=bool(raw.get("large", False)), mutation=raw.get("mutation"), mode=str(raw.get("mode", "")))


def load(path: Path | None = None, mode: str | None = None) -> dict[str, Pinned]:
    """Every pinned configuration (of model mode ``mode`` when given), by name, in the table's order."""
    entries = [_entry(raw) for raw in tomllib.loads((path or PINNED_PATH).read_text())["configuration"]]
    table = {e.name: e for e in entries}
    if len(table) != len(entries):
        raise ValueError(f"{path or PINNED_PATH}: two configurations share a name")
    return {n: e for n, e in table.items() if mode is None or e.mode_name == mode}


def pinned(name: str) -> Pinned:
    """The pinned configuration ``name`` (KeyError naming the table when there is none)."""
    table = load()
    if name not in table:
        raise KeyError(f"no configuration {name!r} in {PINNED_PATH}")
    return table[name]


def group(name: str, include_large: bool = False) -> list[Pinned]:
    """The configurations of one group, in the table's order."""
    return [e for e in load().values() if e.group == name and (include_large or not e.large)]


def model_of(entry: Pinned) -> Any:
    """The model of ``entry`` in its mode, with its seeded bug; strict (a write by a disabled action is a
    model error) where the mode's model offers it and no bug is seeded."""
    import importlib

    from model.modes import get_mode
    module, _, name = get_mode(entry.mode_name).model_path.partition(":")
    cls = getattr(importlib.import_module(module), name)
    strict = {"strict": True} if entry.mutation is None and "strict" in inspect.signature(cls).parameters else {}
    return cls(entry.config(), mutation=entry.mutation, **strict)


def explored(entry: Pinned, threads: int = 1) -> Pinned:
    """The same configuration with the numbers one exploration produces now (every property of its mode,
    local engine, on ``threads`` threads: one unless a test compares thread counts)."""
    from dataclasses import replace

    from explore import explore
    from model.modes import get_mode
    r = explore(model_of(entry), get_mode(entry.mode_name).properties(), threads=threads)
    if r.error is not None or r.incomplete_reason:
        raise RuntimeError(f"{entry.name}: exploration did not complete ({r.error or r.incomplete_reason})")
    return replace(entry, distinct_states=r.stats.distinct_states, transitions=r.stats.transitions,
                   depth=r.stats.depth, verdicts={p.name: p.status for p in r.properties})


def differences(old: Pinned, new: Pinned) -> list[str]:
    """What moved between two results of one configuration, one line each."""
    lines = [f"{old.name}: {field} {getattr(old, field):,} -> {getattr(new, field):,}"
             for field in ("distinct_states", "transitions", "depth") if getattr(old, field) != getattr(new, field)]
    for prop in sorted(set(old.verdicts) | set(new.verdicts)):
        before, after = old.verdicts.get(prop, "-"), new.verdicts.get(prop, "-")
        if before != after:
            lines.append(f"{old.name}: {prop} {before} -> {after}")
    return lines


#: the comment above each group's first entry
GROUP_NOTES = {
    "golden": "tiny configurations, their counts and verdicts (tests/model/test_golden_counts.py)",
    "mechanism": ("one small configuration per mechanism (tests/model/test_mechanism_counts.py): a change of\n"
                  "# reachable behaviour that moves no verdict still moves these numbers (turning the consume-queue\n"
                  "# fold's end test `qo >= end` into `qo > end` shrinks consume-queues-two-queues from 89,853 to\n"
                  "# 33,917 states)"),
    "reference": ("the engine against a plain networkx graph of the same model, some with a seeded bug\n"
                  "# (tests/explore/test_shortest_traces.py)"),
    "preset": "whole presets (tests/explore/test_default_preset.py, rmqcheck bench, the README)",
    "release": ("one small configuration per version switch, the switch on (model/versions_44.py; tests/model/\n"
                "# test_versions.py): the same configuration with the switch off explores other numbers or verdicts"),
    "controller": ("the controller mode's configurations (tests/controller/test_controller_pinned.py, rmqcheck\n"
                   "# bench, docs/controller.md): each property holds in one and a seeded bug (mutation) breaks it there;\n"
                   "# ctl-three-brokers (2.5 million states) is pinned for the documentation, not explored by the tests"),
}
HEADER = """\
# rmqcheck's pinned numbers: every configuration, in every model mode, whose exploration the tests, the
# benchmarks and the documentation rely on, with what exploring it (every property of its mode, local engine)
# PRODUCED. Never edit a number or a verdict by hand: after a deliberate model change run
# `python -m tests.tooling.pinned --update` and say in the commit which configurations moved and why (an
# entry's `history` keeps the story of its moves). The configurations themselves (name, mode, group, preset,
# set, mutation, large, history) are edited by hand; an entry without `mode` is of the default mode.
"""


def _value(v: Any) -> str:
    return tomlkit.item(v).as_string()


def render(entries: Iterable[Pinned], history: dict[str, str]) -> str:
    """The table's text: a fixed layout, so a rewrite moves only the numbers that changed."""
    out, seen = [HEADER], set()
    for e in entries:
        if e.group not in seen:
            seen.add(e.group)
            out.append(f"\n# -- {e.group}: {GROUP_NOTES.get(e.group, '')}\n")
        lines = ["", "[[configuration]]", f"name = {_value(e.name)}"]
        if e.mode:
            lines.append(f"mode = {_value(e.mode)}")
        lines.append(f"group = {_value(e.group)}")
        if e.preset:
            lines.append(f"preset = {_value(e.preset)}")
        if e.knobs:
            lines.append("set = { " + ", ".join(f"{k} = {_value(v)}" for k, v in e.knobs.items()) + " }")
        if e.mutation:
            lines.append(f"mutation = {_value(e.mutation)}")
        if e.large:
            lines.append("large = true")
        if history.get(e.name):
            lines.append(f"history = {_value(history[e.name])}")
        lines += [f"distinct_states = {e.distinct_states}", f"transitions = {e.transitions}", f"depth = {e.depth}"]
        if e.verdicts:
            lines += ["", "[configuration.verdicts]"] + [f"{k} = {_value(v)}" for k, v in e.verdicts.items()]
        out.append("\n".join(lines) + "\n")
    return "".join(out)


def history_of(path: Path) -> dict[str, str]:
    """Each entry's ``history``, by name."""
    return {str(r["name"]): str(r.get("history", "")) for r in tomllib.loads(path.read_text())["configuration"]}


def _rewrite(path: Path, results: Iterable[Pinned]) -> None:
    by_name = {r.name: r for r in results}
    path.write_text(render([by_name.get(e.name, e) for e in load(path).values()], history_of(path)))


def main(argv: list[str] | None = None) -> int:
    import argparse

    from model.modes import MODES
    parser = argparse.ArgumentParser(prog="python -m tests.tooling.pinned", description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the table from exploration")
    parser.add_argument("--mode", metavar="MODE", help="only the configurations of this model mode")
    parser.add_argument("--skip-large", action="store_true", help="leave the large configurations out")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="only this configuration")
    args = parser.parse_args(argv)
    if args.mode is not None and args.mode not in MODES:
        parser.error(f"unknown mode {args.mode!r}; known modes: {', '.join(MODES)}")
    table = load(PINNED_PATH)
    unknown = [n for n in args.only if n not in table]
    if unknown:
        parser.error(f"no configuration {unknown[0]!r} in {PINNED_PATH.name}; known: {', '.join(table)}")
    chosen = [e for e in table.values() if (not args.only or e.name in args.only)
              and (args.mode is None or e.mode_name == args.mode) and not (args.skip_large and e.large)]
    results, moved = [], []
    for entry in chosen:
        print(f"exploring {entry.name} ...", file=sys.stderr, flush=True)
        now = explored(entry)
        results.append(now)
        moved += differences(entry, now)
    for line in moved:
        print(line)
    if args.update:
        _rewrite(PINNED_PATH, results)
        print(f"{PINNED_PATH}: {len(results)} configurations written, {len(moved)} values moved")
        return 0
    print(f"{len(chosen)} configurations explored; {len(moved) or 'no'} values differ from {PINNED_PATH.name}")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
