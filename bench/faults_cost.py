"""The cost of ``rmqcheck faults``' one exhaustive exploration (issue "Failure modes": at most 1.5x an
exhaustive ``check`` of the same configuration), and of a sweep with --jobs 2 against --jobs 1.

    .venv/bin/python bench/faults_cost.py PRESET [--set key=value ...]
    .venv/bin/python bench/faults_cost.py --sweep PRESET [--set key=value ...]

Step 1 (exploration keeping every edge, the state pass, the breaking-transition pass) is timed against two
exhaustive explorations of the same configuration, kernels warm: ``check --property
replication_can_catch_up`` (nothing stops it early: the graph property needs the whole graph) and the bare
exploration with no property at all (the floor of any exhaustive check). Traces are not part of either.
``--sweep`` times a sweep of similar-size explorations (the closing search's eight single setting changes)
with --jobs 1 and --jobs 2 (target: at least 1.6x faster with two).
"""
from __future__ import annotations

import sys
import time

from explore.faults import FaultAnalysis
from explore.local import LocalExplorer
from invariants import GRAPH, PROPERTIES
from invariants.base import KINDS
from model import preset
from model.rocketmq import RocketMQModel


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def sweep(argv: list[str]) -> None:
    from explore.run_control import Limits
    from explore.sweep import SweepPool, Task
    from explore.fault_search import changed, faults_task, setting_changes
    name, sets = argv[0], [a for a in argv[1:] if a != "--set"]
    cfg = preset(name).with_overrides(sets)
    always = tuple(p.name for p in PROPERTIES if p.kind == "always")
    configs = [changed(cfg, c) for c in setting_changes(cfg)]
    tasks = [Task(faults_task, (c, always, Limits(), 4 << 30, False)) for c in configs if c is not None]
    warm = Task(faults_task, (preset("default").with_overrides(["messages=1"]), always, Limits(), 1 << 30, False))
    times = {}
    for jobs in (1, 2):
        with SweepPool(jobs) as pool:
            pool.run([warm] * jobs)   # workers start and load the kernels before the clock starts
            times[jobs], _ = timed(lambda: pool.run(tasks))
        print(f"sweep of {len(tasks)} closing explorations (one setting changed each), --jobs {jobs}: "
              f"{times[jobs]:.2f} s")
    print(f"speed-up with two jobs: {times[1] / times[2]:.2f}x")


def main(argv: list[str]) -> None:
    if argv[0] == "--sweep":
        return sweep(argv[1:])
    name, sets = argv[0], [a for a in argv[1:] if a != "--set"]
    cfg = preset(name).with_overrides(sets)
    graph_only = PROPERTIES.select([p.name for p in PROPERTIES if p.kind == GRAPH])
    # warm every kernel on a tiny configuration first
    tiny = preset("default").with_overrides(["messages=1"])
    FaultAnalysis(RocketMQModel(tiny), PROPERTIES).run()
    LocalExplorer(RocketMQModel(tiny), graph_only).run()
    runs = {}
    for label, fn in (
            ("faults step 1", lambda: FaultAnalysis(RocketMQModel(cfg), PROPERTIES).run().result),
            ("check --property replication_can_catch_up", lambda: LocalExplorer(RocketMQModel(cfg), graph_only).run()),
            ("exploration, no property", lambda: LocalExplorer(RocketMQModel(cfg), PROPERTIES.without(KINDS)).run())):
        seconds, result = timed(fn)
        runs[label] = seconds
        print(f"{label:45s} {result.stats.distinct_states:>12,} states {seconds:8.2f} s")
    step1 = runs["faults step 1"]
    for label, seconds in runs.items():
        if label != "faults step 1":
            print(f"ratio step 1 / {label}: {step1 / seconds:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
