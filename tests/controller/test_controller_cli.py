"""``--mode``: check runs either mode through one interface; mixing the modes' knobs and an unknown mode
are bad input (exit 2, one line)."""
from __future__ import annotations

import html
import json

from cli_driver import assert_bad_input, invoke

ALWAYS = ("acked_message_on_every_later_master", "queue_offset_names_one_message",
          "delivered_message_stays_on_master", "one_master_per_epoch", "epoch_file_agrees_with_log")
#: one message, no failure (510 states): every always property holds
TINY = ("--set", "messages=1", "--set", "max_broker_crashes=0") + tuple(a for p in ALWAYS for a in ("--property", p))


def test_check_runs_the_controller_mode():
    r = invoke("check", "--mode", "controller", *TINY, "--json", "-", "--quiet", "--traces", "none")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["stats"]["distinct_states"] == 510
    assert doc["config"]["mode"] == "controller"
    assert {p["name"]: p["status"] for p in doc["properties"]} == dict.fromkeys(ALWAYS, "holds")


def test_the_reports_name_the_controller_modes_defaults(tmp_path):
    """The knobs line of a report is relative to the run's own mode's defaults, not 4.4's."""
    for name in ("r.md", "r.html"):
        r = invoke("check", "--mode", "controller", *TINY, "--quiet", "--report", str(tmp_path / name))
        assert r.exit_code == 0, r.stderr
        text = html.unescape((tmp_path / name).read_text())
        assert "Knobs that differ from the controller mode's defaults (RocketMQ 5.3.3)" in text, name
        assert "4.4 defaults" not in text, name


def test_a_controller_preset_and_a_toml_mode_choose_the_mode(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('mode = "controller"\nmessages = 1\nmax_broker_crashes = 0\n')
    by_file = invoke("check", "--config", str(path), *TINY[4:], "--json", "-", "--quiet", "--traces", "none")
    by_preset = invoke("check", "--preset", "controller", *TINY, "--json", "-", "--quiet", "--traces", "none")
    assert by_file.exit_code == by_preset.exit_code == 0, by_file.stderr + by_preset.stderr
    counts = [{k: json.loads(r.stdout)["stats"][k] for k in ("distinct_states", "transitions", "depth")}
              for r in (by_file, by_preset)]
    assert counts[0] == counts[1]


def test_a_4_4_knob_in_controller_mode_is_bad_input(no_exploration):
    assert_bad_input(invoke("check", "--mode", "controller", "--set", "slaves=2"), "'slaves'", "mode controller")


def test_a_controller_knob_in_4_4_mode_is_bad_input(no_exploration):
    assert_bad_input(invoke("check", "--set", "all_ack_in_sync_state_set=true"),
                     "'all_ack_in_sync_state_set'", "mode 4.4")


def test_an_unknown_mode_is_bad_input(no_exploration):
    assert_bad_input(invoke("check", "--mode", "5.0"), "unknown mode '5.0'", "controller")


def test_modes_that_disagree_are_bad_input(no_exploration):
    assert_bad_input(invoke("check", "--mode", "4.4", "--preset", "controller"), "preset 'controller'",
                     "mode 4.4")


def test_the_4_4_default_ignores_a_mode_line(tmp_path):
    path = tmp_path / "d.toml"
    path.write_text('mode = "4.4"\nmessages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n')
    r = invoke("check", "--config", str(path), "--property", "acked_message_never_lost", "--json", "-", "--quiet",
               "--traces", "none")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["stats"]["distinct_states"] == 351   # the golden one-message-no-failures


def test_every_controller_name_is_on_the_interface_page():
    from pathlib import Path

    from invariants.controller import PROPERTIES
    from model.controller import KNOBS, PRESETS

    page = (Path(__file__).resolve().parents[2] / "docs" / "interface.md").read_text()
    names = [k.key for k in KNOBS] + list(PRESETS) + PROPERTIES.names()
    assert [n for n in names if f"`{n}`" not in page] == []


def test_simulate_runs_the_controller_mode():
    r = invoke("simulate", "--preset", "controller", "--property", "one_master_per_epoch", "--walks", "30",
               "--depth", "30", "--seed", "7", "--json", "-", "--quiet")
    assert r.exit_code == 3, r.stderr   # random walks prove nothing: incomplete, no violation
    doc = json.loads(r.stdout)
    assert doc["config"]["mode"] == "controller"
    assert [p["status"] for p in doc["properties"]] != ["violated"]


def test_replay_replays_a_controller_trace_and_re_explores_it(tmp_path):
    path = tmp_path / "c.json"
    r = invoke("check", "--preset", "controller", "--set", "messages=1", "--json", str(path), "--quiet",
               "--traces", "none")
    assert r.exit_code == 1, r.stderr   # acked_message_on_every_later_master is violated
    again = invoke("replay", str(path))
    assert again.exit_code == 0, again.stderr
    assert "acked_message_on_every_later_master: the last state still shows it violated" in again.stdout
    assert "acked_message_on_every_later_master: recorded violated; exploration agrees" in again.stdout


def test_matrix_runs_presets_of_one_mode():
    r = invoke("matrix", "--preset", "controller", "--preset", "controller-allack", "--set", "messages=1",
               "--property", "acked_message_on_every_later_master", "--json", "-", "--quiet")
    assert r.exit_code == 1, r.stderr
    assert '"controller-allack"' in r.stdout and '"holds"' in r.stdout and '"violated"' in r.stdout


def test_matrix_of_two_modes_is_bad_input(no_exploration):
    assert_bad_input(invoke("matrix", "--preset", "controller", "--preset", "default"), "modes controller and 4.4")
