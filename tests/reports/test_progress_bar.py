"""The progress bar a terminal shows while exploring: level, frontier, distinct states, states/s."""
from __future__ import annotations

import io

from rich.console import Console

from explore.local import Progress
from reports.console import ProgressBar


def test_progress_bar_shows_level_frontier_states_and_rate():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=140, color_system=None)
    with ProgressBar(console, min_interval=0.0) as bar:
        bar.on_progress(Progress(level=0, frontier=1, expanded=1, distinct=9, transitions=12, seconds=0.5))
        bar.on_progress(Progress(level=3, frontier=2000, expanded=500, distinct=123456, transitions=9, seconds=2.0))
        bar._progress.refresh()
    text = buf.getvalue()
    assert "level   3" in text
    assert "500/2,000 of frontier" in text
    assert "123,456 states" in text
    assert "61,728 states/s" in text


def test_no_progress_bar_when_not_a_terminal_or_quiet():
    from rmqcheck.engines import progress_listener
    with progress_listener(quiet=False) as listener:   # pytest's stderr is not a terminal
        assert listener is None
    with progress_listener(quiet=True) as listener:
        assert listener is None
