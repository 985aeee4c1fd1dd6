"""Spark engine behaviour beyond agreement: graph properties, limits, resume, bad input."""
from __future__ import annotations

import json
import os

import pytest

from explore import Limits, explore
from invariants import PROPERTIES
from model import Config, RocketMQModel
from spark_explore.engine import explore_on_spark
from spark_explore.errors import SparkRefused, SparkUnavailable
from spark_explore.session import check_java, check_master

from spark_compare import MASTER, assert_same_exploration

#: the eventually properties are left out where a test is about something else: their pass after the
#: exploration is several Spark jobs a breadth of the graph (test_liveness_on_spark.py compares it)
NO_LIVE = PROPERTIES.without(["eventually"])
NO_GRAPH = NO_LIVE.without(["graph"])
TINY = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_power_losses=0)))


@pytest.mark.parametrize("knobs, status, driver_threshold", [
    (dict(messages=1, max_master_power_losses=0), "holds", 0),
    (dict(messages=1), "violated", 300),   # the driver's levels hand their edges over too
])
def test_the_graph_property_is_decided_on_the_cluster_like_the_local_engine(knobs, status, driver_threshold):
    """Edges stored per level, backward reachability as Spark jobs: the local engine's verdict and
    counterexample (shallowest level, smallest key)."""
    model = RocketMQModel(Config.from_mapping(knobs))
    local = explore(model, NO_LIVE)
    assert local.property("replication_can_catch_up").status == status
    spark = explore_on_spark(model, NO_LIVE, master=MASTER, partitions=3, driver_threshold=driver_threshold)
    drivers = spark.stats.level_engines.count("driver")
    assert drivers == 1 if driver_threshold == 0 else 1 < drivers < len(spark.stats.levels)
    assert_same_exploration(local, spark)


def test_depth_limit_then_resume_finishes_like_a_full_run(tmp_path):
    # without failures nothing is violated, so the depth limit leaves the run incomplete
    model = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_crashes=0, max_master_power_losses=0)))
    props = PROPERTIES.select(["acked_message_never_lost", "no_message_skipped", "master_recovers"])
    full = explore(model, props)
    work = str(tmp_path / "work")
    part = explore_on_spark(model, props, Limits(max_depth=6), master=MASTER, partitions=2, work_dir=work,
                            driver_threshold=0)
    assert part.outcome == "incomplete" and "depth limit" in part.incomplete_reason
    assert json.loads((tmp_path / "work" / "meta.json").read_text())["expanded_levels"] == 6
    assert part.stats.distinct_states == sum(full.stats.levels[:7])
    resumed = explore_on_spark(model, props, master=MASTER, partitions=3, work_dir=work, resume=True,
                               driver_threshold=0)
    assert_same_exploration(full, resumed)


def test_resume_refuses_a_work_dir_of_another_configuration(tmp_path):
    work = str(tmp_path / "work")
    explore_on_spark(TINY, NO_GRAPH, Limits(max_depth=2), master=MASTER, partitions=2, work_dir=work,
                     driver_threshold=0)
    other = RocketMQModel(Config.from_mapping(dict(messages=2, max_master_power_losses=0)))
    with pytest.raises(SparkRefused, match="another configuration"):
        explore_on_spark(other, NO_GRAPH, master=MASTER, work_dir=work, resume=True)


def test_state_limit_is_incomplete_and_never_passed():
    model = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_crashes=0, max_master_power_losses=0)))
    r = explore_on_spark(model, PROPERTIES.select(["acked_message_never_lost"]), Limits(max_states=100),
                         master=MASTER, partitions=2, driver_threshold=0)
    assert r.outcome == "incomplete" and "state limit" in r.incomplete_reason
    assert r.stats.distinct_states <= 100
    assert r.property("acked_message_never_lost").status == "unknown"


def test_missing_java_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(SparkUnavailable, match="Java not found"):
        check_java()


def test_unreachable_master_fails_fast():
    with pytest.raises(SparkUnavailable, match="cannot reach the Spark master"):
        check_master("spark://127.0.0.1:9", timeout=1)
    with pytest.raises(SparkUnavailable, match="expected"):
        check_master("yarn")


def test_a_bad_work_dir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SparkUnavailable, match="--work-dir"):
        explore_on_spark(TINY, NO_GRAPH, master=MASTER, work_dir=str(blocker / "sub"))


def test_no_pyspark_outside_spark_explore():
    """model/, invariants/, explore/ and reports/ never import pyspark (design.md)."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    for package in ("model", "invariants", "explore", "reports"):
        for path in (root / package).rglob("*.py"):
            text = path.read_text()
            assert "import pyspark" not in text and "from pyspark" not in text, path
    assert os.path.isdir(root / "spark_explore")


def test_each_partition_keeps_a_few_visited_runs_and_nothing_superseded():
    """After every level, each partition's visited runs on disk are exactly those meta.json names, they
    cover every stored state once, and merging keeps them logarithmic in the number of levels."""
    from spark_explore.engine import SparkExplorer

    model = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_power_losses=0)))
    seen = []

    class Watch:
        def on_progress(self, progress):
            explorer = getattr(self, "explorer", None)
            meta = getattr(explorer, "meta", None)
            if meta is None or not meta.runs:
                return
            for q, runs in enumerate(meta.runs):
                on_disk = sorted(p.name for p in explorer.wd.runs_dir(q).glob("*"))
                seen.append((on_disk, sorted(f.name for f in runs), sum(f.rows for f in runs)))
            stored = sum(li.size for li in meta.levels)
            assert sum(f.rows for runs in meta.runs for f in runs) == stored

    watch = Watch()
    explorer = SparkExplorer(model, NO_GRAPH, Limits(), watch, MASTER, 2, None, False, 0)
    watch.explorer = explorer
    result = explorer.run()
    assert_same_exploration(explore(model, NO_GRAPH), result)
    assert len(seen) >= 2 * 10
    assert all(on_disk == named for on_disk, named, _ in seen), seen
    assert max(len(named) for _, named, _ in seen) <= 5, seen   # logarithmic in the number of levels


@pytest.mark.parametrize("driver_threshold", [20_000, 0])
def test_progress_from_the_first_level_in_the_driver_and_on_the_cluster(driver_threshold):
    """The listener hears of every level from the first, whether the driver or the cluster expands it,
    with the properties decided so far (what the console's progress bar draws instead of Spark's logs)."""
    model = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_power_losses=0)))
    seen = []

    class Record:
        def on_progress(self, progress):
            seen.append(progress)

    result = explore_on_spark(model, NO_GRAPH, Limits(), Record(), master=MASTER, partitions=2,
                              driver_threshold=driver_threshold)
    levels = sorted({p.level for p in seen})
    assert levels[0] == 0 and levels == list(range(levels[-1] + 1))
    assert levels[-1] >= result.stats.depth - 1
    assert all(p.properties == len(NO_GRAPH.names()) for p in seen)
    assert max(p.decided for p in seen) >= 1
    assert seen[-1].distinct <= result.stats.distinct_states


def test_python_workers_run_with_the_allocator_settings_that_return_memory():
    """The Python workers hand freed level-sized arrays back to the system (spark_explore.session
    WORKER_ENV): the settings must reach the workers' environment, where glibc and pyarrow read them."""
    from spark_explore.engine import start_session_cached
    from spark_explore.session import WORKER_ENV
    spark = start_session_cached(MASTER, 2)
    names = sorted(WORKER_ENV)
    seen = spark.sparkContext.parallelize(range(2), 2).map(lambda _: [os.environ.get(n) for n in names]).collect()
    assert seen == [[WORKER_ENV[n] for n in names]] * 2
