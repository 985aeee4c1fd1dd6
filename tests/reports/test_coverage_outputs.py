"""Coverage, dead ends and pruned transitions in every output of ``check``: the console summary (and
``--traces all`` for the terminal-state trace), the JSON (validated against the shipped schema), and the
Markdown and HTML reports. The numbers come from the exploration (tests/explore/test_coverage.py pins
them); here each output must say the same as the result it renders."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from explore import explore
from explore.coverage import never_enabled
from invariants import PROPERTIES
from model import Config, RocketMQModel
from reports.result_schema import result_schema

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import TINY, invoke  # noqa: E402

PRUNING = ("--set", "slaves=0", "--set", "which_broker_when_consume_slowly=0", "--set", "messages=1",
           "--set", "consumers=2", "--set", "max_master_crashes=0", "--set", "max_consumer_restarts=3")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("coverage")
    r = invoke("check", *TINY, "--json", str(d / "r.json"), "--report", str(d / "r.md"), "--traces", "all")
    assert r.exit_code == 1, r.output
    invoke("check", *TINY, "--report", str(d / "r.html"), "--quiet")
    data = json.loads((d / "r.json").read_text())
    jsonschema.validate(data, result_schema(), cls=jsonschema.Draft202012Validator)
    return r.stdout, data, (d / "r.md").read_text(), (d / "r.html").read_text()


def never_in(data) -> str:
    """The action kinds that never fired in the run the JSON ``data`` holds, as the outputs list them."""
    return ", ".join(k for k, row in data["stats"]["coverage"].items() if row["transitions"] == 0)


@pytest.fixture(scope="module")
def pruning(tmp_path_factory):
    d = tmp_path_factory.mktemp("pruning")
    r = invoke("check", *PRUNING, "--json", str(d / "r.json"), "--report", str(d / "r.md"))
    assert r.exit_code == 1, r.output
    data = json.loads((d / "r.json").read_text())
    jsonschema.validate(data, result_schema(), cls=jsonschema.Draft202012Validator)
    return r.stdout, data, (d / "r.md").read_text()


def test_json_holds_coverage_terminal_states_and_the_trace_to_one(tiny):
    _, data, _, _ = tiny
    s = data["stats"]
    assert sum(row["transitions"] for row in s["coverage"].values()) == s["transitions"] == 1188
    assert sum(row["new_states"] for row in s["coverage"].values()) == s["distinct_states"] - 1
    # the exploration's own coverage (tests/explore/test_coverage.py pins it), idle kinds included
    run = explore(RocketMQModel(Config.from_mapping(dict(messages=1, max_master_crashes=0,
                                                         max_master_power_losses=0))), PROPERTIES)
    assert s["coverage"] == run.stats.coverage and list(s["coverage"]) == list(run.stats.coverage)
    assert never_in(data) == ", ".join(never_enabled(run.stats)) != ""
    assert s["terminal_states"] == 1 and s["pruned_transitions"] == 0 and s["pruned_reasons"] == {}
    assert sum(s["levels"]) == s["distinct_states"]
    trace = data["terminal_trace"]
    assert trace[0]["action"] == "INIT" and len(trace) - 1 <= s["depth"]
    assert not any("note" in p for p in data["properties"])


def test_console_summary_shows_coverage_the_idle_kinds_and_the_terminal_trace(tiny):
    out, data, _, _ = tiny
    assert "coverage" in out and "action kind" in out
    for kind, row in data["stats"]["coverage"].items():
        assert kind in out
    assert f"never enabled: {never_in(data)} — part of the model is vacuous in this configuration" in " ".join(out.split())
    steps = len(data["terminal_trace"]) - 1
    assert "states per level  1, 3, 8, 14" in out
    assert f"terminal states   1 (states with no enabled action); the shortest path to one takes {steps} steps" in out
    assert f"terminal state: reached in {steps} steps (no action enabled there)" in out   # --traces all
    quiet = invoke("check", *TINY)
    assert "terminal states" in quiet.stdout and "terminal state: reached" not in quiet.stdout   # --traces violated


def test_reports_have_a_coverage_table_and_the_terminal_trace(tiny):
    _, data, md, page = tiny
    steps = len(data["terminal_trace"]) - 1
    assert "### Coverage" in md and "| `Pull` | 140 | 126 |" in md
    assert f"Never enabled: {never_in(data)}; that part of the model is vacuous" in md
    assert f"terminal state: no action enabled (shortest path, {steps} steps)" in md
    assert "| terminal states | 1 (states with no enabled action)" in md
    assert "<h3 id='c0-coverage'>Coverage</h3>" in page and "<code class='name'>Pull</code>" in page
    assert "id='c0-terminal'" in page and "href='#c0-terminal'" in page
    assert page.count("<svg") == 1 + sum(1 for p in data["properties"] if "trace" in p)


def test_pruned_transitions_are_reported_with_a_note_on_every_absence_claim(pruning):
    out, data, md = pruning
    s = data["stats"]
    n = s["pruned_transitions"]
    assert n > 0 and s["pruned_reasons"] == {"third_pending_offset_correction": n}
    line = f"{n:,} transitions left out by a bound of the model (third_pending_offset_correction: {n:,})"
    assert f"pruned            {line}" in out
    for p in data["properties"]:
        # an eventually property's verdict either way: a lasso may stay where a left-out step goes on
        claims = p["status"] in ("holds", "unreached") or p["kind"] == "eventually"
        assert ("note" in p) == claims, p["name"]
        if "note" in p:
            assert p["note"].endswith(f"within the model's bounds: {line}"), p["name"]
            assert p["note"] == f"within the model's bounds: {line}" or p["kind"] == "eventually"
    assert f"| pruned | {line} |" in md


def test_kinds_idle_in_a_run_that_stopped_early_are_not_called_vacuous(tmp_path):
    """A run stopped once every selected property was settled (depth 2 here) has not seen the deeper
    actions: they are "not reached before the run stopped", never "vacuous in this configuration"."""
    report = tmp_path / "r.md"
    result = invoke("check", "--set", "messages=1", "--property", "acked_message_never_lost", "--max-depth", "2",
                    "--report", str(report))
    out = " ".join(result.stdout.split())
    assert result.exit_code == 1, result.stderr   # violated at depth 2: the run stopped there
    assert "not reached before the run stopped (depth 2): " in out and "they may fire deeper" in out
    assert "vacuous" not in out
    text = " ".join(report.read_text().split())
    assert "Not reached before the run stopped:" in text and "vacuous" not in text
