"""Rich console output: the progress bar, the summary table and step-by-step traces."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from explore.trace import fmt_value  # noqa: F401 (reports format values as traces do)
from rich.console import Console, ConsoleOptions, RenderResult
from rich.progress import BarColumn, Progress as RichProgress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.padding import Padding
from rich.segment import Segment
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


def compact_number(n: float) -> str:
    """``n`` in at most five characters: 950, 12.3k, 4.56M, 1.2G."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            value = n / size
            return f"{value:.3g}{unit}" if value < 100 else f"{value:.0f}{unit}"
    return f"{n:.0f}"


class QuietColumn(ProgressColumn):
    """How long the explorer has said nothing, once that passes :attr:`AFTER` seconds: the bar keeps
    moving through a long step that reports no progress (the graph properties' final pass, a large
    level's sort), so a silent engine never looks frozen. Rich's refresh thread draws it."""

    AFTER = 2.0

    def __init__(self, bar: "ProgressBar") -> None:
        super().__init__()
        self.bar = bar

    def render(self, task: Any) -> Text:
        quiet = time.monotonic() - self.bar.last_report
        if quiet < self.AFTER:
            return Text("")
        return Text(f"quiet {quiet:.0f}s" if self.bar.compact else f"working, {quiet:.0f} s since the last report",
                    style="yellow")


class ProgressBar:
    """A listener that draws a rich progress bar: which configuration runs (``label``, e.g. ``[2/6]
    sync-master`` in a matrix), the BFS level and how much of its frontier is expanded, distinct states,
    states/s, properties decided so far, and memory in use against the budget the explorer sized for.
    Below :attr:`WIDE` columns the same figures are written short (``L 12``, ``1.23M st``, ``285k/s``, the
    frontier's share in the bar only), so at 80 columns the bar and every figure stay whole."""

    FRONTIER = "of frontier"
    WIDE = 140

    def __init__(self, console: Console, min_interval: float = 0.1, label: str = "", unit: str = FRONTIER) -> None:
        self.console = console
        self.min_interval = min_interval
        self.label = label
        self.unit = unit     # what the bar counts: a BFS level's frontier, or (simulate) walks
        self.compact = console.width < self.WIDE
        self.last_report = time.monotonic()
        self._last = 0.0
        self._level = -1
        self._task = None
        if self.compact:
            columns = [TextColumn("{task.description}"), TextColumn("[bold]{task.fields[level]}"),
                       BarColumn(bar_width=12), TextColumn("[cyan]{task.fields[distinct_short]} st"),
                       TextColumn("[green]{task.fields[rate_short]}/s"), TextColumn("{task.fields[decided]}"),
                       TextColumn("{task.fields[memory]}"), TimeElapsedColumn(), QuietColumn(self)]
        else:
            columns = [TextColumn("{task.description}"), TextColumn("[bold]{task.fields[level]}"),
                       BarColumn(bar_width=20), TextColumn("{task.completed:,}/{task.total:,} {task.fields[unit]}"),
                       TextColumn("[cyan]{task.fields[distinct]:,} states"),
                       TextColumn("[green]{task.fields[rate]:,.0f} states/s"), TextColumn("{task.fields[decided]}"),
                       TextColumn("{task.fields[memory]}"), TimeElapsedColumn(), QuietColumn(self)]
        self._progress = RichProgress(*columns, console=console, transient=True)

    def __enter__(self) -> "ProgressBar":
        self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._progress.stop()

    def decided_text(self, p: Any) -> str:
        total = getattr(p, "properties", 0)
        if not total:
            return ""
        decided = getattr(p, "decided", 0)
        return f"{decided}/{total} dec" if self.compact else f"{decided}/{total} properties decided"

    def memory_text(self, p: Any) -> str:
        used, limit = getattr(p, "memory_bytes", 0), getattr(p, "memory_limit", 0)
        if not used:
            return ""
        style = "bold red" if limit and used > 0.9 * limit else "magenta"
        if self.compact:
            return f"[{style}]{compact_number(used)}" + (f"/{compact_number(limit)}B" if limit else "B")
        return f"[{style}]mem {human_bytes(used)}" + (f" of {human_bytes(limit)}" if limit else "")

    def on_progress(self, p: Any) -> None:
        now = time.monotonic()
        self.last_report = now
        if p.level == self._level and now - self._last < self.min_interval:
            return
        self._last = now
        frontier = self.unit == self.FRONTIER
        if self.compact:   # the bar itself shows how much of the level (or of the walks) is done
            level = (f"L{p.level:>3}" if frontier else "walks")
        else:
            level = f"level {p.level:>3}" if frontier else ""
        fields = dict(level=level, unit=self.unit, distinct=p.distinct, rate=p.states_per_second,
                      distinct_short=compact_number(p.distinct), rate_short=compact_number(p.states_per_second),
                      decided=self.decided_text(p), memory=self.memory_text(p))
        if self._task is None:
            self._task = self._progress.add_task(self.label, total=max(p.frontier, 1), **fields)
        self._level = p.level
        self._progress.update(self._task, total=max(p.frontier, 1), completed=p.expanded, **fields)


