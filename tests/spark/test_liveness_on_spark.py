"""Eventually properties on Spark (spark_explore/liveness.py) against the local engine on 1-3 threads: the
same verdicts, notes, ``loop_start`` and lasso traces in the JSON; a seeded bug fails a holding property on
Spark too; a run whose eventually pass failed is resumed from its work directory to the same verdicts.

The configuration is the gate baseline's eventually one (3,700 states). Levels of at most 450 states run
in the driver, the larger ones (eight) on Spark; the eventually pass always runs as Spark jobs."""
from __future__ import annotations

import pytest

from explore.local import LocalExplorer
from invariants import PROPERTIES, Fairness
from model import Config, RocketMQModel
from reports.json_report import result_to_dict
import spark_explore.liveness as live
from spark_explore.engine import explore_on_spark

from spark_compare import MASTER

CRASHING = dict(messages=1, max_master_power_losses=0)
LIVE = ["acked_message_eventually_consumed", "slaves_eventually_catch_up", "consumption_eventually_completes"]
DRIVER = 450


def json_properties(result) -> list[dict]:
    """What the JSON says of each property (verdict, note, fairness, loop_start, trace)."""
    return result_to_dict(result)["properties"]


def on_spark(model, props, driver_threshold=DRIVER):
    result = explore_on_spark(model, props, master=MASTER, partitions=2, driver_threshold=driver_threshold)
    assert "cluster" in result.stats.level_engines and not result.incomplete_reason
    return result


def local_on_every_thread_count(model, props) -> list[dict]:
    runs = [json_properties(LocalExplorer(model, props, threads=t, slice_states=37, parallel_from=8).run())
            for t in (1, 2, 3)]
    assert runs[0] == runs[1] == runs[2]
    return runs[0]


def test_same_json_as_the_local_engine_on_every_thread_count(monkeypatch):
    """Weak fairness; trimming goes on as Spark jobs until at most 1,000 candidates are left (8 steps here;
    to the end it takes 22, each about a second)."""
    monkeypatch.setattr(live, "CORE_LIMIT", 1000)
    model = RocketMQModel(Config.from_mapping(CRASHING))
    props = PROPERTIES.select(LIVE).with_fairness(Fairness("weak"))
    spark = json_properties(on_spark(model, props))
    assert [p["status"] for p in spark] == ["holds", "holds", "holds"]
    assert spark == local_on_every_thread_count(model, props)


def test_a_seeded_bug_fails_a_holding_property_on_spark_too():
    """A consumer that never fails over to the slave, while the master may stay down for ever."""
    props = PROPERTIES.select(["consumption_eventually_completes"]).with_fairness(Fairness("weak", ("MasterRestart",)))
    model = RocketMQModel(Config.from_mapping(CRASHING), mutation="consumer_stops_after_route_change")
    spark = json_properties(on_spark(model, props, driver_threshold=100))   # a smaller space
    assert spark[0]["status"] == "violated"
    assert spark == json_properties(LocalExplorer(model, props).run())


def test_a_failed_eventually_pass_is_resumed_from_the_work_directory(tmp_path, monkeypatch):
    """The master may stay down for ever (--unfair MasterRestart): two lassos, the same as on 1-3 threads
    once the run is resumed (the core at its default limit: one trimming step, then the driver)."""
    model = RocketMQModel(Config.from_mapping(CRASHING))
    props = PROPERTIES.select(LIVE).with_fairness(Fairness("weak", ("MasterRestart",)))

    def lost_executor(*args, **kwargs):
        raise ConnectionError("the executor running the components step was lost")

    with monkeypatch.context() as m:
        m.setattr(live.Core, "of", lost_executor)
        stopped = explore_on_spark(model, props, master=MASTER, partitions=2, driver_threshold=DRIVER,
                                   work_dir=str(tmp_path))
    assert "--resume" in stopped.incomplete_reason
    assert [p.status for p in stopped.properties] == ["unknown"] * 3
    resumed = explore_on_spark(model, props, master=MASTER, partitions=2, driver_threshold=DRIVER,
                               work_dir=str(tmp_path), resume=True)
    assert not resumed.incomplete_reason
    spark = json_properties(resumed)
    assert [p["status"] for p in spark] == ["violated", "violated", "holds"]
    assert all(p["loop_start"] == 6 for p in spark[:2])
    assert spark == local_on_every_thread_count(model, props)
