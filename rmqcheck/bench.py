"""``rmqcheck bench``: how fast and how lean exploration is, measured, never asserted.

Each benchmark runs in a fresh Python process (``python -m rmqcheck.bench RUN SPEC``) so that its memory
growth is its own: after the kernels are loaded and warmed up the process notes its resident set size,
explores, and reports the growth of its peak RSS per distinct state. Benchmarks:

- ``twophase-N``: the two-phase-commit toy model (design.md) on the local engine: raw engine speed.
  Every local benchmark runs at every ``--threads`` count (default 1; ``--threads 1,2`` side by side),
  each entry carrying its ``threads``. One that takes under :data:`REPEAT_UNDER` seconds at every count
  (every local benchmark of the full suite) runs ``--repeat`` times per count (interleaved: 1, 2, 1, 2
  threads...), and its entry is the run of median time: on this shared machine one run of the same
  benchmark swings by a third from the next, a one-second one and a forty-second one alike.
- ``bench``: the RocketMQ ``bench`` preset, explored exhaustively without property checks (the engine's
  throughput and memory per state); ``bench-check``: the same preset with every property but the
  eventually ones (checks, edges for the graph property and the backward reachability included);
  ``bench-live``: the same under ``rmqcheck check``'s default selection, the eventually properties too
  (their edge labelling and component searches included: docs/liveness.md, Cost, compares the two).
- ``controller``, ``controller-allack``, ``controller-unclean`` and the presets of the cluster's mechanisms
  (``controller-namesrv``, ``-offsets``, ``-queues``, ``-sync-flush``, ``-stale-tail``, ``-quorum``, ``-cluster``): the controller mode's presets (RocketMQ
  5.3.3, docs/controller.md), each explored exhaustively without property checks: each must take under a
  minute on the reference machine (measured here, never asserted).
- ``spark-bench``: the ``bench`` preset on a Spark standalone cluster started on 127.0.0.1 with one, then
  two workers: total time, time per level, throughput, and the fixed overhead per level - the median time
  of a cluster level of under a thousand states, measured first with a small configuration on the same
  warm cluster (every level on the cluster), so that it holds no state-proportional work; and the CPU
  seconds each kind of process spent (:mod:`rmqcheck.cpu_roles`: driver, executors, Python workers, the
  cluster's daemons), which shows where a second worker's extra CPU goes.

Every benchmark reports the process's peak resident memory (``peak_rss_bytes``), its growth per distinct
state (``bytes_per_state``) and the bytes kept on disk (``disk_bytes``: a Spark work directory; a compact run's
parent links and graph). ``--compact`` runs the local benchmarks with the compact visited set (explore/compact.py;
``bench-check`` and ``bench-live`` with their graph on disk, explore/compact_graph.py).

``--quick`` runs small sizes only (a smoke test for CI).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

import click

from . import cpu_roles

QUICK = {"twophase": 6, "preset": "default", "spark_preset": "default", "spark_set": ["messages=1"]}
FULL = {"twophase": 8, "preset": "bench", "spark_preset": "bench", "spark_set": []}
#: the tests' pinned table (tests/tooling/pinned.toml, every mode's configurations), in the source tree
PINNED_TABLE = Path(__file__).resolve().parents[1] / "tests" / "tooling" / "pinned.toml"


def pinned_counts(path: Path = PINNED_TABLE) -> dict[str, tuple[int, int]]:
    """The pinned size (distinct states, transitions) of each preset pinned whole (no knob set, no seeded bug),
    in any mode: a benchmark of such a preset whose count differs measured another model, and says so. Empty
    where the table is not (an installed rmqcheck without its source tree: no size to hold a run to)."""
    if not path.is_file():
        return {}
    return {e["preset"]: (int(e["distinct_states"]), int(e["transitions"]))
            for e in tomllib.loads(path.read_text())["configuration"]
            if e.get("preset") and not e.get("set") and not e.get("mutation")}


PINNED_COUNTS = pinned_counts()
#: presets of the other registered modes, each a benchmark of its own (explored whole, no property; the
#: registry finds each one's mode)
MODE_PRESETS = ("controller", "controller-allack", "controller-unclean", "controller-namesrv", "controller-offsets",
                "controller-queues", "controller-sync-flush", "controller-stale-tail", "controller-quorum",
                "controller-cluster")
#: the processes that hold a Spark run's visited set and levels: their memory is the executors'
EXECUTOR_ROLES = ("executor_jvms", "python_workers")
#: a local benchmark whose every run took less than this (seconds) is run ``--repeat`` times
REPEAT_UNDER = 120.0


def pinned_mismatch(spec: dict[str, Any], result: dict[str, Any]) -> str | None:
    """Why ``result`` contradicts the pinned size of its preset, or None (no pin, or overrides applied)."""
    pinned = PINNED_COUNTS.get(spec.get("preset", ""))
    if pinned is None or spec.get("set"):
        return None
    got = (result["distinct_states"], result["transitions"])
    if got == pinned:
        return None
    return (f"benchmark {spec['name']} explored {got[0]:,} states and {got[1]:,} transitions, but the "
            f"{spec['preset']} preset is pinned at {pinned[0]:,} and {pinned[1]:,} (tests/tooling/pinned.toml): "
            "the model's reachable behaviour changed")


# -- one benchmark, in its own process ------------------------------------------------------------------
def _rss_bytes() -> int:
    return cpu_roles.status_bytes("self", "VmRSS")


def _peak_rss_bytes() -> int:
    return cpu_roles.status_bytes("self", "VmHWM")


def _busy_cpu_seconds() -> float:
    """CPU time the whole machine has spent busy (user, nice, system, irq, softirq; not idle, iowait or
    steal) since boot, from /proc/stat: over a run, the cores its processes kept busy - the Spark driver,
    master, workers, executors and Python workers included."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:8]]
    except (OSError, ValueError):
        return float("nan")
    user, nice, system, _idle, _iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _measured(explore: Callable[[], Any]) -> tuple[Any, float, int, float]:
    """``explore()`` measured from a fresh peak-RSS mark: its result, wall seconds, growth of this process's
    peak RSS in bytes, and the machine's busy CPU seconds meanwhile."""
    cpu_roles.reset_peak("self")   # so warming up does not count
    base = _rss_bytes()
    busy = _busy_cpu_seconds()
    t = time.perf_counter()
    result = explore()
    seconds = time.perf_counter() - t
    busy = _busy_cpu_seconds() - busy
    return result, seconds, max(_peak_rss_bytes() - base, 0), busy


