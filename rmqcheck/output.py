"""What a finished run prints and writes: the console report, then the ``--json`` / ``--report`` files.

Output paths were checked before exploring; files are written atomically, so an interrupted run leaves
nothing half-written.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from explore.result import CheckResult

STDOUT_WIDTH_WHEN_PIPED = 140


def stdout_console() -> Console:
    """Rich on stdout; when piped (CI logs, files) 140 columns rather than rich's 80, so a trace keeps
    one line per changed field and a matrix keeps one column per configuration."""
    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, soft_wrap=False, width=STDOUT_WIDTH_WHEN_PIPED)
    return console


def summary_line(result: CheckResult) -> str:
    s = result.stats
    return (f"{result.outcome}: {s.distinct_states:,} states, {s.transitions:,} transitions, depth {s.depth}, "
            f"{s.seconds:.2f} s")


def print_result(result: CheckResult, name: str, config_text: str, quiet: bool, *, json_path: str | None = None,
                 report_path: str | None = None, note: str = "") -> None:
    from reports.console import render_result
    out = stdout_console()
    if quiet:
        out.print(summary_line(result))
    else:
        render_result(out, result, config_text)
        if note:
            out.print(note)
    if json_path:
        from reports.json_report import write_json
        write_json(json_path, result)
    if report_path:
        from reports.document import ReportSection, write_report
        write_report(report_path, [ReportSection(name, config_text, result)], f"rmqcheck report: {name}")
