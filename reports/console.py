"""Rich console output: the progress bar, the summary table and step-by-step traces."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from explore.result import (ERROR, HOLDS, INCOMPLETE, PASSED, REACHED, S_VIOLATED, UNKNOWN, UNREACHED,
                            CheckResult, PropertyResult, Trace)

if TYPE_CHECKING:
    from invariants.explain import Explanation

STATUS_STYLE = {
    HOLDS: "bold green", REACHED: "bold green", S_VIOLATED: "bold red", UNREACHED: "bold red",
    UNKNOWN: "yellow",
}
OUTCOME_STYLE = {PASSED: "bold green", "violated": "bold red", INCOMPLETE: "bold yellow", ERROR: "bold magenta"}


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def fmt_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(str(x) for x in value) + "]"
    return str(value)


class ProgressBar:
    """A listener that draws a rich progress bar: level, frontier, distinct states, states/s."""

    def __init__(self, console: Console, min_interval: float = 0.1) -> None:
        self.console = console
        self.min_interval = min_interval
        self._last = 0.0
        self._level = -1
        self._task = None
        self._progress = RichProgress(
            TextColumn("[bold]level {task.fields[level]:>3}"),
            BarColumn(),
            TextColumn("{task.completed:,}/{task.total:,} of frontier"),
            TextColumn("[cyan]{task.fields[distinct]:,} states"),
            TextColumn("[green]{task.fields[rate]:,.0f} states/s"),
            TimeElapsedColumn(),
            console=console, transient=True)

    def __enter__(self) -> "ProgressBar":
        self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._progress.stop()

    def on_progress(self, p: Any) -> None:
        now = time.monotonic()
        if p.level == self._level and now - self._last < self.min_interval:
            return
        self._last = now
        if self._task is None:
            self._task = self._progress.add_task("explore", total=max(p.frontier, 1), level=p.level,
                                                 distinct=p.distinct, rate=0.0)
        self._level = p.level
        self._progress.update(self._task, total=max(p.frontier, 1), completed=p.expanded, level=p.level,
                              distinct=p.distinct, rate=p.states_per_second)


def summary_table(result: CheckResult, title: str = "") -> Table:
    s = result.stats
    t = Table(title=title or None, show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    outcome = Text(result.outcome.upper(), style=OUTCOME_STYLE.get(result.outcome, "bold"))
    t.add_row("outcome", outcome)
    if result.incomplete_reason:
        t.add_row("incomplete", Text(result.incomplete_reason, style="yellow"))
    t.add_row("engine", result.engine)
    t.add_row("distinct states", f"{s.distinct_states:,}" + (" (exact)" if s.exact else
                                                            f" (collision probability {s.collision_probability:.1e})"))
    t.add_row("transitions", f"{s.transitions:,}")
    t.add_row("depth", str(s.depth))
    t.add_row("time", f"{s.seconds:.2f} s  ({s.states_per_second:,.0f} states/s)")
    t.add_row("peak RSS", human_bytes(s.peak_rss_bytes))
    if s.stopped_early:
        t.add_row("stopped early", Text(s.stop_reason or "", style="cyan"))
    if s.unexpanded:
        t.add_row("unexpanded", f"{s.unexpanded:,} states violating every checked property (not expanded)")
    return t


def properties_table(props: list[PropertyResult]) -> Table:
    t = Table(title="properties", title_justify="left")
    t.add_column("property", style="bold")
    t.add_column("kind")
    t.add_column("verdict")
    t.add_column("trace", justify="right")
    t.add_column("meaning")
    for p in props:
        length = str(len(p.trace)) if p.trace is not None else ""
        t.add_row(p.name, p.kind, Text(p.status, style=STATUS_STYLE.get(p.status, "")), length,
                  p.summary + (f" [{p.note}]" if p.note else ""))
    return t


def trace_table(trace: Trace, title: str) -> Table:
    t = Table(title=title, title_justify="left", show_lines=True)
    t.add_column("#", justify="right")
    t.add_column("action", style="bold")
    t.add_column("changes (before -> after)")
    for step in trace.steps:
        changes = Text()
        items = list(step.changes.items()) if step.index else []
        for i, (field, (before, after)) in enumerate(items):
            if i:
                changes.append("\n")
            changes.append(field, style="cyan")
            changes.append(f": {fmt_value(before)} -> ")
            changes.append(fmt_value(after), style="bold yellow")
        if step.index == 0:
            changes.append("initial state", style="dim")
        action = Text(step.action)
        if step.outcome:
            action.append(f"\n{step.outcome}", style="italic magenta")
        t.add_row(str(step.index), action, changes)
    return t


def explanation_table(e: Explanation) -> Table:
    """An explanation under its trace: every condition (failed ones marked ✗), then when each deciding field
    last changed; long lines wrap under their own column."""
    from .document import when
    t = Table.grid(padding=(0, 1))
    t.add_column(style="bold", no_wrap=True)
    t.add_column(no_wrap=True)
    t.add_column()
    for i, c in enumerate(e.conditions):
        mark = Text("✗", style="bold red") if not c.holds else Text("✓", style="green")
        t.add_row("why" if i == 0 else "", mark, Text(c.text, style="" if not c.holds else "dim"))
    changed = Text()
    for i, (name, step) in enumerate(e.last_changed.items()):
        changed.append(", " if i else "")
        changed.append(name, style="cyan")
        changed.append(f" {when(step)}")
    t.add_row("last changed", "", changed)
    return t


def trace_heading(p: PropertyResult, prefix: str = "") -> str:
    what = "" if p.status == S_VIOLATED else " (witness)"
    return f"{prefix}{p.name}: {p.status} in {len(p.trace)} steps{what}"


def render_traces(console: Console, result: CheckResult, traces_for: tuple[str, ...] = (S_VIOLATED,),
                  prefix: str = "") -> None:
    """The trace of each property whose status is in ``traces_for``, each violation with its explanation;
    ``prefix`` starts each title (a matrix names the configuration)."""
    from invariants.explain import explain_result
    for p in result.properties:
        if p.trace is None or p.status not in traces_for:
            continue
        console.print(trace_table(p.trace, trace_heading(p, prefix)))
        e = explain_result(p, result.config)
        if e is not None:
            console.print(explanation_table(e))


def render_result(console: Console, result: CheckResult, config_text: str = "",
                  traces_for: tuple[str, ...] = (S_VIOLATED,)) -> None:
    """The full console report: summary, verdicts, and the traces asked for (by default each violation's)."""
    if config_text:
        console.print(f"[bold]config[/bold]  {config_text}")
    console.print(summary_table(result))
    console.print(properties_table(result.properties))
    render_traces(console, result, traces_for)
    if result.error is not None:
        e = result.error
        console.print(f"[bold magenta]model error[/bold magenta] in action {e.action}: {e.message}")
        if e.trace is not None:
            console.print(trace_table(e.trace, "path to the state where the model failed"))


def verdict_cell(p: PropertyResult) -> Text:
    """A matrix cell: the verdict, and for a violation the length of its shortest trace."""
    text = p.status
    if p.status == S_VIOLATED and p.trace is not None:
        text += f" ({len(p.trace)})"
    return Text(text, style=STATUS_STYLE.get(p.status, ""))


def matrix_table(sections: list[Any]) -> Table:
    """Properties down, configurations across: each cell the verdict (violations with trace length)."""
    t = Table(title="verdicts per configuration (violated (n): shortest counterexample of n steps)",
              title_justify="left")
    names = list(dict.fromkeys(p.name for s in sections for p in s.result.properties))
    t.add_column("property", style="bold", no_wrap=True, min_width=max(map(len, names), default=8))
    for s in sections:
        t.add_column(s.name, justify="center")
    for name in names:
        cells: list[Any] = [name]
        for s in sections:
            found = [p for p in s.result.properties if p.name == name]
            cells.append(verdict_cell(found[0]) if found else Text("-", style="dim"))
        t.add_row(*cells)
    t.add_section()
    t.add_row(Text("outcome", style="bold"),
              *[Text(s.result.outcome, style=OUTCOME_STYLE.get(s.result.outcome, "")) for s in sections])
    t.add_row(Text("distinct states", style="bold"), *[f"{s.result.stats.distinct_states:,}" for s in sections])
    t.add_row(Text("time", style="bold"), *[f"{s.result.stats.seconds:.1f} s" for s in sections])
    return t


def configurations_table(sections: list[Any]) -> Table:
    """What each configuration of a matrix sets."""
    t = Table(title="configurations", title_justify="left", show_header=False, box=None)
    t.add_column(style="bold")
    t.add_column()
    for s in sections:
        t.add_row(s.name, s.config_text)
    return t


def gate_diff_table(diffs: list[tuple[str, str, str, str]]) -> Table:
    """Verdicts that differ from the baseline: (configuration, property, expected, got)."""
    t = Table(title="verdicts that differ from the baseline", title_justify="left")
    for col in ("configuration", "property", "expected", "got"):
        t.add_column(col, style="bold" if col == "configuration" else None)
    for config, prop, expected, got in diffs:
        t.add_row(config, prop, Text(expected, style=STATUS_STYLE.get(expected, "")),
                  Text(got, style=STATUS_STYLE.get(got, "")))
    return t