def workload(spec: dict[str, Any]) -> tuple[Any, Any]:
    """A benchmark's model and properties, once a small run has loaded the compiled kernels (on the
    spec's threads; ``bench/perf_map.py`` profiles the same workloads)."""
    from explore.local import LocalExplorer
    from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase

    threads = spec.get("threads", 1)
    if spec["kind"] == "twophase":
        model = TwoPhase(spec["rms"])
        props = dataclasses.replace(TWOPHASE_PROPERTIES, properties=())
        # warm up: load the compiled kernels, the threaded ones too (parallel_from=1: a level this small
        # would otherwise stay on the one-thread path and leave their loading to the timed run)
        LocalExplorer(TwoPhase(3), props, threads=threads, parallel_from=1).run()
        return model, props
    return mode_workload(spec, threads)


def mode_workload(spec: dict[str, Any], threads: int) -> tuple[Any, Any]:
    """A registered mode's preset (``mode``: the one naming ``preset``; ``set``: overrides) with no property,
    or with its properties but the eventually ones (``check``), or every one (``check`` and ``live``: the
    eventually properties' cost); its kernels loaded by a small run of the mode's defaults first."""
    from explore.local import LocalExplorer
    from invariants.base import EVENTUALLY
    from model.modes import get_mode, mode_of_preset

    mode = get_mode(spec.get("mode") or mode_of_preset(spec["preset"]))
    every = mode.properties()
    model = mode.model(mode.preset(spec["preset"]).with_overrides(spec.get("set", [])))
    props = dataclasses.replace(every, properties=())
    if spec.get("check"):
        props = every if spec.get("live") else every.without([EVENTUALLY])
    warm = mode.model(mode.preset(mode.default_preset).with_overrides(["messages=1"]))
    LocalExplorer(warm, every, threads=threads, parallel_from=1).run()
    return model, props


