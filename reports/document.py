"""Self-contained trace reports (``--report PATH``): Markdown or HTML, chosen by the file extension.

A report holds one section per checked configuration: the configuration, the statistics, every verdict
and every trace (the shortest counterexample of each violated property and the shortest witness of each
reached sometimes property), each step with its action, its outcome and only the fields that changed;
each violation says why it is violated (invariants/explain.py) and each trace has a sequence diagram
(reports/sequence.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explore.result import REACHED, S_VIOLATED, CheckResult, PropertyResult

from .files import format_by_suffix, write_text_atomic

if TYPE_CHECKING:
    from invariants.explain import Explanation

REPORT_FORMATS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


@dataclass
class ReportSection:
    """One checked configuration: its name, its knobs in short, and what exploration found."""

    name: str
    config_text: str
    result: CheckResult


def defaults_of(config: dict) -> str:
    """Whose defaults a configuration's short text is relative to: its model mode's (another mode than the
    default one: with the release they are, its line's reference)."""
    from model.modes import DEFAULT_MODE, MODES, mode_name_of

    mode = mode_name_of(config)
    if mode == DEFAULT_MODE:
        return f"the {mode} defaults"
    line = MODES[mode].release_line() if mode in MODES else None
    return f"the {mode} mode's defaults" + (f" (RocketMQ {line.reference})" if line is not None else "")


def report_format(path: str | Path, option: str = "--report") -> str:
    """``markdown`` or ``html`` from the extension of ``path``; bad input otherwise."""
    return format_by_suffix(path, REPORT_FORMATS, "report", option)


def traced(result: CheckResult) -> list[PropertyResult]:
    """The properties whose trace a report shows: violations first, then witnesses."""
    with_trace = [p for p in result.properties if p.trace is not None]
    return ([p for p in with_trace if p.status == S_VIOLATED] +
            [p for p in with_trace if p.status == REACHED])


def trace_title(p: PropertyResult) -> str:
    what = "counterexample" if p.status == S_VIOLATED else "witness"
    return f"{p.name}: {p.status} ({what}, {len(p.trace)} steps)"


def stats_rows(result: CheckResult) -> list[tuple[str, str]]:
    from .console import human_bytes
    s = result.stats
    from .bounds import bounds_text, check_next_bound_text
    rows = [("outcome", result.outcome)] + ([("bounds", bounds_text(result.bounds))] if result.bounds else [])
    if result.next_bound is not None:
        rows.append(("next bound", check_next_bound_text(result.next_bound)))
    rows.append(("engine", result.engine))
    if result.incomplete_reason:
        rows.append(("incomplete", result.incomplete_reason))
    if s.stopped_early:
        rows.append(("stopped early", s.stop_reason or ""))
    rows += [("distinct states", f"{s.distinct_states:,}"), ("transitions", f"{s.transitions:,}"),
             ("depth", str(s.depth)), ("time", f"{s.seconds:.2f} s"),
             ("states/s", f"{s.states_per_second:,.0f}"), ("peak RSS", human_bytes(s.peak_rss_bytes))]
    if result.error is not None:
        rows.append(("model error", f"{result.error.message} (action {result.error.action})"))
    from .console import dead_end_rows
    return rows + dead_end_rows(result)


def coverage_rows(result: CheckResult) -> list[tuple[str, int, int]]:
    """``(action kind, transitions, new states)`` per action kind of the configuration."""
    return [(kind, row["transitions"], row["new_states"]) for kind, row in result.stats.coverage.items()]


def stopped_before_exhausting(result: CheckResult) -> bool:
    """The run ended with states unexpanded: every property settled early, or a limit stopped it."""
    return bool(result.stats.stopped_early or result.incomplete_reason)


def never_enabled_text(result: CheckResult) -> str:
    """The kinds that never fired, as a warning sentence ("" when every kind fired). After a run that
    stopped before exhausting the space (every property settled, or a limit) an idle kind says nothing
    about the model: it may fire deeper, so the sentence says only that it was not reached."""
    from explore.coverage import never_enabled
    kinds = never_enabled(result.stats)
    if not kinds:
        return ""
    if stopped_before_exhausting(result):
        return (f"Not reached before the run stopped: {', '.join(kinds)} (the run ended at depth "
                f"{result.stats.depth}, before exhausting the space; they may fire deeper).")
    return f"Never enabled: {', '.join(kinds)}; that part of the model is vacuous in this configuration."


def terminal_title(result: CheckResult) -> str:
    return f"terminal state: no action enabled (shortest path, {len(result.terminal_trace)} steps)"


def value_text(value: Any) -> str:
    from .console import fmt_value
    return fmt_value(value)


def explanation(p: PropertyResult, result: CheckResult) -> Explanation | None:
    """Why ``p``'s trace ends in a violation (None for a witness, or a property without an explainer)."""
    from invariants.explain import explain_result
    return explain_result(p, result.config)


def when(step: int) -> str:
    """A step of a trace in words: 0 is the initial state."""
    return f"at step {step}" if step else "initially (never changed)"


def anchor(index: int, name: str = "") -> str:
    """The fragment id of section ``index`` (or of its trace of property ``name``): letters, digits, dashes."""
    return f"c{index}" + (f"-{re.sub(r'[^A-Za-z0-9_-]', '-', name)}" if name else "")


def render_report(path: str | Path, sections: list[ReportSection], title: str = "rmqcheck report",
                  command: str = "") -> str:
    """``sections`` rendered in the format of ``path``'s extension; ``command`` is the command line that
    reproduces the run, shown at the top."""
    if report_format(path) == "html":
        from .html import render_html as render
    else:
        from .markdown import render_markdown as render
    return render(sections, title, command)


def write_report(path: str | Path, sections: list[ReportSection], title: str = "rmqcheck report",
                 command: str = "") -> None:
    """Render ``sections`` in the format of ``path``'s extension and write the file atomically."""
    write_text_atomic(path, render_report(path, sections, title, command))
