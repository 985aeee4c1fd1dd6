"""Shared fixtures: tiny configurations and cached models (compiling is the slow part, not checking)."""
from __future__ import annotations

import functools

import pytest

from model import Config, RocketMQModel

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