class ProgressLines:
    """A listener for a stderr that is not a terminal (a CI log, a file): a line every :attr:`INTERVAL`
    seconds while the run goes on, so a long run shows it is alive where no progress bar is drawn::

        rmqcheck: level 21, 31,994,395 states, 301,233 states/s, 3.2 GiB resident of 19.1 GiB, 1 min 46 s

    A thread of its own prints the line even while the engine reports nothing (a large level's sort, the
    passes over the whole graph at the end), saying then how long the engine has been quiet; the memory
    is read when the line is printed. ``clock`` and ``rss`` are injectable, and :meth:`tick` prints a line
    when one is due, so a test drives it without waiting."""

    INTERVAL = 30.0

    def __init__(self, stream: Any, interval: float | None = None, label: str = "", unit: str = "",
                 clock: Any = time.monotonic, rss: Any = None) -> None:
        import threading

        from explore.run_control import rss_bytes
        self.stream = stream
        self.interval = self.INTERVAL if interval is None else interval
        self.label = f"{label}: " if label else ""
        self.unit = unit   # "walks" (simulate): the snapshot counts walks, not a level's frontier
        self.clock = clock
        self.rss = rss or rss_bytes
        self.started = clock()
        self.last_line = self.started
        self.last_report = self.started
        self.latest: Any = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: Any = None

    def __enter__(self) -> "ProgressLines":
        import threading

        self._thread = threading.Thread(target=self._run, name="rmqcheck-progress-lines", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._done.wait(max(self.interval / 4, 0.01)):
            self.tick()

    def on_progress(self, p: Any) -> None:
        self.latest = p
        self.last_report = self.clock()
        self.tick()

    def tick(self) -> None:
        """Print a line when :attr:`interval` seconds have passed since the last one (and the engine has
        reported something)."""
        with self._lock:
            now = self.clock()
            if self.latest is None or now - self.last_line < self.interval:
                return
            self.last_line = now
            line = self.line(self.latest, now)
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):   # the log is gone: the run goes on without it
            pass

    def line(self, p: Any, now: float) -> str:
        """The progress line of snapshot ``p`` at time ``now``."""
        rate = p.distinct / p.seconds if p.seconds > 0 else 0.0
        limit = getattr(p, "memory_limit", 0)
        memory = f"{human_bytes(self.rss())} resident" + (f" of {human_bytes(limit)}" if limit else "")
        quiet = now - self.last_report
        working = f", working: {quiet:.0f} s since the last report" if quiet >= max(self.interval, 1.0) else ""
        where = f"{p.expanded:,}/{p.frontier:,} {self.unit}" if self.unit else f"level {p.level}"
        return (f"rmqcheck: {self.label}{where}, {p.distinct:,} states, {rate:,.0f} states/s, {memory}, "
                f"{duration(now - self.started)}{working}")


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``2 h 01 min``."""
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class NameTable:
    """A table whose name columns hold what users type (presets, knobs, properties, configurations): a name
    is never truncated nor folded, at any width. Where the width leaves a name column too narrow, each row
    is printed instead as its name on a line of its own, then ``header: value`` lines."""

    #: narrowest a column beside the names may become before the rows are stacked instead
    MIN_OTHER = 12

    def __init__(self, title: str, headers: tuple[str, ...], rows: list[tuple[Any, ...]],
                 name_columns: tuple[int, ...] = (0,), justify: dict[int, str] | None = None) -> None:
        self.title, self.headers, self.rows = title, headers, rows
        self.name_columns, self.justify = name_columns, justify or {}

    def table(self) -> Table:
        t = Table(title=self.title or None, title_justify="left")
        for i, header in enumerate(self.headers):
            if i in self.name_columns:
                width = max([len(str(r[i])) for r in self.rows] + [len(header)])
                t.add_column(header, style="bold" if i == 0 else None, no_wrap=True, min_width=width,
                             overflow="fold")
            else:
                t.add_column(header, justify=self.justify.get(i, "left"), overflow="fold")
        for row in self.rows:
            t.add_row(*row)
        return t

    def _widest(self, i: int) -> int:
        return max([len(str(row[i])) for row in self.rows] + [len(self.headers[i])])

    def _fits(self, width: int) -> bool:
        """Whether the table fits ``width`` with every name whole and the other columns still readable."""
        needed = sum(self._widest(i) if i in self.name_columns else min(self._widest(i), self.MIN_OTHER)
                     for i in range(len(self.headers)))
        return needed + 3 * len(self.headers) + 1 <= width

    def names(self) -> set[str]:
        return {str(row[i]) for row in self.rows for i in self.name_columns}

    def stacked(self, width: int) -> RenderResult:
        """Each row as its name on a line of its own, then ``header: value`` lines: values aligned in a
        column where ``width`` leaves room for one, else each line wrapping on its own."""
        if self.title:
            yield Text(self.title, style="italic")
        key = max(len(h) for h in self.headers) + 1
        aligned = 2 + key + 1 + self.MIN_OTHER <= width
        for row in self.rows:
            yield Text(str(row[self.name_columns[0]]), style="bold", no_wrap=True, overflow="ignore")
            fields = Table.grid(padding=(0, 1))
            fields.add_column(style="dim", no_wrap=True)
            fields.add_column(overflow="fold")
            for i, (header, value) in enumerate(zip(self.headers, row)):
                if i == self.name_columns[0] or not str(value):
                    continue
                if aligned:
                    fields.add_row(f"{header}:", value)
                else:
                    line = Text(f"{header}: ", style="dim")
                    line.append_text(value if isinstance(value, Text) else Text(str(value)))
                    fields.add_row(line)
            yield Padding(fields, (0, 0, 0, 2))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = _lines_keeping(console, options, self.table(), self.names()) if self._fits(options.max_width) \
            else None
        yield from lines if lines is not None else self.stacked(options.max_width)


def _lines_keeping(console: Console, options: ConsoleOptions, table: Table, names: set[str]) -> list[Any] | None:
    """``table`` rendered at the available width, or None when that cuts or folds one of ``names``."""
    lines = console.render_lines(table, options, pad=False)
    text = ["".join(seg.text for seg in line) for line in lines]
    if not all(any(name in line for line in text) for name in names):
        return None
    out: list[Any] = []
    for line in lines:
        out += [*line, Segment.line()]
    return out


class WholeNames:
    """``table`` where it keeps every one of ``names`` whole, else ``fallback``'s stacked rows."""

    def __init__(self, table: Table, names: set[str], fallback: NameTable) -> None:
        self.table, self.names, self.fallback = table, names, fallback

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = _lines_keeping(console, options, self.table, self.names)
        yield from lines if lines is not None else self.fallback.stacked(options.max_width)


