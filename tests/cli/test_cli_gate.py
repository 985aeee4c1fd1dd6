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
    assert "gate passed: 13 verdicts in 2 configurations" in r.stdout


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
