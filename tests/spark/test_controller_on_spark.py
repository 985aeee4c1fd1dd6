"""The controller mode on the Spark engine: the same counts, verdicts and shortest traces as locally."""
from __future__ import annotations

import pytest

from explore import explore
from invariants.controller import PROPERTIES
from model.controller import preset
from model.controller.model import ControllerModel
from spark_explore.engine import explore_on_spark

from spark_compare import MASTER, assert_same_exploration


def test_controller_preset_with_one_message_agrees_with_the_local_engine():
    """The three levels above 850 states go to the cluster (mapInArrow expansion, dedup, anti-join)."""
    model = ControllerModel(preset("controller").with_overrides(["messages=1"]))
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=850)
    assert "cluster" in spark.stats.level_engines
    assert (spark.stats.distinct_states, spark.stats.transitions, spark.stats.depth) == (12274, 38632, 31)
    assert_same_exploration(local, spark)


def test_sync_flush_agrees_with_the_local_engine():
    """flushDiskType=SYNC_FLUSH (issue 48 item 5), one message and one power loss with allAck: the pinned
    ctl-sync-flush-power-loss configuration, its widest levels on the cluster."""
    from tests.tooling.pinned import load

    entry = load(mode="controller")["ctl-sync-flush-power-loss"]
    model = ControllerModel(entry.config())
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=4000)
    assert "cluster" in spark.stats.level_engines
    assert (spark.stats.distinct_states, spark.stats.transitions, spark.stats.depth) == entry.counts
    assert_same_exploration(local, spark)


def test_two_queues_agree_with_the_local_engine():
    """queues = 2 (issue 48 item 3): the pinned ctl-queues-2 configuration, its widest levels on the cluster."""
    from tests.tooling.pinned import load

    entry = load(mode="controller")["ctl-queues-2"]
    model = ControllerModel(entry.config())
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=6000)
    assert "cluster" in spark.stats.level_engines
    assert (spark.stats.distinct_states, spark.stats.transitions, spark.stats.depth) == entry.counts
    assert_same_exploration(local, spark)


def _newer_mechanism(name: str):
    """A small configuration of each of the cluster's newer mechanisms: name servers with their failures
    (the pinned ctl-namesrv-failures), consumer offsets with a consumer restart, the disk under a
    truncation (stale_tail) with one broker crash, three controllers with a node crash (the pinned
    ctl-quorum); one message each."""
    from tests.tooling.pinned import load

    if name == "name-servers":
        return load(mode="controller")["ctl-namesrv-failures"].config()
    if name == "quorum":
        return load(mode="controller")["ctl-quorum"].config()
    base = preset("controller")
    if name == "consumer-offsets":
        return base.with_overrides(["messages=1", "consumer_offsets=ON", "max_broker_crashes=0",
                                    "max_consumer_restarts=1"])
    return base.with_overrides(["messages=1", "stale_tail=ON", "max_broker_crashes=1"])


@pytest.mark.parametrize("name, threshold", [("name-servers", 2500), ("consumer-offsets", 600), ("stale-tail", 600),
                                             ("quorum", 6000)])
def test_newer_mechanisms_agree_with_the_local_engine(name, threshold):
    """Name servers, consumer offsets, the stale tail and the controller quorum on the cluster: the widest levels go to it, and the
    counts, verdicts and shortest traces are the local engine's (the threshold keeps each to a few levels there)."""
    model = ControllerModel(_newer_mechanism(name))
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=threshold)
    assert "cluster" in spark.stats.level_engines
    assert_same_exploration(local, spark)
