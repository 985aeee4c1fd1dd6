"""The size forecast of a run from its first levels (issue 45, item 9): a note on stderr when a run is
heading for ten million states, with the flags that bound it; measured against real level sizes."""
from __future__ import annotations

import pytest

from explore.forecast import FIRST_LEVELS, WARN_AT, SizeWarning, forecast
from explore.run_control import Progress


def levels_of(preset: str) -> list[int]:
    """The exhaustive level sizes of a 4.4 preset (one always property, every state expanded)."""
    from explore.local import Limits, LocalExplorer
    from model import preset as preset_of
    from model.rocketmq import RocketMQModel
    from invariants import PROPERTIES

    ex = LocalExplorer(RocketMQModel(preset_of(preset)), PROPERTIES.select(["replicas_agree"]), Limits(), None,
                       exhaustive=True)
    return ex.run().stats.levels


@pytest.mark.parametrize("preset", ["default", "read-from-slave"])
def test_from_the_twelfth_level_the_forecast_is_within_a_factor_two(preset):
    levels = levels_of(preset)
    total = sum(levels)
    for cut in range(FIRST_LEVELS, len(levels) - 2):
        guess = forecast(levels[:cut])
        assert guess is not None and total / 2 <= guess <= total * 2, (cut, guess, total)


def test_no_forecast_from_too_few_levels_or_growth_that_does_not_slow():
    assert forecast([1, 5, 20, 60]) is None
    assert forecast([2 ** k for k in range(FIRST_LEVELS)]) is None            # doubling: no slowing down
    assert forecast([1, 3, 9, 30, 80, 200, 400, 700, 1000, 1300, 1500, 1600]) < 40_000


def snapshots(levels):
    for level, size in enumerate(levels):
        for _ in range(3):   # several chunks of a level report it
            yield Progress(level, size, 0, 0, 0, 1.0)


def test_a_run_heading_for_ten_million_states_is_warned_once_and_progress_passes_on():
    said, seen = [], []

    class Inner:
        def on_progress(self, p):
            seen.append(p.level)
    growing = [40 * n for n in levels_of("default")][:16]   # default's shape, 40 times wider: 26 million states
    assert forecast(growing) > WARN_AT
    listener = SizeWarning(Inner(), said.append)
    for p in snapshots(growing):
        listener.on_progress(p)
    assert len(said) == 1 and "--max-states" in said[0] and "--max-depth" in said[0] and "million" in said[0]
    assert len(seen) == 3 * len(growing)


def test_a_small_run_is_not_warned():
    said = []
    listener = SizeWarning(None, said.append)
    for p in snapshots(levels_of("default")):
        listener.on_progress(p)
    assert said == []
