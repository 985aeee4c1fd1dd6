"""The progress bar a terminal shows while exploring: level, frontier, distinct states, states/s."""
from __future__ import annotations

import io

from rich.console import Console

from explore.run_control import Progress
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
    """Not a terminal: progress lines instead of a bar (tests/reports/test_progress_lines.py); quiet: no
    progress, only the size forecast (tests/explore/test_forecast.py); random walks: no forecast."""
    from explore.forecast import SizeWarning
    from reports.console import ProgressLines
    from rmqcheck.engines import progress_listener
    with progress_listener(quiet=False) as listener:   # pytest's stderr is not a terminal
        assert isinstance(listener, SizeWarning) and isinstance(listener.inner, ProgressLines)
    with progress_listener(quiet=True) as listener:
        assert isinstance(listener, SizeWarning) and listener.inner is None
    with progress_listener(quiet=True, forecast=False) as listener:
        assert listener is None


def test_progress_bar_shows_configuration_properties_decided_and_memory():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=200, color_system=None)
    with ProgressBar(console, min_interval=0.0, label="[2/6] sync-master") as bar:
        bar.on_progress(Progress(level=4, frontier=100, expanded=50, distinct=1000, transitions=9, seconds=1.0,
                                 decided=3, properties=11, memory_bytes=512 << 20, memory_limit=8 << 30))
        bar._progress.refresh()
    text = buf.getvalue()
    assert "[2/6] sync-master" in text
    assert "3/11 properties decided" in text
    assert "mem 512.0 MiB of 8.0 GiB" in text


def test_simulation_progress_counts_walks_not_levels():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=200, color_system=None)
    with ProgressBar(console, min_interval=0.0, unit="walks") as bar:
        bar.on_progress(Progress(level=0, frontier=100, expanded=40, distinct=900, transitions=2000, seconds=1.0))
        bar._progress.refresh()
    text = buf.getvalue()
    assert "40/100 walks" in text and "level" not in text


class Recorder:
    def __init__(self):
        self.seen = []

    def on_progress(self, p):
        self.seen.append(p)


def test_local_explorer_reports_decided_properties_and_memory():
    """The engine fills the new fields: properties decided grow as levels settle them; memory is the
    process's resident memory, under the budget the explorer sized its tables for."""
    from explore.local import LocalExplorer
    from invariants import PROPERTIES
    from model import preset
    from model.rocketmq import RocketMQModel

    cfg = preset("default").with_overrides(["messages=1", "max_master_crashes=0"])
    rec = Recorder()
    LocalExplorer(RocketMQModel(cfg), PROPERTIES, listener=rec).run()
    assert rec.seen
    assert all(p.properties == len(PROPERTIES.names()) for p in rec.seen)
    decided = [p.decided for p in rec.seen]
    assert decided == sorted(decided) and decided[-1] > decided[0] >= 0
    assert all(0 < p.memory_bytes < p.memory_limit for p in rec.seen)


def _eighty_columns(**kw):
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=80, color_system=None)
    with ProgressBar(console, min_interval=0.0, **kw) as bar:
        bar.on_progress(Progress(level=23, frontier=3400, expanded=1200, distinct=1_234_567, transitions=9,
                                 seconds=4.33, decided=3, properties=11, memory_bytes=1_200_000_000,
                                 memory_limit=7_800_000_000))
        bar._progress.refresh()
        yield bar, buf
        bar._progress.refresh()


def test_at_80_columns_the_bar_and_every_figure_stay_whole():
    gen = _eighty_columns()
    bar, buf = next(gen)
    line = [ln for ln in buf.getvalue().replace("\\r", "\\n").splitlines() if "L 23" in ln][-1]
    assert "━" in line and "…" not in line                        # the bar is drawn, nothing cut
    for figure in ("L 23", "1.23M st", "285k/s", "3/11 dec", "1.2G/7.8GB", "0:00:"):
        assert figure in line, (figure, line)
    assert len(line.rstrip()) <= 80


def test_a_silent_engine_is_shown_working_not_frozen():
    gen = _eighty_columns()
    bar, buf = next(gen)
    bar.last_report -= 8                                         # eight seconds without a report
    next(gen, None)
    line = [ln for ln in buf.getvalue().replace("\r", "\n").splitlines() if "quiet" in ln][-1]
    assert "quiet 8s" in line and "━" in line and "…" not in line
