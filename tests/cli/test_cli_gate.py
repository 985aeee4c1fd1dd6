"""``rmqcheck gate``: verdicts recorded by --update, a pass on a fresh baseline, a diff when one changes."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from invariants import PROPERTIES
from rmqcheck.baseline import load_baseline

from cli_driver import assert_bad_input, invoke

CONFIGS = """\
[[configuration]]
name = "small"
[configuration.set]
messages = 1
max_master_crashes = 0

[[configuration]]
name = "tiny-read-from-slave"
preset = "read-from-slave"
properties = ["replicas_agree", "slave_serves_pull"]
[configuration.set]
messages = 1
max_master_crashes = 0
max_master_power_losses = 0
"""
#: the verdicts of CONFIGS: every property in "small", the two "tiny-read-from-slave" selects
VERDICTS = len(PROPERTIES) + 2


@pytest.fixture
def baseline(tmp_path) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(CONFIGS)
    r = invoke("gate", "--baseline", str(path), "--update")
    assert r.exit_code == 0, r.output
    return path


def test_update_records_verdicts_from_exploration(baseline, tmp_path):
    data = tomllib.loads(baseline.read_text())
    small, rfs = data["configuration"]
    assert small["set"] == {"messages": 1, "max_master_crashes": 0}
    assert list(small["expect"]) == PROPERTIES.names()
    assert rfs["expect"] == {"replicas_agree": "holds", "slave_serves_pull": "reached"}
    # the same verdicts as 'check' gives for the same configuration
    result = tmp_path / "r.json"
    invoke("check", "--set", "messages=1", "--set", "max_master_crashes=0", "--json", str(result), "--quiet")
    verdicts = {p["name"]: p["status"] for p in json.loads(result.read_text())["properties"]}
    assert small["expect"] == verdicts
    assert {"violated", "holds", "reached"} <= set(verdicts.values())


def test_gate_passes_on_a_fresh_baseline(baseline):
    r = invoke("gate", "--baseline", str(baseline))
    assert r.exit_code == 0, r.output
    assert f"gate passed: {VERDICTS} verdicts in 2 configurations" in r.stdout


def test_gate_fails_with_a_diff_when_a_verdict_changed(baseline):
    text = baseline.read_text()
    changed = text.replace('replicas_agree = "holds"', 'replicas_agree = "violated"', 1)
    assert changed != text
    baseline.write_text(changed)
    r = invoke("gate", "--baseline", str(baseline))
    assert r.exit_code == 1, r.output
    assert "gate: small: replicas_agree: expected violated -> got holds" in r.stdout
    assert "tiny-read-from-slave: replicas_agree" not in r.stdout   # only the changed entry differs
    assert baseline.read_text() == changed                          # the gate never rewrites without --update


def test_update_rewrites_a_changed_verdict(baseline):
    text = baseline.read_text()
    baseline.write_text(text.replace('master_recovers = "reached"', 'master_recovers = "unreached"'))
    assert invoke("gate", "--baseline", str(baseline), "--update").exit_code == 0
    assert baseline.read_text() == text


@pytest.mark.parametrize("content, words", [
    ("[[configuration]\nname = 'x'", ("not valid TOML",)),
    ("", ("no [[configuration]] tables",)),
    ("answer = 42\n", ("unknown top-level key 'answer'",)),
    ("[[configuration]]\npreset = 'default'\n", ("missing name",)),
    ("[[configuration]]\nname = 'a'\ncolour = 'red'\n", ("configuration a", "unknown key 'colour'")),
    ("[[configuration]]\nname = 'a'\npreset = 'fast'\n", ("unknown preset 'fast'",)),
    ("[[configuration]]\nname = 'a'\n[configuration.set]\nspeed = 1\n", ("unknown knob 'speed'",)),
    ("[[configuration]]\nname = 'a'\n[configuration.set]\nslaves = 7\n", ("knob 'slaves'", "0..3")),
    ("[[configuration]]\nname = 'a'\nproperties = ['fast']\n", ("unknown property 'fast'",)),
    ("[[configuration]]\nname = 'a'\nproperties = ['replicas_agree']\n[configuration.expect]\n"
     "replicas_agree = 'fine'\n", ("'fine'", "allowed: holds, violated, unknown")),
    ("[[configuration]]\nname = 'a'\nproperties = ['master_recovers']\n[configuration.expect]\n"
     "master_recovers = 'holds'\n", ("a sometimes property", "reached, unreached")),
    ("[[configuration]]\nname = 'a'\nproperties = ['replicas_agree']\n[configuration.expect]\n"
     "replicas_agree = 'holds'\nbogus = 'holds'\n", ("unknown property 'bogus'",)),
    ("[[configuration]]\nname = 'a'\nproperties = ['replicas_agree']\n", ("no expected verdict for replicas_agree",
                                                                         "--update")),
    ("[[configuration]]\nname = 'a'\nproperties = ['replicas_agree']\n[configuration.expect]\n"
     "replicas_agree = 'holds'\n[[configuration]]\nname = 'a'\nproperties = ['replicas_agree']\n"
     "[configuration.expect]\nreplicas_agree = 'holds'\n", ("used twice",)),
])
def test_malformed_baselines_are_bad_input(tmp_path, content, words, no_exploration):
    path = tmp_path / "b.toml"
    path.write_text(content)
    assert_bad_input(invoke("gate", "--baseline", str(path)), *words)
    assert path.read_text() == content


def test_missing_baseline_is_bad_input(tmp_path, no_exploration):
    assert_bad_input(invoke("gate", "--baseline", str(tmp_path / "none.toml")), "cannot read baseline")
    assert_bad_input(invoke("gate", "--baseline", str(tmp_path / "none.toml"), "--update"), "cannot read baseline")


def test_the_projects_own_baseline_is_well_formed():
    path = Path(__file__).resolve().parents[2] / "baseline.toml"
    entries = load_baseline(path)
    assert len(entries) >= 3
    assert all(e.expect and set(e.expect) == set(e.properties) for e in entries)


def test_update_keeps_comments_and_layout(tmp_path):
    """--update edits verdicts in place: the user's comments, key order, spacing and quoting stay."""
    path = tmp_path / "b.toml"
    text = ("# my team's gate: do not reorder\n\n"
            "[[configuration]]\n"
            "name   = 'small'            # aligned on purpose\n"
            "properties = ['replicas_agree', 'master_recovers']\n"
            "[configuration.set]\n"
            "max_master_crashes = 0  # crashes tested elsewhere\n"
            "messages = 1\n"
            "[configuration.expect]\n"
            "# why: recovery must stay reachable\n"
            "master_recovers = \"unreached\"\n"
            "replicas_agree = \"violated\"\n")
    path.write_text(text)
    r = invoke("gate", "--baseline", str(path), "--update")
    assert r.exit_code == 0, r.output
    new = path.read_text()
    for kept in ("# my team's gate: do not reorder\n\n", "name   = 'small'            # aligned on purpose\n",
                 "max_master_crashes = 0  # crashes tested elsewhere\nmessages = 1\n",
                 "# why: recovery must stay reachable\n"):
        assert kept in new, (kept, new)
    # verdicts from exploration, in the file's own order
    assert new.index("master_recovers = \"reached\"") < new.index("replicas_agree = \"holds\"")
    assert tomllib.loads(new)["configuration"][0]["expect"] == {"master_recovers": "reached",
                                                                "replicas_agree": "holds"}
    assert "explored: " in new and "distinct states" in new
    # a second update changes nothing
    invoke("gate", "--baseline", str(path), "--update")
    assert path.read_text() == new


