"""A large exhaustive run on the Spark engine: a standalone cluster on 127.0.0.1, one preset, no property
(so nothing stops it early), and what it cost: wall time, CPU and peak memory per kind of process, and the
work directory's size on disk.

    python bench/spark_large.py --preset large --workers 2 --partitions 8 --work-dir /var/tmp/rmqcheck-large

The documentation's Performance page (docs/performance.md) reports one such run. The work directory is kept (it holds every level,
for traces or ``--resume``); remove it afterwards.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="large")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--worker-memory", default="2g")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--json", dest="json_path")
    args = ap.parse_args()

    from invariants import PROPERTIES
    from model import RocketMQModel, preset
    from rmqcheck import cpu_roles
    from spark_explore.cluster import StandaloneCluster
    from spark_explore.engine import explore_on_spark, stop_sessions

    model = RocketMQModel(preset(args.preset).with_overrides(args.set))
    props = dataclasses.replace(PROPERTIES, properties=())
    os.environ.setdefault("RMQCHECK_SPARK_EXECUTOR_MEMORY", args.worker_memory)

    class Progress:
        def on_progress(self, p):
            print(f"level {p.level}: {p.distinct:,} states, {p.seconds:.0f} s", flush=True)

    with StandaloneCluster(workers=args.workers, cores_per_worker=1, worker_memory=args.worker_memory,
                           start_timeout=180) as cluster:
        before = cpu_roles.snapshot()
        t = time.perf_counter()
        result = explore_on_spark(model, props, listener=Progress(), master=cluster.master_url,
                                  partitions=args.partitions, work_dir=args.work_dir)
        seconds = time.perf_counter() - t
        after = cpu_roles.snapshot()
        peaks = cpu_roles.peak_rss_by_role(after)   # while the executors and their workers are alive
        stop_sessions()
    du = subprocess.run(["du", "-sb", args.work_dir], capture_output=True, text=True).stdout.split()
    s = result.stats
    report = {"preset": args.preset, "set": args.set, "workers": args.workers, "partitions": args.partitions,
              "outcome": result.outcome, "distinct_states": s.distinct_states, "transitions": s.transitions,
              "depth": s.depth, "seconds": round(seconds, 1),
              "states_per_second": round(s.distinct_states / seconds),
              "levels_on_cluster": s.level_engines.count("cluster"),
              "cpu_seconds_by_role": cpu_roles.cpu_by_role(before, after),
              "peak_rss_bytes_by_role": peaks,
              "driver_peak_rss_bytes": s.peak_rss_bytes,
              "work_dir_bytes": int(du[0]) if du else None}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json_path:
        with open(args.json_path, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