def run_one(spec: dict[str, Any]) -> dict[str, Any]:
    from explore.local import LocalExplorer
    from explore.run_control import Limits

    kind = spec["kind"]
    threads = spec.get("threads", 1)
    model, props = workload(spec)
    engine, workers = "local", 1
    if kind == "spark":
        return _run_spark(spec, model)
    visited = spec.get("visited", "exact")
    if visited != "exact":   # its kernels loaded before the timed run, as workload() loads the exact ones
        LocalExplorer(model, props, Limits(max_states=5000), threads=threads, visited=visited).run()
    cpu = _own_cpu_seconds()
    result, seconds, grown, busy = _measured(lambda: LocalExplorer(model, props, Limits(), threads=threads,
                                                                   visited=visited).run())
    cpu = _own_cpu_seconds() - cpu
    s = result.stats
    return {"name": spec["name"], "engine": engine, "workers": workers, "threads": threads,
            "distinct_states": s.distinct_states,
            "transitions": s.transitions, "seconds": round(seconds, 3),
            "states_per_second": round(s.distinct_states / seconds, 1),
            "bytes_per_state": round(grown / max(s.distinct_states, 1), 2), "depth": s.depth,
            "peak_rss_bytes": _peak_rss_bytes(), "disk_bytes": s.disk_bytes,
            "visited": s.visited, **({"visited_note": s.visited_note} if s.visited_note else {}),
            "collision_probability": s.collision_probability,
            "cores_busy": round(busy / seconds, 2), "cpu_seconds": round(cpu, 2),
            "cpu_us_per_state": round(cpu * 1e6 / max(s.distinct_states, 1), 3), "outcome": result.outcome}