def test_flipped_verdicts_print_their_new_trace_and_fail_in_junit(baseline, tmp_path):
    import xml.etree.ElementTree as ET

    text = baseline.read_text()
    # small: acked_message_never_lost is violated in 2 steps; pretend the baseline said it holds
    assert 'acked_message_never_lost = "violated"' in text
    baseline.write_text(text.replace('acked_message_never_lost = "violated"', 'acked_message_never_lost = "holds"', 1)
                        .replace('master_recovers = "reached"', 'master_recovers = "unreached"', 1))
    junit = tmp_path / "gate.xml"
    r = invoke("gate", "--baseline", str(baseline), "--junit", str(junit))
    assert r.exit_code == 1, r.output
    words = " ".join(r.stdout.split())   # titles wrap at the console's width
    assert "small: acked_message_never_lost: now violated (was holds) in 2 steps" in words
    assert "MasterPowerLoss()" in r.stdout                       # the new counterexample's last step
    assert "small: master_recovers: now reached (was unreached)" in words
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("tests") == str(VERDICTS) and root.get("failures") == "2"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"small", "tiny-read-from-slave"}
    cases = {c.get("name").split(" (")[0]: c for c in suites["small"].findall("testcase")}
    assert set(cases) == set(PROPERTIES.names())
    # each case is named with the verdict the baseline expects
    assert cases["acked_message_never_lost"].get("name") == "acked_message_never_lost (holds in the baseline)"
    failure = cases["acked_message_never_lost"].find("failure")
    # an unexpected violation: a failure, with why
    assert failure.get("message").startswith("expected holds, got violated: ")
    assert len(failure.get("message")) > len("expected holds, got violated: ") + 10
    assert "SendMessage()" in failure.text and "MasterPowerLoss()" in failure.text
    assert "master.commitlog: [1] -> []" in failure.text
    assert cases["replicas_agree"].find("failure") is None and cases["replicas_agree"].get("classname") == \
        "rmqcheck.gate.small"
    assert suites["tiny-read-from-slave"].get("failures") == "0"


