"""``rmqcheck matrix`` (configurations x properties) and ``rmqcheck simulate`` (random walks)."""
from __future__ import annotations

import json

from cli_driver import SMALL, TINY, assert_bad_input, invoke


def test_matrix_table_has_a_verdict_per_configuration_and_property(tmp_path):
    path = tmp_path / "m.json"
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--json", str(path))
    assert r.exit_code == 1, r.output
    data = json.loads(path.read_text())
    assert [c["name"] for c in data["configurations"]] == ["default", "sync-master"]
    by_name = {c["name"]: {p["name"]: p for p in c["properties"]} for c in data["configurations"]}
    # in the table: a row per property, a column per configuration, violations with their trace length
    row = next(line for line in r.stdout.splitlines() if "acked_message_never_lost" in line)
    default = by_name["default"]["acked_message_never_lost"]
    sync = by_name["sync-master"]["acked_message_never_lost"]
    assert default["status"] == "violated"
    assert f"violated ({len(default['trace']) - 1})" in row
    assert sync["status"] in row
    assert "broker_role=SYNC_MASTER" in r.stdout


def test_matrix_default_runs_every_preset_but_the_benchmark_spaces(monkeypatch):
    from rmqcheck.matrix import default_presets
    from model import PRESETS
    assert set(default_presets()) == set(PRESETS) - {"bench", "large"}


def test_matrix_exit_0_when_all_pass():
    r = invoke("matrix", "--preset", "sync-master", "--preset", "sync-flush", *TINY, "--property", "replicas_agree")
    assert r.exit_code == 0, r.output
    assert r.stdout.count("holds") == 2


def test_matrix_bad_input(no_exploration):
    assert_bad_input(invoke("matrix", "--preset", "default", "--preset", "nope"), "unknown preset 'nope'")
    assert_bad_input(invoke("matrix", "--report", "m.txt"), "unknown report format")


def test_simulate_finds_a_violation_and_says_traces_are_not_shortest():
    r = invoke("simulate", *SMALL, "--walks", "50", "--depth", "20", "--seed", "1",
               "--property", "acked_message_never_lost")
    assert r.exit_code == 1, r.output
    assert "NOT necessarily a shortest" in r.stdout
    assert "acked_message_never_lost: violated in" in r.stdout


def test_simulate_never_proves_a_property():
    r = invoke("simulate", *TINY, "--walks", "5", "--depth", "5", "--property", "replicas_agree")
    assert r.exit_code == 3, r.output
    row = next(line for line in r.stdout.splitlines() if "replicas_agree" in line)
    assert "unknown" in row and "holds" not in row


def test_simulate_is_deterministic_for_a_seed(tmp_path):
    outs = []
    for name in ("a.json", "b.json"):
        invoke("simulate", *SMALL, "--walks", "20", "--depth", "15", "--seed", "7", "--json", str(tmp_path / name),
               "--quiet")
        data = json.loads((tmp_path / name).read_text())
        outs.append([(p["name"], p["status"], [s["action"] for s in p.get("trace", [])]) for p in data["properties"]])
    assert outs[0] == outs[1]


def test_simulate_bad_input(no_exploration):
    assert_bad_input(invoke("simulate", "--walks", "0"), "--walks 0", "> 0")
    assert_bad_input(invoke("simulate", "--seed", "-1"), "--seed -1")
    assert_bad_input(invoke("simulate", "--property", "x"), "unknown property 'x'")