def _own_cpu_seconds() -> float:
    """User + system CPU of this process (every thread), what a local benchmark spends."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _run_spark(spec: dict[str, Any], model: Any) -> dict[str, Any]:
    from model.modes import mode_of
    from spark_explore.cluster import StandaloneCluster
    from spark_explore.engine import explore_on_spark, stop_sessions

    mode = mode_of(model.config)
    props = dataclasses.replace(mode.properties(), properties=())
    workers = spec["workers"]
    memory = spec.get("worker_memory", "2g")
    os.environ.setdefault("RMQCHECK_SPARK_EXECUTOR_MEMORY", memory)  # each worker's one executor gets it all
    with StandaloneCluster(workers=workers, cores_per_worker=1, worker_memory=memory,
                           start_timeout=180) as cluster:
        tiny = mode.model(mode.preset(mode.default_preset).with_overrides(["messages=1"]))
        probe = explore_on_spark(tiny, props, master=cluster.master_url, partitions=spec.get("partitions", 4),
                                 driver_threshold=0).stats
        small = sorted(sec for n, e, sec in zip(probe.levels, probe.level_engines, probe.level_seconds)
                       if e == "cluster" and n < 1000)
        fixed = small[len(small) // 2] if small else float("nan")
        before = cpu_roles.snapshot()
        marks = cpu_roles.mark_peaks(before, EXECUTOR_ROLES)   # warm: JVMs up, kernels loaded by the probe
        result, seconds, grown, busy = _measured(lambda: explore_on_spark(
            model, props, master=cluster.master_url, partitions=spec.get("partitions", 4),
            driver_threshold=spec.get("driver_threshold", 20_000)))
        after = cpu_roles.snapshot()
        by_role = cpu_roles.cpu_by_role(before, after)
        peaks = cpu_roles.peak_rss_by_role(after)
        executors_grown = cpu_roles.growth(marks, after, EXECUTOR_ROLES)
        stop_sessions()
    s = result.stats
    cluster_levels = [(n, sec) for n, e, sec in zip(s.levels, s.level_engines, s.level_seconds) if e == "cluster"]
    _, per_state = _fit(cluster_levels)
    return {"name": spec["name"], "engine": "spark", "workers": workers, "threads": 1,
            "distinct_states": s.distinct_states,
            "transitions": s.transitions, "seconds": round(seconds, 3),
            "states_per_second": round(s.distinct_states / seconds, 1),
            "bytes_per_state": round(grown / max(s.distinct_states, 1), 2), "depth": s.depth,
            "peak_rss_bytes": s.peak_rss_bytes, "disk_bytes": s.disk_bytes,
            "levels_on_cluster": len(cluster_levels), "levels_in_driver": len(s.levels) - len(cluster_levels),
            "level_seconds": s.level_seconds, "level_sizes": s.levels,
            "fixed_overhead_per_level_seconds": round(fixed, 3),
            "cluster_seconds_per_million_states": round(per_state * 1e6, 3), "cores_busy": round(busy / seconds, 2),
            "cpu_seconds_by_role": by_role, "cpu_seconds": round(sum(by_role.values()), 2),
            "cpu_us_per_state": round(sum(by_role.values()) * 1e6 / max(s.distinct_states, 1), 3),
            "executor_peak_rss_bytes": peaks["executor_jvms"] + peaks["python_workers"],
            "executor_bytes_per_state": round((peaks["executor_jvms"] + peaks["python_workers"])
                                              / max(s.distinct_states, 1), 2),
            "executor_growth_bytes": executors_grown,
            "executor_growth_bytes_per_state": round(executors_grown / max(s.distinct_states, 1), 2),
            "outcome": result.outcome}


def _fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares ``seconds = overhead + per_state * states`` over the cluster levels."""
    if not points:
        return 0.0, 0.0
    if len(points) == 1:
        return points[0][1], 0.0
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    var = sum((p[0] - mx) ** 2 for p in points)
    slope = sum((p[0] - mx) * (p[1] - my) for p in points) / var if var else 0.0
    return my - slope * mx, slope


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


# -- the command ----------------------------------------------------------------------------------------
def plan(quick: bool, spark: bool, workers: tuple[int, ...], threads: tuple[int, ...] = (1,),
         compact: bool = False) -> list[dict[str, Any]]:
    sizes = QUICK if quick else FULL
    local: list[dict[str, Any]] = [
        {"name": f"twophase-{sizes['twophase']}", "kind": "twophase", "rms": sizes["twophase"]},
        {"name": "bench" if not quick else "default", "kind": "model", "preset": sizes["preset"]},
        {"name": ("bench" if not quick else "default") + "-check", "kind": "model", "preset": sizes["preset"],
         "check": True},
    ]
    if not quick:   # not in the CI smoke test (--quick): its cost is measured, not smoke-tested
        local.append({"name": "bench-live", "kind": "model", "preset": sizes["preset"], "check": True,
                      "live": True})
        local += [{"name": name, "kind": "model", "preset": name} for name in MODE_PRESETS]
    specs = [dict(spec, threads=n) for spec in local for n in threads]   # thread counts side by side
    if compact:   # the local engine's compact visited set (where a benchmark's properties allow it)
        specs = [dict(spec, visited="compact") for spec in specs]
    if spark:
        for n in workers:
            specs.append({"name": "spark-" + ("bench" if not quick else "default-1msg"), "kind": "spark",
                          "preset": sizes["spark_preset"], "set": sizes["spark_set"], "workers": n,
                          "driver_threshold": 0 if quick else 20_000})
    return specs


def _counts(option: str, text: str, what: str, high: int) -> tuple[int, ...]:
    """``1,2`` as ``(1, 2)``; bad input unless every item is a count in ASCII digits between 1 and ``high``
    (an empty item, ``1,,2`` or ``1,``, is refused, not skipped; so are blanks and other digits, ``１``)."""
    from .setup import BadInput
    items = text.split(",")
    if not all(re.fullmatch(r"[0-9]{1,18}", x) for x in items):
        empty = " (an empty item)" if any(x == "" for x in items) else ""
        raise BadInput(f"{option} {text!r}: expected {what} such as 1,2{empty}")
    counts = tuple(int(x) for x in items)
    if not counts or any(not 1 <= n <= high for n in counts):
        raise BadInput(f"{option} {text!r}: expected {what} between 1 and {high}, such as 1,2")
    return counts


