"""Every verdict says what it rests on (issue 45, item 6): ``check`` states its bounds (the counts and the
failure budgets, the object ``faults`` writes as ``bounds``) in the console summary, the quiet line, the JSON,
the Markdown and HTML reports, the gate's JUnit properties and the explorer, in both model modes."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from cli_driver import invoke

SYNC_MASTER = ("--preset", "sync-master", "--set", "messages=1", "--property", "acked_message_never_lost")
WORDS_44 = "1 message, 1 consumer, 1 queue, 1 slave; at most 1 master crash + 1 master power loss"


def test_check_states_its_bounds_in_every_output(tmp_path):
    """``check --preset sync-master`` said ``acked_message_never_lost holds`` with no word of the bounds."""
    paths = {s: tmp_path / f"r.{s}" for s in ("json", "md", "html")}
    r = invoke("check", *SYNC_MASTER, "--json", str(paths["json"]), "--report", str(paths["md"]))
    assert r.exit_code == 0, r.stderr
    assert "bounds" in r.stdout and WORDS_44 in " ".join(r.stdout.split())
    quiet = invoke("check", *SYNC_MASTER, "--report", str(paths["html"]), "--quiet").stdout
    assert " ".join(quiet.split()).endswith(f"within {WORDS_44}")   # the console folds it at its width
    data = json.loads(paths["json"].read_text())
    assert data["bounds"] == {"messages": 1, "consumers": 1, "queues": 1, "slaves": 1,
                              "budgets": {"master_crashes": 1, "master_power_losses": 1, "slave_crashes": 0,
                                          "slave_power_losses": 0, "consumer_restarts": 0, "ha_disconnects": 0}}
    assert f"| bounds | {WORDS_44} |" in paths["md"].read_text()
    assert WORDS_44 in paths["html"].read_text()


def test_check_and_faults_write_the_same_bounds_object(tmp_path):
    args = ("--preset", "controller", "--set", "messages=1", "--property", "acked_message_on_every_later_master")
    assert invoke("check", *args, "--json", str(tmp_path / "c.json"), "--quiet").exit_code == 1
    assert invoke("faults", *args, "--grow", "none", "--json", str(tmp_path / "f.json"), "--quiet").exit_code == 1
    check, faults = (json.loads((tmp_path / n).read_text()) for n in ("c.json", "f.json"))
    assert check["bounds"] == faults["bounds"]
    assert set(check["bounds"]["budgets"]) == {"broker_crashes", "broker_power_losses", "controller_outages",
                                                "link_losses", "ha_disconnects"}


def test_the_gate_junit_names_the_bounds_of_each_configuration(tmp_path):
    baseline = tmp_path / "b.toml"
    baseline.write_text('[[configuration]]\nname = "tiny"\nproperties = ["replicas_agree"]\n[configuration.set]\n'
                        'messages = 1\nmax_master_crashes = 0\n[configuration.expect]\nreplicas_agree = "holds"\n')
    assert invoke("gate", "--baseline", str(baseline), "--junit", str(tmp_path / "j.xml")).exit_code == 0
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["bounds"].startswith("1 message, 1 consumer, 1 queue, 1 slave; at most 1 master power loss")
    assert props["messages"] == "1" and props["budget.master_crashes"] == "0"
    assert props["budget.master_power_losses"] == "1"


@pytest.mark.parametrize("which", ["default", "controller"])
def test_the_explorer_says_its_bounds(which):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "explorer"))
    from explorer_fixtures import client, controller_session, session

    model = client(of=session() if which == "default" else controller_session()).get("/api/model").json()
    assert model["bounds"].startswith("2 messages, 1 consumer" if which == "default" else "2 brokers, 2 messages")


def test_next_bound_says_which_verdicts_move(tmp_path):
    """``faults --set messages=1 --table`` showed replicas_agree and no_message_skipped holding while both are
    violated with 2 messages; ``check --next-bound`` says so beside the verdicts."""
    path = tmp_path / "nb.json"
    r = invoke("check", "--set", "messages=1", "--property", "replicas_agree", "--property", "no_message_skipped",
               "--property", "acked_message_never_lost", "--next-bound", "--json", str(path), "--quiet")
    assert r.exit_code == 1, r.stderr   # acked_message_never_lost is violated at this bound already
    data = json.loads(path.read_text())
    nb = data["next_bound"]
    assert nb["grow"] == "messages" and nb["bounds"]["messages"] == 2
    assert nb["moved"] == {"replicas_agree": ["holds", "violated"], "no_message_skipped": ["holds", "violated"]}
    assert nb["verdicts"]["acked_message_never_lost"] == "violated"
    assert "verdicts that move: replicas_agree holds -> violated" in " ".join(r.stdout.split())


def test_next_bound_beyond_the_range_is_said(tmp_path):
    r = invoke("check", "--set", "messages=8", "--set", "max_master_crashes=0", "--set", "max_master_power_losses=0",
               "--property", "replicas_agree", "--next-bound", "--max-states", "10", "--quiet")
    assert "next bound: one more of messages: not explored (messages=9 is beyond the model's range)" in \
        " ".join(r.stdout.split())


def test_graph_around_names_the_properties_of_the_mode(tmp_path, no_exploration):
    """``--graph-around one_master_per_epoch`` in controller mode answered "unknown property" with 4.4's list."""
    from cli_driver import assert_bad_input
    r = invoke("check", "--mode", "controller", "--set", "messages=1", "--graph", str(tmp_path / "g.dot"),
               "--graph-around", "one_master_per_epoch", "--property", "acked_message_on_every_later_master")
    assert_bad_input(r, "--graph-around one_master_per_epoch", "not among the checked properties",
                     "--property one_master_per_epoch")
    r = invoke("check", "--mode", "controller", "--set", "messages=1", "--graph", str(tmp_path / "g.dot"),
               "--graph-around", "replicas_agree", "--property", "acked_message_on_every_later_master")
    assert_bad_input(r, "--graph-around", "replicas_agree")
    assert "acked_message_on_every_later_master" in r.stderr and "consumed_message_never_lost" not in r.stderr


def test_every_result_says_what_a_state_cost_in_memory_and_on_disk(tmp_path):
    """Issue 47 item 4: stats.bytes_per_state (the resident memory the run added, per state) and
    stats.disk_bytes (0 for the local engine, which keeps nothing on disk) in the JSON and the console."""
    path = tmp_path / "r.json"
    r = invoke("check", "--preset", "default", "--property", "acked_message_eventually_consumed",
               "--json", str(path))
    stats = json.loads(path.read_text())["stats"]
    assert stats["disk_bytes"] == 0
    assert 0 < stats["bytes_per_state"] < 20_000   # 657,921 states: the store and edges, not the interpreter
    assert stats["bytes_per_state"] * stats["distinct_states"] <= stats["peak_rss_bytes"]
    assert "bytes a state added" in r.stdout
