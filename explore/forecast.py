"""How many states a run is heading for, forecast from its first levels: a warning's ground, never a limit.

The breadth-first levels of these models grow, peak and shrink, and the logarithm of the growth ratio from
one level to the next falls roughly linearly with the depth. The forecast fits a line to the last four log
ratios and extends the levels along it until one would hold less than one state. Measured on the 4.4
presets' exhaustive level sizes (``default``, ``sync-all``, ``two-slaves``, ``read-from-slave``,
``retention``): from the 12th level on, the forecast is within 0.6x to 1.3x of the true count; on larger
spaces it runs low (``bench``: 11 million forecast at level 13 for 16.8 million; ``large``: 55 million at
level 12 for 225 million), so it warns late rather than falsely. Where the
ratios do not fall (the controller mode's levels often grow unevenly) there is no forecast, rather than a
wrong one. A run is warned about when the forecast passes :data:`WARN_AT` states.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

#: a forecast this large earns a warning: at the local engine's speed and memory, minutes and gigabytes
WARN_AT = 10_000_000
#: the forecast waits for this many levels: before them the growth ratios say too little
FIRST_LEVELS = 12
_FIT = 4


def forecast(levels: Sequence[int]) -> float | None:
    """The total states a run whose levels so far held ``levels`` states is heading for; None when the levels
    are too few, or their growth does not slow (no extrapolation to trust)."""
    if len(levels) < FIRST_LEVELS or min(levels[-_FIT - 1:]) <= 0:
        return None
    ratios = [math.log(b / a) for a, b in zip(levels[-_FIT - 1:-1], levels[-_FIT:])]
    xs = range(len(levels) - _FIT, len(levels))
    mx, my = sum(xs) / _FIT, sum(ratios) / _FIT
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ratios)) / sum((x - mx) ** 2 for x in xs)
    if slope >= 0:
        return None
    total, size, depth = float(sum(levels)), float(levels[-1]), len(levels)
    while depth < 10 * len(levels) and total < 1e15:
        size *= math.exp(my + slope * (depth - mx))
        if size < 1:
            break
        total += size
        depth += 1
    return total


class SizeWarning:
    """A progress listener that says once, through ``say``, when the run's forecast passes :data:`WARN_AT`,
    with the flags that bound it; every snapshot is passed on to ``inner`` (a progress bar or lines)."""

    def __init__(self, inner, say: Callable[[str], None]) -> None:
        self.inner = inner
        self.say = say
        self.sizes: dict[int, int] = {}   # level -> the states in it
        self.warned = False

    @property
    def levels(self) -> list[int]:
        return [self.sizes[level] for level in sorted(self.sizes)]

    def on_progress(self, progress) -> None:
        if not self.warned and progress.level not in self.sizes:   # the first snapshot of a new level
            self.sizes[progress.level] = progress.frontier
            total = forecast(self.levels)
            if total is not None and total >= WARN_AT:
                self.warned = True
                self.say(f"note: this run is heading for about {_rounded(total)} states (forecast from its "
                         f"first {len(self.levels)} levels): it may take minutes and gigabytes; bound it with "
                         f"--max-states N or --max-depth N, or check a smaller configuration (fewer messages, "
                         f"consumers, slaves or failures: --set)")
        if self.inner is not None:
            self.inner.on_progress(progress)

    def __getattr__(self, name: str):   # whatever else the inner listener offers (a bar's label...)
        if self.inner is None:
            raise AttributeError(name)
        return getattr(self.inner, name)


def _rounded(n: float) -> str:
    """``41 million``, ``1.2 billion``: a forecast's size, no more precise than it is."""
    for unit, size in (("billion", 1e9), ("million", 1e6)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{n:,.0f}"
