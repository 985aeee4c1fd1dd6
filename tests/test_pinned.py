"""The pinned table (tests/tooling/pinned.toml) and its one regeneration command, ``python -m
tests.tooling.pinned``, for every model mode: the file is in the layout the command writes, every entry's mode
is registered, a tampered number is found and rewritten from exploration in either mode, and nothing else of
the file moves."""
from __future__ import annotations

import tomllib

import pytest

from model.modes import MODES
from tests.tooling import pinned


def test_the_file_is_in_the_layout_the_command_writes():
    assert pinned.render(pinned.load().values(), pinned.history_of(pinned.PINNED_PATH)) == \
        pinned.PINNED_PATH.read_text()


def test_every_group_and_mode_is_known_and_every_name_unique():
    names = [r["name"] for r in tomllib.loads(pinned.PINNED_PATH.read_text())["configuration"]]
    assert len(names) == len(set(names)) >= 20
    entries = pinned.load().values()
    assert {e.group for e in entries} == set(pinned.GROUPS)
    assert {e.mode_name for e in entries} <= set(MODES) and len({e.mode_name for e in entries}) >= 2
    # the table keyed by mode: each mode's entries, all of them, none twice
    by_mode = [pinned.load(mode=m) for m in MODES]
    assert sum(len(t) for t in by_mode) == len(names)


@pytest.mark.parametrize("name, line", [
    ("one-message-no-failures", "distinct_states = 351\n"),
    ("ctl-no-failures", "distinct_states = 4302\n"),
])
def test_a_moved_number_is_found_and_rewritten_from_exploration(tmp_path, monkeypatch, capsys, name, line):
    entry = pinned.pinned(name)
    assert f"distinct_states = {entry.distinct_states}\n" == line
    copy = tmp_path / "pinned.toml"
    original = pinned.PINNED_PATH.read_text()
    start = original.index(f'name = "{name}"')
    tampered = original[:start] + original[start:].replace(line, f"distinct_states = {entry.distinct_states - 1}\n", 1)
    copy.write_text(tampered)
    monkeypatch.setattr(pinned, "PINNED_PATH", copy)
    assert pinned.main(["--only", name]) == 1
    moved = f"{name}: distinct_states {entry.distinct_states - 1:,} -> {entry.distinct_states:,}"
    assert moved in capsys.readouterr().out
    assert pinned.main(["--update", "--only", name]) == 0
    assert copy.read_text() == original
    assert pinned.main(["--only", name]) == 0


def test_mode_selects_one_modes_configurations(monkeypatch, capsys):
    explored = []
    monkeypatch.setattr(pinned, "explored", lambda e: explored.append(e) or e)
    assert pinned.main(["--mode", "controller", "--skip-large"]) == 0
    assert [e.name for e in explored] == [e.name for e in pinned.load(mode="controller").values() if not e.large]
    assert {e.mode_name for e in explored} == {"controller"}


@pytest.mark.parametrize("args, words", [
    (["--only", "no-such-configuration"], "no configuration 'no-such-configuration'"),
    (["--mode", "no-such-mode"], "unknown mode 'no-such-mode'"),
])
def test_unknown_names_are_refused(capsys, args, words):
    with pytest.raises(SystemExit) as e:
        pinned.main(args)
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_each_entry_is_built_in_its_own_mode():
    from model.modes import get_mode, mode_of
    for entry in pinned.load().values():
        assert mode_of(entry.config()).name == entry.mode_name
        assert type(pinned.model_of(entry)).name == get_mode(entry.mode_name).model_name()


def test_the_documents_quote_the_pinned_sizes_of_the_default_and_bench_presets():
    """The documentation's first run and the benchmark page quote the default and bench presets' sizes: a
    model change that moves them (and the table, through --update) leaves the documents to update too."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme, bench = (root / "docs" / "guide" / "first-run.md").read_text(), (root / "bench" / "README.md").read_text()
    default, large = pinned.pinned("default"), pinned.pinned("bench")
    assert f"distinct states   {default.distinct_states:,} (exact)" in readme
    assert f"transitions       {default.transitions:,}" in readme
    assert f"{large.distinct_states:,} states, {large.transitions:,} transitions, depth {large.depth}" in bench
