"""`rmqcheck bench --quick`: the benchmark as a smoke test (no timing is asserted, only that it measures)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rmqcheck.bench import _fit, failure_summary, plan

FIELDS = {"name": str, "engine": str, "workers": int, "threads": int, "distinct_states": int, "transitions": int,
          "seconds": float, "states_per_second": float, "bytes_per_state": float, "peak_rss_bytes": int,
          "disk_bytes": int}


@pytest.mark.timeout(600)
def test_quick_bench_writes_the_documented_json(tmp_path):
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, "-m", "rmqcheck", "bench", "--quick", "--no-spark", "--json", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    names = [b["name"] for b in data["benchmarks"]]
    assert names == ["twophase-6", "default", "default-check"]
    for b in data["benchmarks"]:
        for key, kind in FIELDS.items():
            assert isinstance(b[key], kind) or (kind is float and isinstance(b[key], int)), (key, b[key])
        assert b["engine"] == "local" and b["workers"] == 1
        assert b["states_per_second"] > 0 and b["bytes_per_state"] >= 0
        # machine-wide, from /proc/stat: its clock ticks (1/100 s on each core, at both ends) make a short
        # run's figure uncertain by up to 2 ticks a core over the run's seconds (2.62 on two cores was seen)
        cores = os.cpu_count() or 1
        assert 0 <= b["cores_busy"] <= cores + 0.5 + 2 * cores / (os.sysconf("SC_CLK_TCK") * b["seconds"])
    # the counts are the exploration's own: two-phase commit with 6 resource managers
    assert (data["benchmarks"][0]["distinct_states"], data["benchmarks"][0]["transitions"]) == (50816, 402305)
    assert "twophase-6" in run.stdout
    from reports.result_schema import result_schema   # the shipped schema knows the bench document
    import jsonschema
    jsonschema.validate(data, result_schema(), cls=jsonschema.Draft202012Validator)


def test_bad_worker_list_is_bad_input():
    run = subprocess.run([sys.executable, "-m", "rmqcheck", "bench", "--quick", "--workers", "two"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--workers" in run.stderr and run.stderr.count("\n") == 1


def test_plan_runs_each_local_benchmark_at_every_thread_count_side_by_side():
    specs = plan(quick=True, spark=False, workers=(1,), threads=(1, 2))
    assert [(s["name"], s["threads"]) for s in specs] == [
        ("twophase-6", 1), ("twophase-6", 2), ("default", 1), ("default", 2), ("default-check", 1),
        ("default-check", 2)]


def test_thread_scaling_compares_each_count_with_the_fewest():
    from rmqcheck.bench import thread_scaling
    runs = [{"name": "bench", "engine": "local", "threads": 1, "states_per_second": 100.0},
            {"name": "bench", "engine": "local", "threads": 2, "states_per_second": 180.0}]
    assert thread_scaling(runs) == ["bench: 2 threads 1.80x the states/s of 1"]


def test_bad_thread_list_is_bad_input():
    run = subprocess.run([sys.executable, "-m", "rmqcheck", "bench", "--quick", "--threads", "1,999"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--threads" in run.stderr and run.stderr.count("\n") == 1


def test_plan_compares_one_and_two_spark_workers():
    specs = plan(quick=False, spark=True, workers=(1, 2))
    assert [s["name"] for s in specs] == ["twophase-8", "bench", "bench-check", "bench-live", "controller",
                                          "controller-allack", "controller-unclean", "controller-namesrv",
                                          "controller-offsets", "controller-queues", "controller-sync-flush",
                                          "controller-stale-tail", "controller-quorum", "controller-cluster",
                                          "spark-bench", "spark-bench"]
    assert [s.get("workers") for s in specs[-2:]] == [1, 2]


def test_a_controller_preset_runs_in_its_own_mode_and_is_held_to_its_pinned_size():
    """The controller entries explore the controller model (pinned sizes: tests/tooling/pinned.toml)."""
    from rmqcheck.bench import pinned_mismatch
    from tests.tooling.pinned import load

    pinned = load()["ctl-controller"]
    spec = next(s for s in plan(quick=False, spark=False, workers=(1,)) if s["name"] == "controller")
    assert spec["kind"] == "model" and spec["preset"] == "controller"
    assert pinned_mismatch(spec, {"distinct_states": pinned.distinct_states, "transitions": pinned.transitions}) is None
    assert f"pinned at {pinned.distinct_states:,}" in pinned_mismatch(spec, {"distinct_states": 1, "transitions": 2})


def test_overhead_fit_recovers_intercept_and_slope():
    points = [(n, 0.8 + 2e-6 * n) for n in (1_000, 50_000, 200_000, 900_000)]
    overhead, per_state = _fit(points)
    assert overhead == pytest.approx(0.8) and per_state == pytest.approx(2e-6)


def test_a_failed_benchmark_reports_its_exception_not_the_spark_log():
    stderr = ("26/11/22 10:04:47 INFO Worker: Successfully registered with master spark://127.0.0.1:1\n"
              "Traceback (most recent call last):\n"
              '  File "/x/rmqcheck/bench.py", line 9, in run_one\n'
              "    result = explore()\n"
              "pyspark.errors.exceptions.captured.IllegalArgumentException: executor lost\n"
              "26/11/22 10:04:48 WARN Worker: Executor app-1/0 finished with state KILLED\n"
              "26/11/22 10:04:49 INFO Worker: Cleaning up local directories\n")
    assert failure_summary(stderr) == "pyspark.errors.exceptions.captured.IllegalArgumentException: executor lost"
    assert failure_summary("26/11/22 10:04:47 INFO Master: up\nKilled\n") == "Killed"
    assert failure_summary("") == "no error output"


def test_measured_benchmarks_are_kept_when_a_later_one_fails(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import rmqcheck.bench as B

    def fake(spec, timeout):
        if spec["name"] == "default":
            raise B.click.ClickException("benchmark default failed (exit code 1): boom")
        return {"name": spec["name"], "engine": "local", "workers": 1, "threads": 1, "distinct_states": 5,
                "transitions": 7,
                "seconds": 1.0, "states_per_second": 5.0, "bytes_per_state": 1.0, "cores_busy": 1.0}

    monkeypatch.setattr(B, "run_in_subprocess", fake)
    out = tmp_path / "b.json"
    run = CliRunner().invoke(B.bench, ["--quick", "--no-spark", "--json", str(out)])
    assert run.exit_code == 1 and "boom" in run.output
    data = json.loads(out.read_text())
    assert [b["name"] for b in data["benchmarks"]] == ["twophase-6"]
    assert data["failed"] == "benchmark default failed (exit code 1): boom"


def test_the_pinned_sizes_are_the_tables_whole_presets_and_none_without_the_table(tmp_path):
    """Every preset pinned whole (no knob set, no seeded bug), of every mode, from tests/tooling/pinned.toml; an
    installed rmqcheck without the source tree has no table, so no size to hold a benchmark to."""
    from rmqcheck.bench import PINNED_COUNTS, pinned_counts
    from tests.tooling.pinned import load

    whole = [e for e in load().values() if e.preset and not e.knobs and not e.mutation]
    assert PINNED_COUNTS == {e.preset: (e.distinct_states, e.transitions) for e in whole}
    assert {"bench", "controller"} <= set(PINNED_COUNTS)
    assert pinned_counts(tmp_path / "absent.toml") == {}


def test_a_benchmark_whose_counts_differ_from_the_pin_says_so():
    from rmqcheck.bench import PINNED_COUNTS, pinned_mismatch
    spec = {"name": "bench", "preset": "bench"}
    states, transitions = PINNED_COUNTS["bench"]
    assert pinned_mismatch(spec, {"distinct_states": states, "transitions": transitions}) is None
    text = pinned_mismatch(spec, {"distinct_states": states - 1, "transitions": transitions})
    assert text and "pinned" in text and f"{states - 1:,}" in text
    # overrides make another space: no pin applies
    assert pinned_mismatch({**spec, "set": ["messages=1"]}, {"distinct_states": 1, "transitions": 1}) is None


def test_spark_costs_compare_cpu_per_state_with_the_local_run_of_the_same_preset():
    from rmqcheck.bench import spark_costs
    local = {"name": "bench", "engine": "local", "threads": 1, "distinct_states": 100, "cpu_us_per_state": 2.0}
    spark = {"name": "spark-bench", "engine": "spark", "workers": 1, "distinct_states": 100, "cpu_us_per_state": 7.0,
             "executor_peak_rss_bytes": 3 << 20, "executor_bytes_per_state": 31457.28,
             "executor_growth_bytes": 2 << 20, "executor_growth_bytes_per_state": 20971.52}
    (line,) = spark_costs([local, dict(local, threads=2, cpu_us_per_state=9.0), spark])
    assert "7.00 CPU-us per state, 3.50x the local engine's" in line
    assert "grew 2 MiB, 20971.5 bytes per visited state" in line and "peak 3 MiB" in line and "31457.3 bytes" in line
    (line,) = spark_costs([dict(local, distinct_states=99), spark])   # another space: no ratio
    assert "x the local" not in line


def test_executor_growth_counts_what_a_marked_process_added_and_a_new_process_whole():
    """The peak mark is real (/proc clear_refs on a live child): memory touched after the mark counts, what
    the process held or peaked at before does not; a process started after the mark counts whole."""
    import subprocess
    import time
    from rmqcheck import cpu_roles
    code = ("import sys; a = bytearray(64 << 20); del a; sys.stdout.write('r\\n'); sys.stdout.flush(); sys.stdin.readline(); "
            "b = bytearray(32 << 20); sys.stdout.write('g\\n'); sys.stdout.flush(); sys.stdin.readline()")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "r\n"
        snap = {child.pid: ("python_workers", 0.0)}
        marks = cpu_roles.mark_peaks(snap, ("python_workers",))
        assert 0 < marks[child.pid] < 48 << 20   # the 64 MiB are freed, the peak is not
        child.stdin.write("\n"); child.stdin.flush()
        assert child.stdout.readline() == "g\n"
        grown = cpu_roles.growth(marks, snap, ("python_workers",))
        assert 32 << 20 <= grown < 48 << 20, grown
        assert cpu_roles.growth({}, snap, ("python_workers",)) >= 32 << 20   # not marked: its whole peak
        assert cpu_roles.growth(marks, snap, ("executor_jvms",)) == 0
    finally:
        child.kill()
        child.wait()


def fake_runs(seconds: dict[int, list[float]]):
    """A runner that returns the next of ``seconds[threads]`` for each run, and the order it was asked."""
    asked = []
    left = {t: list(v) for t, v in seconds.items()}

    def run(spec):
        asked.append(spec["threads"])
        s = left[spec["threads"]].pop(0)
        return {"name": spec["name"], "engine": "local", "threads": spec["threads"], "seconds": s,
                "states_per_second": 1000 / s}

    return run, asked


def test_a_short_benchmark_runs_repeat_times_interleaved_and_reports_the_median_run():
    from rmqcheck.bench import measure_group
    run, asked = fake_runs({1: [1.8, 1.6, 2.4, 1.7, 1.9], 2: [1.1, 0.9, 1.0, 1.5, 1.2]})
    group = [{"name": "twophase-8", "kind": "twophase", "threads": 1},
             {"name": "twophase-8", "kind": "twophase", "threads": 2}]
    picked: list = []
    measure_group(group, 5, run, lambda spec, k: None, picked)
    assert asked == [1, 2] * 5
    assert [(p["threads"], p["seconds"], p["runs"]) for p in picked] == [(1, 1.8, 5), (2, 1.1, 5)]
    assert picked[0]["seconds_runs"] == [1.8, 1.6, 2.4, 1.7, 1.9]
    # an even count takes the lower middle run
    run, _ = fake_runs({1: [3.0, 1.0, 2.0, 4.0]})
    picked = []
    measure_group(group[:1], 4, run, lambda spec, k: None, picked)
    assert picked[0]["seconds"] == 2.0


def test_a_long_benchmark_runs_once_whatever_repeat_says():
    from rmqcheck.bench import REPEAT_UNDER, measure_group
    run, asked = fake_runs({1: [REPEAT_UNDER + 30], 2: [REPEAT_UNDER - 1]})   # one count long: no repeat
    group = [{"name": "bench", "kind": "model", "threads": 1}, {"name": "bench", "kind": "model", "threads": 2}]
    picked: list = []
    measure_group(group, 5, run, lambda spec, k: None, picked)
    assert asked == [1, 2] and [p["runs"] for p in picked] == [1, 1]


def test_a_failed_run_keeps_what_was_measured_before_it():
    from rmqcheck.bench import measure_group
    run, asked = fake_runs({1: [1.0, 1.2], 2: [0.6]})   # the second 2-thread run fails (nothing left)
    group = [{"name": "twophase-8", "kind": "twophase", "threads": 1},
             {"name": "twophase-8", "kind": "twophase", "threads": 2}]
    picked: list = []
    with pytest.raises(IndexError):
        measure_group(group, 5, run, lambda spec, k: None, picked)
    assert [(p["threads"], p["runs"], p["seconds_runs"]) for p in picked] == [(1, 2, [1.0, 1.2]), (2, 1, [0.6])]


def test_the_plan_groups_each_benchmark_with_its_thread_counts_and_spark_runs_alone():
    from rmqcheck.bench import groups
    specs = plan(quick=True, spark=True, workers=(1, 2), threads=(1, 2))
    assert [[(s["name"], s.get("threads"), s.get("workers")) for s in g] for g in groups(specs)] == [
        [("twophase-6", 1, None), ("twophase-6", 2, None)], [("default", 1, None), ("default", 2, None)],
        [("default-check", 1, None), ("default-check", 2, None)], [("spark-default-1msg", None, 1)],
        [("spark-default-1msg", None, 2)]]


def test_thread_scaling_says_how_many_runs_and_their_spread():
    from rmqcheck.bench import thread_scaling
    runs = [{"name": "twophase-8", "engine": "local", "threads": 1, "states_per_second": 100.0, "runs": 5,
             "seconds_runs": [1.8, 1.6, 2.4, 1.7, 1.9]},
            {"name": "twophase-8", "engine": "local", "threads": 2, "states_per_second": 160.0, "runs": 5,
             "seconds_runs": [1.1, 0.9, 1.0, 1.5, 1.2]}]
    assert thread_scaling(runs) == ["twophase-8: 2 threads 1.60x the states/s of 1 (median of 5 runs each; "
                                    "1 thread 1.60-2.40 s, 2 threads 0.90-1.50 s)"]
    assert thread_scaling(runs[:1]) == ["twophase-8: median of 5 runs (1.60-2.40 s)"]