def thread_scaling(results: list[dict[str, Any]]) -> list[str]:
    """One line per local benchmark run at several thread counts: each count's throughput against the
    fewest threads'; for a benchmark run several times, how many and the spread of its times."""
    lines = []
    for name in dict.fromkeys(r["name"] for r in results if r["engine"] == "local"):
        runs = [r for r in results if r["name"] == name and r["engine"] == "local"]
        spread = ""
        if runs[0].get("runs", 1) > 1:
            spread = (f" (median of {runs[0]['runs']} runs each; "
                      + ", ".join(f"{r['threads']} thread{'s' if r['threads'] > 1 else ''} "
                                  f"{min(r['seconds_runs']):.2f}-{max(r['seconds_runs']):.2f} s" for r in runs) + ")")
            if len(runs) == 1:
                lines.append(f"{name}: median of {runs[0]['runs']} runs "
                             f"({min(runs[0]['seconds_runs']):.2f}-{max(runs[0]['seconds_runs']):.2f} s)")
        for r in runs[1:]:
            lines.append(f"{name}: {r['threads']} threads {r['states_per_second'] / runs[0]['states_per_second']:.2f}x "
                         f"the states/s of {runs[0]['threads']}{spread}")
    return lines


def spark_costs(results: list[dict[str, Any]]) -> list[str]:
    """Per Spark benchmark: its CPU per state (every process of the cluster) against the local engine's
    one-thread run of the same preset in this run, and the executors' memory per visited state."""
    local = {r["name"]: r for r in results if r["engine"] == "local" and r.get("threads", 1) == 1}
    lines = []
    for r in (r for r in results if r["engine"] == "spark"):
        twin = local.get(r["name"].removeprefix("spark-"))
        ratio = ""
        if twin and twin.get("cpu_us_per_state") and twin["distinct_states"] == r["distinct_states"]:
            ratio = f", {r['cpu_us_per_state'] / twin['cpu_us_per_state']:.2f}x the local engine's"
        lines.append(f"{r['name']} with {r['workers']} worker(s): {r['cpu_us_per_state']:.2f} CPU-us per state"
                     f"{ratio}; executors' memory grew {r['executor_growth_bytes'] / 2**20:,.0f} MiB, "
                     f"{r['executor_growth_bytes_per_state']:.1f} bytes per visited state (peak "
                     f"{r['executor_peak_rss_bytes'] / 2**20:,.0f} MiB with their fixed memory, "
                     f"{r['executor_bytes_per_state']:.1f} bytes per visited state)")
    return lines