def test_junit_on_a_passing_gate_has_no_failures(baseline, tmp_path):
    import xml.etree.ElementTree as ET

    junit = tmp_path / "gate.xml"
    r = invoke("gate", "--baseline", str(baseline), "--junit", str(junit))
    assert r.exit_code == 0, r.output
    root = ET.parse(junit).getroot()
    assert root.get("tests") == str(VERDICTS) and root.get("failures") == "0" and root.get("errors") == "0"
    assert len(root.findall("testsuite/testcase")) == VERDICTS and not root.findall(".//failure")
    # an expected violation is a passing case that says what it is, not a green case under the bare name
    case = root.find("testsuite[@name='small']/testcase[@name='acked_message_never_lost (violated in the baseline)']")
    assert case is not None and case.find("failure") is None
    out = case.find("system-out").text
    assert out.startswith("violated, as in the baseline: ") and "counterexample, 2 steps:" in out
    assert "MasterPowerLoss()" in out


def test_junit_with_update_is_bad_input(baseline, tmp_path, no_exploration):
    assert_bad_input(invoke("gate", "--baseline", str(baseline), "--update", "--junit", str(tmp_path / "j.xml")),
                     "--junit", "--update")


def test_a_run_file_of_the_controller_mode_is_a_gate_configuration(tmp_path):
    """A run file (``config = "FILE"``) is read in the mode it names, as ``check --config`` reads it: the
    gate refused every run file but a 4.4 one ("read for mode 4.4 only")."""
    (tmp_path / "ctl.toml").write_text('mode = "controller"\nmessages = 1\nmax_broker_crashes = 0\n'
                                       '[run]\nproperties = ["one_master_per_epoch"]\n')
    path = tmp_path / "baseline.toml"
    path.write_text('[[configuration]]\nname = "ctl"\nconfig = "ctl.toml"\n')
    r = invoke("gate", "--baseline", str(path), "--update")
    assert r.exit_code == 0, r.output
    entry = tomllib.loads(path.read_text())["configuration"][0]
    result = tmp_path / "r.json"
    invoke("check", "--config", str(tmp_path / "ctl.toml"), "--json", str(result), "--quiet")
    assert entry["expect"] == {p["name"]: p["status"] for p in json.loads(result.read_text())["properties"]}
    assert list(entry["expect"]) == ["one_master_per_epoch"]
    (tmp_path / "ctl.toml").write_text('mode = "controller"\nslaves = 1\n')
    assert_bad_input(invoke("gate", "--baseline", str(path)), "slaves")