def names_table(title: str, headers: tuple[str, ...], rows: list[tuple[Any, ...]]) -> NameTable:
    """``rmqcheck list``'s tables: the first column a name users type."""
    return NameTable(title, headers, rows)


def summary_table(result: CheckResult, title: str = "") -> Table:
    s = result.stats
    t = Table(title=title or None, show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    outcome = Text(result.outcome.upper(), style=OUTCOME_STYLE.get(result.outcome, "bold"))
    t.add_row("outcome", outcome)
    if result.bounds:
        from .bounds import bounds_text, check_next_bound_text
        t.add_row("bounds", bounds_text(result.bounds))
        if result.next_bound is not None:
            t.add_row("next bound", Text(check_next_bound_text(result.next_bound),
                                         style="yellow" if result.next_bound.get("moved") else ""))
    if result.incomplete_reason:
        t.add_row("incomplete", Text(result.incomplete_reason, style="yellow"))
    t.add_row("engine", result.engine)
    t.add_row("distinct states", f"{s.distinct_states:,}" + (" (exact)" if s.exact else
                                                            f" (collision probability {s.collision_probability:.1e})"))
    if s.visited == "compact" or s.visited_note:   # check --compact: what the run used, and why if not that
        used = ("compact (64-bit fingerprints" + (", a bijection of one-word states)" if s.exact else ")")
                if s.visited == "compact" else "exact")
        t.add_row("visited set", Text(used + (f"; {s.visited_note}" if s.visited_note else ""),
                                      style="cyan" if s.visited_note else ""))
    t.add_row("transitions", f"{s.transitions:,}")
    t.add_row("depth", str(s.depth))
    t.add_row("time", f"{s.seconds:.2f} s  ({s.states_per_second:,.0f} states/s)")
    t.add_row("peak RSS", human_bytes(s.peak_rss_bytes) + (f" ({s.bytes_per_state:,.0f} bytes a state added)"
                                                            if s.bytes_per_state else ""))
    if s.disk_bytes:
        t.add_row("on disk", human_bytes(s.disk_bytes))
    if s.stopped_early:
        t.add_row("stopped early", Text(s.stop_reason or "", style="cyan"))
    if s.unexpanded:
        t.add_row("unexpanded", f"{s.unexpanded:,} states violating every checked property (not expanded)")
    for name, value in dead_end_rows(result):
        t.add_row(name, Text(value, style="yellow") if name == "pruned" else value)
    return t


def dead_end_rows(result: CheckResult) -> list[tuple[str, str]]:
    """States per BFS level, terminal states and pruned transitions, for the summary (console and reports)."""
    from explore.coverage import pruned_text
    s = result.stats
    if not s.coverage:   # not a breadth-first run (simulate): nothing was counted
        return []
    rows = [("states per level", ", ".join(f"{n:,}" for n in s.levels))]
    terminal = f"{s.terminal_states:,} (states with no enabled action)"
    if result.terminal_trace is not None:
        terminal += f"; the shortest path to one takes {len(result.terminal_trace)} steps"
    rows.append(("terminal states", terminal))
    if s.pruned_transitions:
        rows.append(("pruned", pruned_text(s)))
    return rows


def coverage_table(result: CheckResult) -> NameTable:
    """Per action kind of the configuration: the transitions it produced and the new states among them."""
    rows = [(kind, f"{row['transitions']:,}", f"{row['new_states']:,}")
            for kind, row in result.stats.coverage.items()]
    return NameTable("coverage", ("action kind", "transitions", "new states"), rows,
                     justify={1: "right", 2: "right"})


def never_enabled_line(result: CheckResult) -> Text | None:
    from explore.coverage import never_enabled

    from .document import stopped_before_exhausting
    kinds = never_enabled(result.stats)
    if not kinds:
        return None
    if stopped_before_exhausting(result):
        return Text(f"not reached before the run stopped (depth {result.stats.depth}): {', '.join(kinds)} — "
                    "they may fire deeper", style="yellow")
    return Text(f"never enabled: {', '.join(kinds)} — part of the model is vacuous in this configuration",
                style="yellow")


def properties_table(props: list[PropertyResult]) -> NameTable:
    rows = []
    for p in props:
        length = str(len(p.trace)) if p.trace is not None else ""
        rows.append((p.name, p.kind, Text(p.status, style=STATUS_STYLE.get(p.status, "")), length,
                     p.summary + (f" [{p.note}]" if p.note else "")))
    return NameTable("properties", ("property", "kind", "verdict", "trace", "meaning"), rows, justify={3: "right"})


def loop_caption(trace: Trace, loop_start: int | None, fair: bool = True) -> str:
    """How a lasso goes on for ever (empty for a trace that is no lasso): the cycle of steps after
    ``loop_start``, whose last state is the state of step ``loop_start`` again, or one state it stays in.
    ``fair=False``: a lasso read from a file that failed its check, so only what the file claims is said."""
    if loop_start is None:
        return ""
    last = len(trace.steps) - 1
    if not fair:
        return f"↻ the file's loop starts at step {loop_start} (it does not check out: below)"
    if loop_start >= last:
        return f"↻ the run stays in the state of step {loop_start} for ever (stuttering: no fair action is enabled)"
    return (f"↻ repeats from step {loop_start}: steps {loop_start + 1}-{last} lead back to the state of step "
            f"{loop_start}, for ever")


def trace_table(trace: Trace, title: str, loop_start: int | None = None, fair: bool = True) -> Table:
    """A trace, one row per step; a lasso's cycle (``loop_start``: eventually properties) marked with ↻
    (``fair``: :func:`loop_caption`)."""
    caption = loop_caption(trace, loop_start, fair)
    t = Table(title=title, title_justify="left", show_lines=True, caption=caption or None,
              caption_justify="left")
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
        mark = " ↻" if loop_start is not None and step.index >= loop_start else ""
        t.add_row(f"{step.index}{mark}", action, changes)
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
    if p.loop_start is not None:
        return f"{prefix}{p.name}: {p.status}: a lasso of {len(p.trace)} steps, repeating from step {p.loop_start}"
    return f"{prefix}{p.name}: {p.status} in {len(p.trace)} steps{what}"


def render_traces(console: Console, result: CheckResult, traces_for: tuple[str, ...] = (S_VIOLATED,),
                  prefix: str = "") -> None:
    """The trace of each property whose status is in ``traces_for``, each violation with its explanation;
    ``prefix`` starts each title (a matrix names the configuration)."""
    from invariants.explain import explain_result
    for p in result.properties:
        if p.trace is None or p.status not in traces_for:
            continue
        console.print(trace_table(p.trace, trace_heading(p, prefix), p.loop_start))
        e = explain_result(p, result.config)
        if e is not None:
            console.print(explanation_table(e))
    if result.terminal_trace is not None and REACHED in traces_for:   # shown beside the witnesses
        console.print(trace_table(result.terminal_trace, terminal_heading(result.terminal_trace, prefix)))


def terminal_heading(trace: Trace, prefix: str = "") -> str:
    return f"{prefix}terminal state: reached in {len(trace)} steps (no action enabled there)"


def render_result(console: Console, result: CheckResult, config_text: str = "",
                  traces_for: tuple[str, ...] = (S_VIOLATED,)) -> None:
    """The full console report: summary, verdicts, and the traces asked for (by default each violation's)."""
    if config_text:
        console.print(f"[bold]config[/bold]  {config_text}")
    console.print(summary_table(result))
    if result.stats.coverage:
        console.print(coverage_table(result))
        never = never_enabled_line(result)
        if never is not None:
            console.print(never)
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


def matrix_table(sections: list[Any]) -> WholeNames:
    """Properties down, configurations across: each cell the verdict (violations with trace length). Where
    the width would cut a configuration's or a property's name: per configuration, ``property: verdict``."""
    title = "verdicts per configuration (violated (n): shortest counterexample of n steps)"
    t = Table(title=title, title_justify="left")
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
    rows = []
    for s in sections:
        verdicts = {p.name: verdict_cell(p) for p in s.result.properties}
        rows.append((s.name, *[verdicts.get(name, Text("-", style="dim")) for name in names],
                     Text(s.result.outcome, style=OUTCOME_STYLE.get(s.result.outcome, "")),
                     f"{s.result.stats.distinct_states:,}", f"{s.result.stats.seconds:.1f} s"))
    by_configuration = NameTable(title, ("configuration", *names, "outcome", "distinct states", "time"), rows)
    return WholeNames(t, set(names) | {s.name for s in sections}, by_configuration)


def configurations_table(sections: list[Any]) -> Table:
    """What each configuration of a matrix sets."""
    t = Table(title="configurations", title_justify="left", show_header=False, box=None)
    t.add_column(style="bold")
    t.add_column()
    for s in sections:
        t.add_row(s.name, s.config_text)
    return t


def gate_diff_table(diffs: list[tuple[str, str, str, str]]) -> NameTable:
    """Verdicts that differ from the baseline: (configuration, property, expected, got)."""
    rows = [(config, prop, Text(expected, style=STATUS_STYLE.get(expected, "")),
             Text(got, style=STATUS_STYLE.get(got, ""))) for config, prop, expected, got in diffs]
    return NameTable("verdicts that differ from the baseline", ("configuration", "property", "expected", "got"),
                     rows, name_columns=(0, 1))
