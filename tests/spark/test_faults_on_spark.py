"""``faults --engine spark`` and ``matrix --engine spark``: the exhaustive exploration on the Spark engine
(spark_explore.faults) and the sweeps as Spark tasks (spark_explore.sweep) give the same answers, in the
same order, as the local engine and local processes."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from explore.sweep import Task
from spark_explore.faults import SparkFaultAnalysis
from spark_explore.sweep import SparkSweep, task_slots

from spark_compare import MASTER

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import assert_bad_input, invoke  # noqa: E402

#: ASYNC default, 1 message (29,627 states): four graph budget vectors, closing stops in the single changes
DEFAULT_SMALL = ("--set", "messages=1", "--max-configs", "4")
#: read-from-slave, 1 message: the closing search reaches sets of two changes
READ_FROM_SLAVE = ("--preset", "read-from-slave", "--set", "messages=1", "--max-configs", "14")
#: the controller mode, 1 message (12,274 states): its own failure kinds, witnesses and closing changes
CONTROLLER_SMALL = ("--preset", "controller", "--set", "messages=1", "--max-configs", "6")
#: no slave, 1 message (331 states, depth 12, levels peaking at 53 states): 8 modes of three properties
NO_SLAVE = ("--set", "messages=1", "--set", "slaves=0", "--max-configs", "2")


def _faults_json(tmp_path: Path, name: str, *args: str) -> dict:
    path = tmp_path / f"{name}.json"
    r = invoke("faults", *args, "--grow", "none", "--quiet", "--json", str(path))
    assert r.exit_code == 1, r.output
    return json.loads(path.read_text())


def _without_timings_and_engines(d: dict) -> dict:
    """What must not depend on where the sweeps ran: all but the seconds, the job count and the engine names."""
    d = json.loads(json.dumps(d))
    for key in ("seconds", "peak_rss_bytes", "bytes_per_state", "disk_bytes"):   # the process's and the engine's
        d["stats"].pop(key)
    d["sweep"].pop("jobs")
    d.pop("engine")
    d["sweep"].pop("engine")
    return d


@pytest.mark.parametrize("config", [DEFAULT_SMALL, READ_FROM_SLAVE, CONTROLLER_SMALL],
                         ids=["default", "read-from-slave", "controller"])
def test_faults_json_is_the_same_on_spark_and_local(config, tmp_path):
    """Spaces this small run every level in the Spark engine's driver: the pass runs there."""
    local = _faults_json(tmp_path, "local", *config, "--jobs", "2")
    spark = _faults_json(tmp_path, "spark", *config, "--engine", "spark", "--spark-master", MASTER)
    assert (local["engine"], spark["engine"]) == ("local", "spark")
    assert (local["sweep"]["engine"], spark["sweep"]["engine"]) == ("local", "spark")
    assert spark["sweep"]["jobs"] == 2                        # local[2]: two task slots
    assert spark["sweep"]["configurations"] > 4               # graph vectors and closing explorations ran
    assert any(m["closed_by"] for p in spark["properties"] for m in p.get("modes", []))
    assert _without_timings_and_engines(spark) == _without_timings_and_engines(local)


def test_faults_with_levels_on_the_cluster_match_local(tmp_path, monkeypatch):
    """From the level of 53 states on (7 levels), the levels are expanded by Spark stages and written to the
    work directory; the failure-mode pass then runs as Spark tasks over them, and the minima of its batches
    (witnesses, breaking transitions, their traces) are the local engine's."""
    passes = []
    on_cluster = SparkFaultAnalysis._on_cluster
    monkeypatch.setattr(SparkFaultAnalysis, "_on_cluster", lambda self: passes.append(1) or on_cluster(self))
    local = _faults_json(tmp_path, "local", *NO_SLAVE, "--jobs", "1")
    spark = _faults_json(tmp_path, "spark", *NO_SLAVE, "--engine", "spark", "--spark-master", MASTER,
                         "--driver-level-limit", "52")
    assert passes == [1]
    modes = [m for p in spark["properties"] for m in p.get("modes", [])]
    # a mode whose source state is on a level the cluster wrote (level 7 on): its trace is read back from there
    assert len(modes) == 8 and max(m["length"] for m in modes) >= 8
    assert _without_timings_and_engines(spark) == _without_timings_and_engines(local)