def measure_group(group: list[dict[str, Any]], repeat: int, run: Callable[[dict[str, Any]], dict[str, Any]],
                  announce: Callable[[dict[str, Any], int], None], into: list[dict[str, Any]]) -> None:
    """One benchmark at each of its thread counts (``group``): each run once, then, when it is local and
    every run took under :data:`REPEAT_UNDER` seconds, ``repeat - 1`` more times, interleaved across the
    counts (so a slow spell of the machine falls on all of them). Appended to ``into``, per count, the run
    of median time (the lower of the two middle ones for an even count of runs), with ``runs`` and every
    run's ``seconds_runs``; when a run fails, what was measured before it, then the failure."""
    runs: list[list[dict[str, Any]]] = []
    try:
        for spec in _announced(group, 1, announce):
            runs.append([run(spec)])
        short = all(r[0]["engine"] == "local" and r[0]["seconds"] < REPEAT_UNDER for r in runs)
        for k in range(2, repeat + 1 if short else 2):
            for spec, done in zip(_announced(group, k, announce), runs):
                done.append(run(spec))
    finally:
        for done in runs:
            median = sorted(done, key=lambda r: r["seconds"])[(len(done) - 1) // 2]
            into.append(dict(median, runs=len(done), seconds_runs=[r["seconds"] for r in done]))


def _announced(group: list[dict[str, Any]], k: int, announce: Callable[[dict[str, Any], int], None]):
    for spec in group:
        announce(spec, k)
        yield spec


def groups(specs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The plan's consecutive runs of one benchmark (its thread counts side by side); a Spark run alone."""
    out: list[list[dict[str, Any]]] = []
    for spec in specs:
        if out and spec["kind"] != "spark" and out[-1][0]["name"] == spec["name"]:
            out[-1].append(spec)
        else:
            out.append([spec])
    return out


def run_in_subprocess(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "rmqcheck.bench", "RUN", json.dumps(spec)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise click.ClickException(f"benchmark {spec['name']} failed (exit code {proc.returncode}): "
                                   f"{failure_summary(proc.stderr)}")
    return json.loads(lines[-1])


_LOG_LINE = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (TRACE|DEBUG|INFO|WARN) ")


def failure_summary(stderr: str, limit: int = 600) -> str:
    """What a failed benchmark process said, without the Spark daemons' log lines: the exception of the
    last Python traceback when there is one (its unindented lines), else the last lines that are not logging."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip() and not _LOG_LINE.match(line)]
    header = "Traceback (most recent call last):"
    if header in lines:
        after = lines[len(lines) - lines[::-1].index(header):]
        text = " ".join(line for line in after if not line[:1].isspace())
    else:
        text = " ".join(line.strip() for line in lines[-3:])
    return (text or "no error output")[:limit]


@click.command()
@click.option("--quick", is_flag=True, help="Small sizes only (a smoke test, as in CI).")
@click.option("--json", "json_path", metavar="PATH", help="Write the results as JSON.")
@click.option("--spark/--no-spark", default=True, show_default=True,
              help="Include the Spark standalone-cluster benchmark.")
@click.option("--workers", default="1,2", show_default=True, metavar="N,M",
              help="Spark worker counts to compare.")
@click.option("--threads", "thread_list", default="1", show_default=True, metavar="N,M",
              help="Local-engine thread counts to compare (each local benchmark runs at every count).")
@click.option("--repeat", type=click.IntRange(1, 99), default=None, metavar="N",
              help=f"Runs per thread count of each local benchmark shorter than {REPEAT_UNDER:g} s, interleaved; "
                   "the median is reported.  [default: 3; 1 with --quick]")
@click.option("--timeout", default=3600.0, show_default=True, help="Seconds allowed per benchmark.")
@click.option("--compact/--exact", "compact", default=False, show_default=True,
              help="The local benchmarks' visited set: fingerprints (compact; the graph and eventually "
                   "properties decided over the graph on disk) or whole states (exact).")
def bench(quick: bool, json_path: str | None, spark: bool, workers: str, thread_list: str, repeat: int | None,
          timeout: float, compact: bool) -> None:
    """Measure exploration speed and memory: two-phase commit, the bench preset, the controller mode's presets
    (each at every --threads count), Spark 1 vs 2 workers."""
    from rich.table import Table

    from explore.sweep import usable_cores
    from reports.files import check_writable, write_text_atomic

    from .output import stdout_console
    from .setup import MAX_SECONDS, bounded

    bounded("--timeout", timeout, MAX_SECONDS)   # NaN and infinities included: subprocess takes neither
    counts = _counts("--workers", workers, "worker counts", 64)
    threads = _counts("--threads", thread_list, "thread counts", usable_cores())
    if json_path:
        check_writable(json_path, "--json")
    console = stdout_console()
    results, failure = [], None
    repeat = repeat if repeat is not None else (1 if quick else 3)

    def announce(spec: dict[str, Any], k: int) -> None:
        console.print(f"[dim]running {spec['name']}"
                      + (f" with {spec['workers']} worker(s)" if spec.get("workers") else "")
                      + (f" on {spec['threads']} thread(s)" if len(threads) > 1 and spec.get("threads") else "")
                      + (f", run {k} of {repeat}" if k > 1 else "") + "...[/dim]")

    def checked(spec: dict[str, Any]) -> dict[str, Any]:
        result = run_in_subprocess(spec, timeout)
        mismatch = pinned_mismatch(spec, result)
        if mismatch:
            raise click.ClickException(mismatch)
        return result

    for group in groups(plan(quick, spark, counts, threads, compact)):
        try:
            measure_group(group, repeat, checked, announce, results)
        except (click.ClickException, subprocess.TimeoutExpired) as exc:
            # the benchmarks already measured are still printed and written, then the failure is reported
            failure = exc if isinstance(exc, click.ClickException) else click.ClickException(
                f"benchmark {group[0]['name']} did not finish within --timeout {timeout:g} s")
            break
    table = Table(title="rmqcheck bench" + (" (quick)" if quick else ""), title_justify="left")
    spark_rows = any(r.get("fixed_overhead_per_level_seconds") is not None for r in results)
    for col in ("benchmark", "engine", "workers", "threads", "distinct states", "transitions", "seconds",
                "states/s", "bytes/state", "peak RSS", "disk", "visited") + (("overhead/level",) if spark_rows else ()):
        # a narrow terminal folds a cell onto more lines rather than cutting a figure short
        table.add_column(col, justify="left" if col in ("benchmark", "engine") else "right", overflow="fold")
    for r in results:
        overhead = r.get("fixed_overhead_per_level_seconds")
        cells = [r["name"], r["engine"], str(r["workers"]), str(r["threads"]), f"{r['distinct_states']:,}",
                 f"{r['transitions']:,}", f"{r['seconds']:.2f}", f"{r['states_per_second']:,.0f}",
                 f"{r['bytes_per_state']:.1f}", _mib(r.get("peak_rss_bytes", 0)), _mib(r.get("disk_bytes", 0)),
                 r.get("visited", "")]
        if spark_rows:
            cells.append(f"{overhead:.2f} s" if overhead is not None else "")
        table.add_row(*cells)
    console.print(table)
    for line in thread_scaling(results):
        console.print(line)
    for r in results:
        if r.get("visited_note"):
            console.print(f"{r['name']}: {r['visited_note']}")
    sparks = [r for r in results if r["engine"] == "spark"]
    for r in sparks:
        roles = r.get("cpu_seconds_by_role") or {}
        if roles:
            console.print(f"{r['name']} with {r['workers']} worker(s), CPU seconds by process: "
                          + ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in roles.items() if v > 0)
                          + f" (machine busy {r['cores_busy'] * r['seconds']:.1f})")
    for line in spark_costs(results):
        console.print(line)
    if len(sparks) >= 2:
        base = sparks[0]
        for r in sparks[1:]:
            console.print(f"spark throughput with {r['workers']} workers: "
                          f"{r['states_per_second'] / base['states_per_second']:.2f}x that of {base['workers']}")
        cores = os.cpu_count() or 1
        if base.get("cores_busy", 0) > 0:
            # the run with fewer workers already kept this many cores busy (driver, executors, Python
            # workers, JIT compilers): the same CPU work cannot go more than cores / busy times faster here
            console.print(f"the {base['workers']}-worker run kept {base['cores_busy']:.2f} of this machine's {cores} "
                          f"cores busy: the same CPU work cannot go more than {cores / base['cores_busy']:.2f}x "
                          "faster here")
    if json_path:
        doc: dict[str, Any] = {"benchmarks": results}
        if failure is not None:
            doc["failed"] = failure.message
        write_text_atomic(json_path, json.dumps(doc, indent=2) + "\n")
    if failure is not None:
        raise failure


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "RUN":
        print(json.dumps(run_one(json.loads(sys.argv[2]))), flush=True)
        return
    raise SystemExit("usage: python -m rmqcheck.bench RUN SPEC_JSON (used by `rmqcheck bench`)")


if __name__ == "__main__":
    main()
