"""``--threads``: the local engine on several threads from the command line, the same answer as on one."""
from __future__ import annotations

import json

import pytest
from cli_driver import TINY, assert_bad_input, invoke

from explore.sweep import usable_cores
from tests.tooling.pinned import pinned
from rmqcheck.setup import BadInput, parallelism

TIMINGS = ("seconds", "states_per_second", "peak_rss_bytes", "bytes_per_state")   # the process, not the model


def answer(path) -> dict:
    data = json.loads(path.read_text())
    for key in TIMINGS:
        data["stats"].pop(key)
    assert data.pop("reproduce").startswith("rmqcheck check --preset default --threads ")   # the command line
    return data


def test_check_gives_the_same_json_on_one_and_two_threads(tmp_path):
    # default: levels of up to 47,091 states, so the largest ones run in threaded rounds
    runs = {}
    for threads in (1, 2):
        out = tmp_path / f"t{threads}.json"
        r = invoke("check", "--preset", "default", "--threads", str(threads), "--quiet", "--json", str(out))
        assert r.exit_code == 1, r.output
        runs[threads] = answer(out)
    assert runs[1]["stats"]["distinct_states"] == pinned("default").distinct_states
    assert runs[1] == runs[2]


@pytest.mark.parametrize("value", ["0", "-1", "65"])
def test_a_thread_count_out_of_range_is_bad_input(value):
    assert_bad_input(invoke("check", *TINY, "--threads", value), "--threads")


def test_threads_belong_to_the_local_engine():
    assert_bad_input(invoke("check", *TINY, "--engine", "spark", "--threads", "1"), "--threads", "local")


def test_jobs_times_threads_may_not_exceed_the_usable_cores():
    cores = usable_cores()
    assert_bad_input(invoke("matrix", *TINY, "--preset", "default", "--jobs", "1", "--threads", str(cores + 1)),
                     "--threads")
    if cores >= 2:
        assert_bad_input(invoke("matrix", *TINY, "--preset", "default", "--jobs", "2", "--threads", str(cores)),
                         "--jobs", "--threads", "usable cores")
        assert_bad_input(invoke("faults", *TINY, "--jobs", "2", "--threads", str(cores)), "--jobs", "--threads")


def test_parallelism_shares_the_cores_among_jobs(monkeypatch):
    monkeypatch.setattr("explore.sweep.usable_cores", lambda: 8)
    assert parallelism(None, 1) == (1, 8)              # check, gate: one exploration on every core
    assert parallelism(None, None, default_jobs=0) == (8, 1)   # faults' sweep: a job per core
    assert parallelism(2, None, default_jobs=0) == (4, 2)      # threads given: jobs fill the rest
    assert parallelism(None, 4) == (4, 2)
    assert parallelism(None, None, default_jobs=1) == (1, 8)   # matrix: one job unless told otherwise
    with pytest.raises(BadInput):
        parallelism(3, 3)


@pytest.mark.parametrize("command", ["matrix", "faults"])
def test_threads_are_refused_where_spark_runs_the_sweep(command):
    assert_bad_input(invoke(command, *TINY, "--engine", "spark", "--threads", "1"), "--threads", "local")
