"""The controller mode on the Spark engine: the same counts, verdicts and shortest traces as locally."""
from __future__ import annotations

from explore import explore
from invariants.controller import PROPERTIES
from model.controller import preset
from model.controller.model import ControllerModel
from spark_explore.engine import explore_on_spark

from spark_compare import MASTER, assert_same_exploration


def test_controller_preset_agrees_with_the_local_engine():
    """The five levels above 1,750 states go to the cluster (mapInArrow expansion, dedup, anti-join)."""
    model = ControllerModel(preset("controller"))
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=1750)
    assert "cluster" in spark.stats.level_engines
    assert (spark.stats.distinct_states, spark.stats.transitions, spark.stats.depth) == (25310, 76186, 34)
    assert_same_exploration(local, spark)
