"""Every input path ends in one line and exit 2, never a traceback: the cases the issue "Never a false
verdict" found, each reproduced (files nested 100,000 deep, integers of 5,000 digits, /dev/zero as an
input file, out-of-range numbers, NaN, two presets, bad Spark master URLs, a full disk)."""
from __future__ import annotations

import json
import os

import pytest

from cli_driver import SMALL, TINY, TINY_ALWAYS, assert_bad_input, invoke
from model import load_toml

DEEP = 100_000
HUGE_INT = "9" * 5000


def toml_nested(tmp_path) -> str:
    path = tmp_path / "deep.toml"
    path.write_text("messages = " + "[" * DEEP + "]" * DEEP + "\n")
    return str(path)


def toml_huge_int(tmp_path) -> str:
    path = tmp_path / "huge.toml"
    path.write_text(f"messages = {HUGE_INT}\n")
    return str(path)


# -- parsed files ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, words", [
    (toml_nested, ("not valid TOML", "nested too deeply")),
    (toml_huge_int, ("not valid TOML", "4300")),
    (lambda tmp: "/dev/zero", ("a character device, not a regular file",)),
])
def test_config_files_that_break_parsers(tmp_path, make, words, no_exploration):
    path = make(tmp_path)
    assert_bad_input(invoke("check", "--config", path), f"config file {path!r}", *words)


@pytest.mark.parametrize("text, words", [
    ("[" * DEEP + "]" * DEEP, ("not valid JSON", "nested too deeply")),
    ('{"config": {}, "properties": [], "n": ' + HUGE_INT + "}", ("not valid JSON", "4300")),
    ('{"config": {}, "properties": [], "n": ' + "[" * 100 + "]" * 100 + "}", ("nested more than 64",)),
])
def test_replay_files_that_break_parsers(tmp_path, text, words):
    path = tmp_path / "t.json"
    path.write_text(text)
    assert_bad_input(invoke("replay", str(path)), "trace file", *words)


def test_dev_zero_as_every_input_file(no_exploration):
    assert_bad_input(invoke("replay", "/dev/zero"), "trace file '/dev/zero' is a character device")
    assert_bad_input(invoke("gate", "--baseline", "/dev/zero"), "baseline '/dev/zero' is a character device")
    assert_bad_input(invoke("check", "--config", "/dev/zero"), "config file '/dev/zero' is a character device")


@pytest.mark.parametrize("text", [
    "[[configuration]]\nname = 'x'\nset = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n",
    f"[[configuration]]\nname = 'x'\n[configuration.set]\nmessages = {HUGE_INT}\n",
])
def test_baselines_that_break_parsers(tmp_path, text, no_exploration):
    path = tmp_path / "b.toml"
    path.write_text(text)
    assert_bad_input(invoke("gate", "--baseline", str(path)), "baseline", "not valid TOML")


def test_a_replay_state_field_of_ten_to_the_twenty(tmp_path):
    r = invoke("check", *SMALL, "--property", "acked_message_never_lost", "--json", str(tmp_path / "r.json"))
    assert r.exit_code == 1
    data = json.loads((tmp_path / "r.json").read_text())
    trace = data["properties"][0]["trace"]
    trace[1]["state"]["producer.nextMessage"] = 10 ** 20
    (tmp_path / "t.json").write_text(json.dumps(data))
    assert_bad_input(invoke("replay", str(tmp_path / "t.json")), "step 1", "does not fit this configuration")


def test_a_toml_naming_two_different_presets_is_refused(tmp_path, no_exploration):
    path = tmp_path / "two.toml"
    path.write_text('preset = "sync-master"\n[config]\npreset = "sync-flush"\nmessages = 1\n')
    assert_bad_input(invoke("check", "--config", str(path)), "names two presets", "'sync-master'", "'sync-flush'")
    path.write_text('preset = "sync-master"\n[config]\npreset = "sync-master"\nmessages = 1\n')   # the same: fine
    cfg = load_toml(path)
    assert cfg.broker_role == "SYNC_MASTER" and cfg.messages == 1


# -- command-line values --------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (("--max-states", str(2 ** 63)), ("--max-states", "must be at most")),
    (("--max-states", str(10 ** 30)), ("--max-states", "must be at most")),
    (("--max-depth", str(2 ** 63)), ("--max-depth", "must be at most")),
    (("--max-seconds", "nan"), ("--max-seconds nan", "finite")),
    (("--max-seconds", "inf"), ("--max-seconds inf", "finite")),
    (("--max-seconds", "-inf"), ("--max-seconds -inf", "finite")),
    (("--max-seconds", "1e400"), ("--max-seconds inf", "finite")),
    (("--max-seconds", "1e12"), ("--max-seconds", "must be at most")),
    (("--engine", "spark", "--partitions", str(2 ** 63)), ("--partitions", "must be at most")),
    (("--engine", "spark", "--driver-level-limit", str(2 ** 64)), ("--driver-level-limit", "must be at most")),
    (("--engine", "spark", "--spark-master", "local[abc]"), ("--spark-master 'local[abc]'", "not a master URL")),
    (("--engine", "spark", "--spark-master", "localhost:7077"), ("'localhost:7077'", "spark://HOST:PORT")),
    (("--engine", "spark", "--spark-master", "spark://nohost"), ("'spark://nohost'",)),
    (("--engine", "spark", "--spark-master", ""), ("--spark-master", "'' is empty")),
    (("--engine", "spark", "--spark-master", "spark://host:99999"), ("'spark://host:99999'", "port 99999")),
    (("--engine", "spark", "--spark-master", "spark://a:7077,b:65536"), ("port 65536",)),
])
def test_out_of_range_values_are_refused_before_anything_starts(args, words, no_exploration, monkeypatch):
    monkeypatch.setattr("rmqcheck.engines.build_explorer",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("Spark started")))
    assert_bad_input(invoke("check", *TINY, *args), *words)


