"""The pinned table (rmqcheck/pinned.toml) and its regeneration command, ``python -m rmqcheck.pinned``: the
file is in the layout the command writes, a tampered number is found and rewritten from exploration, and
nothing else of the file moves."""
from __future__ import annotations

import tomllib

import pytest

from rmqcheck import pinned


def _history(path) -> dict[str, str]:
    return {r["name"]: r.get("history", "") for r in tomllib.loads(path.read_text())["configuration"]}


def test_the_file_is_in_the_layout_the_command_writes():
    assert pinned.render(pinned.load().values(), _history(pinned.PINNED_PATH)) == pinned.PINNED_PATH.read_text()


def test_every_group_is_known_and_every_name_unique():
    names = [r["name"] for r in tomllib.loads(pinned.PINNED_PATH.read_text())["configuration"]]
    assert len(names) == len(set(names)) >= 20
    assert {e.group for e in pinned.load().values()} == set(pinned.GROUPS)


def test_a_moved_number_is_found_and_rewritten_from_exploration(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "pinned.toml"
    original = pinned.PINNED_PATH.read_text()
    copy.write_text(original.replace("distinct_states = 351\n", "distinct_states = 350\n", 1))
    monkeypatch.setattr(pinned, "PINNED_PATH", copy)
    assert pinned.main(["--only", "one-message-no-failures"]) == 1
    assert "one-message-no-failures: distinct_states 350 -> 351" in capsys.readouterr().out
    assert pinned.main(["--update", "--only", "one-message-no-failures"]) == 0
    assert copy.read_text() == original
    assert pinned.main(["--only", "one-message-no-failures"]) == 0


def test_an_unknown_configuration_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        pinned.main(["--only", "no-such-configuration"])
    assert e.value.code == 2 and "no configuration 'no-such-configuration'" in capsys.readouterr().err


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
