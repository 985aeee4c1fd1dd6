"""The toy third mode (tests/toymode/, registered by its fixture) on the Spark engine, local mode: its kernel
and checks are shipped to the Python workers by name like any mode's, and the exploration agrees with the
local engine's, levels on the cluster included; ``check --mode toy --engine spark`` runs it from the
command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from spark_compare import MASTER, assert_same_exploration
from tests.toymode import NAME, toy_mode  # noqa: F401 - the fixture registers the toy mode

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import invoke  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("toy_mode")]


@pytest.mark.timeout(600)
def test_the_toy_on_spark_agrees_with_the_local_engine():
    """Three messages and two crashes (42 states, 7 levels): every level past the first goes to the cluster."""
    from explore import explore
    from spark_explore.engine import explore_on_spark
    from tests.toymode.config import preset
    from tests.toymode.model import ToyModel
    from tests.toymode.properties import PROPERTIES

    model = ToyModel(preset(NAME).with_overrides(["messages=3", "max_crashes=2"]))
    local = explore(model, PROPERTIES)
    spark = explore_on_spark(model, PROPERTIES, master=MASTER, partitions=2, driver_threshold=1)
    assert "cluster" in spark.stats.level_engines
    assert_same_exploration(local, spark)


@pytest.mark.timeout(600)
def test_check_mode_toy_with_engine_spark(tmp_path):
    from explore import explore
    from tests.toymode.config import preset
    from tests.toymode.model import ToyModel
    from tests.toymode.properties import PROPERTIES

    out = tmp_path / "c.json"
    r = invoke("check", "--mode", NAME, "--engine", "spark", "--spark-master", MASTER, "--json", str(out), "--quiet")
    assert r.exit_code == 1, r.stderr
    d = json.loads(out.read_text())
    local = explore(ToyModel(preset(NAME)), PROPERTIES)
    assert d["engine"] == "spark"
    assert {p["name"]: p["status"] for p in d["properties"]} == local.verdicts()
    assert d["stats"]["distinct_states"] == local.stats.distinct_states


@pytest.mark.timeout(600)
def test_faults_mode_toy_with_engine_spark_gives_the_local_answers(tmp_path):
    """The exhaustive exploration on the Spark engine and the sweeps as Spark tasks, whose Python workers adopt
    the driver's registry (the toy mode included), answer as the local engine and one local process do."""
    def faults(*engine: str) -> dict:
        out = tmp_path / f"f{len(engine)}.json"
        r = invoke("faults", "--mode", NAME, *engine, "--json", str(out), "--quiet")
        assert r.exit_code == 1, r.stderr
        d = json.loads(out.read_text())
        for key in ("stats", "next_bound"):
            d[key].pop("seconds")
        for key in ("peak_rss_bytes", "bytes_per_state", "disk_bytes"):   # the process's and the engine's
            d["stats"].pop(key, None)
        d["sweep"].pop("jobs")
        d.pop("engine")
        d["sweep"].pop("engine")
        return d

    assert faults("--engine", "spark", "--spark-master", MASTER) == faults("--jobs", "1")
