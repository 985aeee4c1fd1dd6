"""Coverage per action kind, terminal states and pruned transitions on Spark: the executors tally in the
shared step, the driver sums the partitions' tallies per level and counts new states from the canonical
parent links the levels store, so every count and the terminal trace equal the local engine's."""
from __future__ import annotations

from explore import explore
from invariants import PROPERTIES
from model import RocketMQModel
from model.config import preset
from spark_explore.engine import explore_on_spark

from spark_compare import MASTER, assert_same_exploration

# 26,675 states, 84 pruned transitions (tests/explore/test_coverage.py pins them)
PRUNING = ("slaves=0", "which_broker_when_consume_slowly=0", "messages=1", "consumers=2", "max_master_crashes=0",
           "max_consumer_restarts=3")


def test_coverage_terminal_states_and_pruned_transitions_agree_with_the_local_engine():
    model = RocketMQModel(preset("default").with_overrides(list(PRUNING)))
    props = PROPERTIES.without(["graph", "eventually"])   # the counts are the exploration's: no pass after it
    local = explore(model, props)
    spark = explore_on_spark(model, props, master=MASTER, partitions=2, driver_threshold=1000)
    assert "driver" in spark.stats.level_engines and "cluster" in spark.stats.level_engines
    assert local.stats.pruned_transitions > 0 and local.stats.terminal_states > 0
    assert any("bound of the model" in p.note for p in spark.properties)
    assert_same_exploration(local, spark)
