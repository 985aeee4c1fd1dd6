"""A run file: the [run] table of a --config TOML file holds the properties, limits, engine and threads of a
run; options given on the command line win over it."""
from __future__ import annotations

import json

import pytest

from cli_driver import assert_bad_input, invoke

RUN = """\
messages = 1
max_master_crashes = 0

[run]
properties = ["replicas_agree", "slave_serves_pull"]
max_depth = 1
threads = 1
"""


def _result(tmp_path, *args):
    out = tmp_path / "r.json"
    result = invoke("check", *args, "--quiet", "--json", str(out))
    return result, json.loads(out.read_text()) if out.exists() else None


def test_the_run_table_gives_properties_and_limits(tmp_path):
    run = tmp_path / "run.toml"
    run.write_text(RUN)
    result, data = _result(tmp_path, "--config", str(run))
    assert result.exit_code == 3, result.stderr                 # max_depth = 1 stopped it
    assert [p["name"] for p in data["properties"]] == ["replicas_agree", "slave_serves_pull"]
    assert (data["outcome"], data["stats"]["depth"]) == ("incomplete", 1)
    assert data["config"]["messages"] == 1


def test_options_given_win_over_the_run_table(tmp_path):
    run = tmp_path / "run.toml"
    run.write_text(RUN)
    result, data = _result(tmp_path, "--config", str(run), "--max-depth", "1000", "--property", "acked_message_never_lost")
    assert result.exit_code in (0, 1), result.stderr           # past the run table's depth 1
    assert data["outcome"] == "violated" and data["stats"]["depth"] > 1
    assert [p["name"] for p in data["properties"]] == ["acked_message_never_lost"]


def test_config_prints_the_run_table_back(tmp_path):
    run = tmp_path / "run.toml"
    run.write_text(RUN)
    result = invoke("config", "--config", str(run))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith('[run]\nproperties = ["replicas_agree", "slave_serves_pull"]\n'
                                  'max_depth = 1\nthreads = 1\n')


@pytest.mark.parametrize("table, key", [
    ("max_sates = 5", "max_sates"),
    ("properties = \"replicas_agree\"", "properties"),
    ("threads = 1.5", "threads"),
    ("engine = \"nope\"", "engine"),
    ("properties = [\"no_such_property\"]", "no_such_property"),
])
def test_a_bad_run_table_is_bad_input(tmp_path, no_exploration, table, key):
    run = tmp_path / "run.toml"
    run.write_text(f"messages = 1\n[run]\n{table}\n")
    assert_bad_input(invoke("check", "--config", str(run)), key)


def test_the_example_run_file_reads_its_broker_files_relative_to_itself():
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "run.toml"
    result = invoke("config", "--config", str(example))
    assert result.exit_code == 0, result.stderr
    assert 'broker_role = "SYNC_MASTER"   # brokerRole in broker-a.properties' in result.stdout
    assert "slaves = 1   # 1 SLAVE file" in result.stdout
    assert "max_seconds = 600" in result.stdout


def test_a_gate_baseline_points_to_a_run_file(tmp_path):
    """A baseline configuration may be a run file (config = "FILE", inside the baseline's directory): its
    knobs, its broker files (inside the run file's directory) and its properties are what the gate explores
    and pins."""
    import shutil
    from pathlib import Path
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "2m-2s-sync", tmp_path / "conf")
    (tmp_path / "prod.toml").write_text(
        "messages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n[run]\n"
        "broker_conf = [\"conf/broker-a.properties\", \"conf/broker-a-s.properties\"]\n"
        "properties = [\"acked_message_never_lost\", \"replicas_agree\"]\nmax_states = 1\n")
    baseline = tmp_path / "baseline.toml"
    baseline.write_text("[[configuration]]\nname = \"prod\"\nconfig = \"prod.toml\"\n")
    assert invoke("gate", "--baseline", str(baseline), "--update").exit_code == 0
    text = baseline.read_text()
    assert 'acked_message_never_lost = "holds"' in text and 'replicas_agree = "holds"' in text
    assert "no_message_skipped" not in text            # the run file's properties only
    assert "explored: " in text and "explored: 1 distinct states" not in text   # its max_states is not the gate's
    result = invoke("gate", "--baseline", str(baseline))
    assert result.exit_code == 0, result.output
    baseline.write_text(text.replace('config = "prod.toml"', 'config = "prod.toml"\npreset = "default"'))
    assert_bad_input(invoke("gate", "--baseline", str(baseline)), "preset and config")