@pytest.mark.parametrize("url", ["local", "local[2]", "local[*]", "local[2,3]", "local[*,4]", "spark://h:7077",
                                 "spark://a:7077,b:7077"])
def test_valid_master_urls_pass_the_check(url):
    from rmqcheck.options import check_master_url
    check_master_url(url)


@pytest.mark.parametrize("args, words", [
    (("--walks", str(2 ** 63)), ("--walks", "must be at most")),
    (("--depth", str(10 ** 9)), ("--depth", "must be at most")),
    (("--seed", str(2 ** 64)), ("--seed", "must be at most")),
    (("--seed", "-1"), ("--seed -1", ">= 0")),
])
def test_simulate_values_out_of_range(args, words, no_exploration):
    assert_bad_input(invoke("simulate", *TINY, *args), *words)


# -- output paths ---------------------------------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_disk_full_on_json_is_one_line_and_no_other_file(tmp_path):
    report = tmp_path / "r.md"
    r = invoke("check", *TINY_ALWAYS, "--json", "/dev/full", "--report", str(report), "--quiet")
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rmqcheck: error: cannot write '/dev/full'")
    assert "No space left on device" in lines[0]
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_disk_full_leaves_no_itf_directory_behind(tmp_path):
    """Issue 45, item 5: ``--itf`` on a full disk left the ``itf/`` directory it made for the traces."""
    r = invoke("check", *TINY, "--property", "acked_message_never_lost", "--set", "max_master_power_losses=1",
               "--json", "/dev/full", "--itf", str(tmp_path / "itf"), "--quiet")
    assert r.exit_code == 2 and "No space left on device" in r.stderr, r.output
    assert os.listdir(tmp_path) == []


def test_a_work_dir_that_cannot_be_written_leaves_nothing_behind(tmp_path, monkeypatch):
    """Issue 45, item 5: the Spark work directory's write probe (``.write-test``) stayed on a full disk."""
    from pathlib import Path

    from spark_explore.errors import SparkUnavailable
    from spark_explore.workdir import WorkDir

    def full(self, *a, **k):
        self.touch()   # a full disk makes the file, then fails the write
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(SparkUnavailable, match="No space left on device"):
        WorkDir(str(tmp_path / "w"))
    assert os.listdir(tmp_path) == []
    (tmp_path / "given").mkdir()
    with pytest.raises(SparkUnavailable):
        WorkDir(str(tmp_path / "given"))
    assert os.listdir(tmp_path / "given") == []   # a directory the user gave stays, empty as it was


def test_json_dash_is_standard_output_and_the_console_goes_to_stderr(tmp_path):
    r = invoke("check", *TINY_ALWAYS, "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["outcome"] == "passed"
    assert "PASSED" in r.stderr
    assert not (tmp_path / "-").exists() and not os.path.exists("-")


def test_dash_is_refused_for_report_and_graph(no_exploration):
    assert_bad_input(invoke("check", *TINY, "--report", "-"), "--report '-'")
    assert_bad_input(invoke("check", *TINY, "--json", "-", "--graph", "-"), "--graph '-'")


def test_a_symlinked_output_is_written_through(tmp_path):
    target = tmp_path / "store" / "result.json"
    target.parent.mkdir()
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    r = invoke("check", *TINY_ALWAYS, "--json", str(link), "--quiet")
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and json.loads(target.read_text())["outcome"] == "passed"


def test_two_options_naming_one_file_through_a_symlink(tmp_path, no_exploration):
    (tmp_path / "a.md").write_text("")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    assert_bad_input(invoke("check", *TINY, "--json", str(tmp_path / "a.md"), "--report", str(tmp_path / "b.md")),
                     "name the same file")


def test_stale_temps_of_a_killed_run_are_cleaned_on_start(tmp_path):
    stale = tmp_path / ".r.json.999999999.x1y2z3.rmqcheck-tmp"
    stale.write_text('{"outcome": "passed"')
    r = invoke("check", *TINY_ALWAYS, "--json", str(tmp_path / "r.json"), "--quiet")
    assert r.exit_code == 0
    assert sorted(os.listdir(tmp_path)) == ["r.json"]
