"""Shared fixtures: tiny configurations and cached models (compiling is the slow part, not checking)."""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from model import Config, RocketMQModel

# Every process a test starts (``python -m rmqcheck``, a Spark worker, a helper script) imports the project
# from this source tree, as the tests themselves do: numba keys its kernel cache on the source file's path,
# so a process importing the installed copy in site-packages would compile every kernel a second time
# (about 90 s of a CI run). The installed entry point is still started by tests/cli/test_cli_subprocess.py,
# and tests/test_packaging.py checks that the install ships every package.
ROOT = Path(__file__).resolve().parents[1]
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

TINY = dict(messages=1, max_master_crashes=0, max_master_power_losses=0)


@functools.lru_cache(maxsize=None)
def model_for(**knobs) -> RocketMQModel:
    return RocketMQModel(Config.from_mapping(knobs), strict=True)


def tiny(**knobs) -> RocketMQModel:
    values = dict(TINY)
    values.update(knobs)
    return model_for(**values)


@pytest.fixture
def default_model() -> RocketMQModel:
    return model_for()


@pytest.fixture
def no_exploration(monkeypatch):
    """Fail the test if any command starts exploring (bad input must be caught before)."""
    def refuse(*a, **k):
        raise AssertionError("exploration started despite bad input")
    for module in ("rmqcheck.check", "rmqcheck.matrix", "rmqcheck.gate"):
        monkeypatch.setattr(f"{module}.run_check", refuse)
    monkeypatch.setattr("explore.simulate.simulate", refuse)
    monkeypatch.setattr("explore.fault_search.FaultSearch.run", refuse)