def test_spark_sweep_returns_results_in_task_order():
    """The first task is by far the longest, so the others finish first on the second slot; the results
    still come back in task order."""
    sizes = [20_000_000] + list(range(1, 8))
    tasks = [Task(sum, (range(n),)) for n in sizes]
    seen = []
    with SparkSweep(MASTER) as sweep:
        out = sweep.run(tasks, on_result=lambda i, r: seen.append(i))
        assert sweep.jobs == 2
    assert out.results == [sum(range(n)) for n in sizes]
    assert seen == list(range(len(tasks)))
    assert not out.interrupted and not out.failure and out.finished == len(tasks)


def test_a_lost_python_worker_ends_the_sweep_with_one_line_and_no_results():
    """A task whose Python worker dies (as on a lost executor: local mode does not retry) fails the job: the
    sweep keeps no result and says why in one line; the session still runs the next sweep."""
    with SparkSweep(MASTER) as sweep:
        out = sweep.run([Task(sum, (range(3),)), Task(os._exit, (3,))])
        assert out.interrupted and out.results == [None, None]
        assert out.failure.startswith("a Spark sweep failed: ") and "\n" not in out.failure
        assert sweep.run([Task(sum, (range(4),))]).results == [6]


def test_an_empty_sweep_starts_nothing():
    assert SparkSweep(MASTER).run([]).results == []


def test_task_slots_follow_the_master_url():
    assert [task_slots(u) for u in ("local", "local[3]", "local[2,4]")] == [1, 3, 2]


def test_matrix_on_spark_gives_the_local_verdicts(tmp_path, monkeypatch):
    swept = []
    run = SparkSweep.run
    monkeypatch.setattr(SparkSweep, "run", lambda self, tasks, *a: swept.append(len(tasks)) or run(self, tasks, *a))

    def configurations(*engine: str):
        path = tmp_path / f"m{len(engine)}.json"
        r = invoke("matrix", "--preset", "default", "--preset", "sync-master", "--set", "messages=1",
                   "--set", "max_master_crashes=0", "--quiet", "--json", str(path), *engine)
        assert r.exit_code == 1, r.output
        d = json.loads(path.read_text())
        return [(c["name"], c["stats"]["distinct_states"], c["stats"]["transitions"], c["properties"])
                for c in d["configurations"]]
    local = configurations()
    assert [name for name, *_ in local] == ["default", "sync-master"]
    assert swept == []
    assert configurations("--engine", "spark", "--spark-master", MASTER) == local
    assert swept == [2]    # one Spark sweep, a task per configuration


@pytest.mark.parametrize("command", ["faults", "matrix"])
@pytest.mark.parametrize("args, words", [
    (("--spark-master", "local[2]"), ("--spark-master", "--engine spark")),
    (("--driver-level-limit", "0"), ("--driver-level-limit", "--engine spark")),
    (("--engine", "spark", "--partitions", "0"), ("--partitions 0", "> 0")),
    (("--engine", "spark", "--jobs", "2"), ("--jobs", "--engine local")),
    (("--engine", "spark", "--spark-master", "local[abc]"), ("--spark-master 'local[abc]'", "not a master URL")),
    (("--engine", "spark", "--spark-master", "spark://nohost"), ("'spark://nohost'",)),
    (("--engine", "gpu"), ("--engine", "local", "spark")),
])
def test_bad_spark_options(command, args, words, tmp_path, monkeypatch):
    if command == "matrix" and ("--partitions" in args or "--driver-level-limit" in args):
        words = ("No such option", args[-2])   # matrix has neither: a usage error, still one line
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("rmqcheck.engines.sweep_runner", None)   # nothing may start Spark nor explore
    monkeypatch.setattr(f"rmqcheck.{command}.sweep_runner", None)
    r = invoke(command, "--set", "messages=1", "--json", "out.json", *args)
    assert_bad_input(r, *words)
    assert not (tmp_path / "out.json").exists()


def test_an_unreachable_master_is_bad_input_before_any_exploration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("explore.fault_search.FaultSearch", None)
    r = invoke("faults", "--set", "messages=1", "--json", "out.json", "--engine", "spark",
               "--spark-master", "spark://127.0.0.1:1")
    assert_bad_input(r, "cannot reach the Spark master")
    assert not (tmp_path / "out.json").exists()
