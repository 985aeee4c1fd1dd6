"""Spark tests share one local-mode session (starting the JVM is the slow part) and compare with the
local engine. They need Java; without it they are skipped, never silently passed."""
from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.spark




def pytest_collection_modifyitems(config, items):
    if shutil.which("java") is None:
        skip = pytest.mark.skip(reason="Java is not installed: the Spark engine cannot run here")
        for item in items:
            if "tests/spark" in str(item.fspath):
                item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _stop_spark_at_the_end():
    yield
    from spark_explore.engine import stop_sessions
    stop_sessions()
