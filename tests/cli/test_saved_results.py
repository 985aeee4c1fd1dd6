"""Saved results read back (``report``, ``replay``, ``explore --trace``): every result rmqcheck writes of check
and faults, in both model modes, renders again as the run's own report did; anything that is not an
unedited result of this rmqcheck, of a command the reader takes, is bad input in one line (issue 44, item 4;
issue 45, item 3)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_driver import SAVED_RUNS, assert_bad_input, invoke

RUNS = {name: args for name, args in SAVED_RUNS.items() if not name.startswith("simulate")}


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Each run's JSON and the Markdown report the run itself wrote."""
    where = tmp_path_factory.mktemp("saved")
    out = {}
    for name, args in RUNS.items():
        json_path, md_path = where / f"{name}.json", where / f"{name}.md"
        r = invoke(*args, "--json", str(json_path), "--report", str(md_path), "--quiet")
        assert r.exit_code == 1, r.stderr
        out[name] = json_path, md_path
    return out


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if "states/s" not in line]   # a rate rounds in the JSON


@pytest.mark.parametrize("name", list(RUNS))
def test_report_renders_every_result_as_the_run_did(saved, tmp_path, name):
    """``report c.json`` of a controller check refused ("'config' is not a configuration of this rmqcheck");
    of a 4.4 faults result it wrote a 9 KB page without failure modes or traces."""
    json_path, first = saved[name]
    again = tmp_path / "again.md"
    r = invoke("report", str(json_path), "--report", str(again))
    assert r.exit_code == 0, r.stderr
    assert lines_of(again.read_text()) == lines_of(first.read_text())
    if name.startswith("faults"):
        assert again.stat().st_size > 0.9 * first.stat().st_size and "Why it breaks" in again.read_text() or \
            name.endswith("controller")
        assert "### " in again.read_text()   # the traces are there


def edited(path: Path, tmp_path: Path, change) -> str:
    data = json.loads(path.read_text())
    change(data)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(data))
    return str(out)


def first_violated(data: dict) -> dict:
    return next(p for p in data["properties"] if p.get("status") == "violated" and p.get("trace"))


def set_key(key, value):
    def change(data):
        data[key] = value
    return change


@pytest.mark.parametrize("change, words", [
    (set_key("tool", "tlc"), ["not a result of rmqcheck", "'tlc'"]),
    (set_key("version", "99.0"), ["written by rmqcheck '99.0'"]),
    (set_key("model", "rocketmq-9"), ["its model is 'rocketmq-9'"]),
    (lambda d: d["config"].update(mode="5.9"), ["mode '5.9'", "known modes"]),
    (lambda d: first_violated(d).update(status="maybe"), ["status 'maybe'"]),
    (lambda d: first_violated(d)["trace"].pop(), ["does not show it"]),
    (set_key("command", "matrix"), ["a result of 'rmqcheck matrix --json'", "reads results of"]),
])
@pytest.mark.parametrize("reader", ["report", "replay"])
def test_an_edited_or_foreign_check_result_is_refused(saved, tmp_path, no_exploration, reader, change, words):
    path = edited(saved["check-4.4"][0], tmp_path, change)
    args = ("report", path, "--report", str(tmp_path / "r.html")) if reader == "report" else ("replay", path)
    if reader == "replay" and words == ["does not show it"]:
        return   # replay re-explores that one and says so with exit 1 (tests/cli/test_cli_replay.py)
    assert_bad_input(invoke(*args), *words)
    assert not (tmp_path / "r.html").exists()


def test_a_simulate_result_is_not_rendered_as_a_verdict(tmp_path, monkeypatch):
    path = tmp_path / "sim.json"
    r = invoke("simulate", "--set", "messages=1", "--walks", "3", "--seed", "1", "--json", str(path), "--quiet")
    assert r.exit_code in (0, 1, 3), r.stderr   # walks never settle "holds": incomplete (3) is their usual end
    assert json.loads(path.read_text())["command"] == "simulate"
    assert_bad_input(invoke("report", str(path), "--report", str(tmp_path / "r.md")),
                     "'rmqcheck simulate --json'", "rmqcheck report reads results of")


def test_an_edited_faults_trace_is_refused(saved, tmp_path):
    def change(data):
        prop = next(p for p in data["properties"] if p.get("modes"))
        prop["modes"][0]["trace"] = prop["modes"][0]["trace"][:-1]
    path = edited(saved["faults-4.4"][0], tmp_path, change)
    assert_bad_input(invoke("report", path, "--report", str(tmp_path / "r.md")), "edited")


def test_explore_trace_refuses_an_edited_model(saved, tmp_path, monkeypatch):
    """``explore --trace`` served a file whose ``model`` was edited."""
    import rmqcheck.explorer.command as command
    monkeypatch.setattr(command, "serve", lambda *a, **k: pytest.fail("the explorer started"), raising=False)
    path = edited(saved["check-controller"][0], tmp_path, set_key("model", "rocketmq-4.4"))
    assert_bad_input(invoke("explore", "--trace", path), "its model is 'rocketmq-4.4'")
