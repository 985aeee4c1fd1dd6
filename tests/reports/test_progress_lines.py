"""The progress lines a stderr that is not a terminal gets (a CI log): one line every half minute while a run
goes on, with its level, states, states/s, resident memory and time, also while the engine is quiet. The
clock is injected: nothing here waits."""
from __future__ import annotations

import io

import pytest

from explore.run_control import Progress
from reports.console import ProgressLines


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def snapshot(level: int, distinct: int, seconds: float) -> Progress:
    return Progress(level=level, frontier=10, expanded=5, distinct=distinct, transitions=0, seconds=seconds,
                    memory_bytes=1, memory_limit=8 << 30)


def lines_of(buf: io.StringIO) -> list[str]:
    return buf.getvalue().splitlines()


def test_a_line_every_interval_while_the_engine_reports():
    buf, clock = io.StringIO(), Clock()
    lines = ProgressLines(buf, interval=30, clock=clock, rss=lambda: 3 << 30)
    for t in range(0, 100, 5):   # the engine reports every 5 s for 95 s
        clock.now = 1000.0 + t
        lines.on_progress(snapshot(t // 10, 1000 * t, t))
    out = lines_of(buf)
    assert len(out) == 3   # at 30, 60 and 90 s
    assert out[0] == ("rmqcheck: level 3, 30,000 states, 1,000 states/s, 3.0 GiB resident of 8.0 GiB, 30 s")
    assert out[2].startswith("rmqcheck: level 9, 90,000 states") and out[2].endswith("1 min 30 s")


def test_a_quiet_engine_still_gets_a_line_saying_how_long_it_has_been_quiet():
    buf, clock = io.StringIO(), Clock()
    lines = ProgressLines(buf, interval=30, clock=clock, rss=lambda: 5 << 30)
    lines.tick()
    assert buf.getvalue() == ""   # nothing reported yet: nothing to say
    clock.now += 10
    lines.on_progress(snapshot(40, 16_000_000, 10))
    clock.now += 25
    lines.tick()                     # 35 s after the start, 25 s since the last report
    clock.now += 50
    lines.tick()                     # the graph passes at the end: 75 s without a report
    out = lines_of(buf)
    assert len(out) == 2
    assert "working" not in out[0] and out[0].endswith("35 s")
    assert out[1].endswith("1 min 25 s, working: 75 s since the last report"), out[1]
    assert "5.0 GiB resident" in out[1]   # read when the line is printed, not from the snapshot


def test_the_label_and_the_walks_of_simulate():
    buf, clock = io.StringIO(), Clock()
    lines = ProgressLines(buf, interval=0, label="[2/6] sync-master", unit="walks", clock=clock, rss=lambda: 1 << 20)
    lines.on_progress(Progress(level=0, frontier=100, expanded=40, distinct=900, transitions=0, seconds=2.0))
    assert lines_of(buf) == ["rmqcheck: [2/6] sync-master: 40/100 walks, 900 states, 450 states/s, 1.0 MiB "
                             "resident, 0 s"]


def test_a_closed_log_does_not_stop_the_run():
    buf = io.StringIO()
    lines = ProgressLines(buf, interval=0, clock=Clock())
    buf.close()
    lines.on_progress(snapshot(1, 10, 1.0))   # no exception


@pytest.mark.parametrize("quiet", [False, True])
def test_check_with_stderr_not_a_terminal_prints_progress_lines(monkeypatch, quiet):
    """The command line, its stderr captured (not a terminal), the interval made 0: a line for each report,
    none with --quiet."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
    from cli_driver import SMALL, invoke

    monkeypatch.setattr(ProgressLines, "INTERVAL", 0.0)
    result = invoke("check", *SMALL, *(["--quiet"] if quiet else []))
    progress = [line for line in result.stderr.splitlines() if line.startswith("rmqcheck: level ")]
    if quiet:
        assert progress == []
    else:
        assert progress and all(" states, " in line and " states/s, " in line and " resident" in line
                                for line in progress), result.stderr
