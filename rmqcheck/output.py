"""What a finished run prints and writes: the console report, then the ``--json`` / ``--report`` files.

Output paths were checked before exploring. The files of one run are written as a set, all or none
(``reports.files.OutputSet``). A console that goes away (``rmqcheck check ... | head``) does not stop the
files from being written; with ``--json -`` (or ``/dev/stdout``) the JSON owns standard output and the
console report goes to standard error.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Mapping

from rich.console import Console

from reports.files import OutputSet, is_standard_output

if TYPE_CHECKING:
    from explore.result import CheckResult

STDOUT_WIDTH_WHEN_PIPED = 140


class RunConsole(Console):
    """A console whose reader may go away (``rmqcheck check ... | head``): printing stops, the run does
    not. Rich's own reaction to a broken pipe is to exit with code 1, before any file is written."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        console_gone()


def stdout_console(stderr: bool = False) -> Console:
    """Rich on stdout (or stderr); when piped (CI logs, files) 140 columns rather than rich's 80, so a
    trace keeps one line per changed field and a matrix keeps one column per configuration."""
    console = RunConsole(highlight=False, soft_wrap=False, stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = RunConsole(highlight=False, soft_wrap=False, width=STDOUT_WIDTH_WHEN_PIPED, stderr=stderr)
    return console


def console_gone() -> None:
    """Standard output's reader went away: send what is left to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):   # no real file descriptor (an in-process test runner)
        pass


def summary_line(result: CheckResult) -> str:
    s = result.stats
    line = (f"{result.outcome}: {s.distinct_states:,} states, {s.transitions:,} transitions, depth {s.depth}, "
            f"{s.seconds:.2f} s")
    if result.incomplete_reason:
        line += f" ({result.incomplete_reason})"
    if s.stopped_early:
        line += f"; stopped early: {s.stop_reason}"
    if result.bounds:
        from reports.bounds import bounds_text
        line += f"; within {bounds_text(result.bounds)}"
    if result.next_bound is not None:
        from reports.bounds import check_next_bound_text
        line += f"\nnext bound: {check_next_bound_text(result.next_bound)}"
    return line


def unreached_note(result: CheckResult) -> str:
    """Why the exit code is 1 when a sometimes property was never reached: a vacuity warning, not a
    violation found ("" when no property is unreached)."""
    from explore.result import S_VIOLATED, UNREACHED

    unreached = [p.name for p in result.properties if p.status == UNREACHED]
    if not unreached:
        return ""
    violated = any(p.status == S_VIOLATED for p in result.properties)
    also = "" if violated else " No property is violated: the exit code 1 is this warning alone."
    return (f"unreached: {', '.join(unreached)}. A sometimes property names a situation the model must be able "
            "to produce; never reaching it means this configuration cannot get there (a vacuity warning, exit "
            f"code 1), so what holds here may hold only because of that.{also} Widen the configuration (more "
            "messages, failure budgets), or leave the property out with --property.")


def print_result(result: CheckResult, name: str, config_text: str, quiet: bool, *, json_path: str | None = None,
                 report_path: str | None = None, note: str = "",
                 extra_files: Mapping[str, str] | None = None, traces_for: tuple[str, ...] = ("violated",),
                 command: str = "") -> None:
    """Print ``result`` on the console, then write its files (``extra_files``: more path -> text to write
    in the same set, e.g. the graph export). ``traces_for``: the statuses whose traces the console shows
    (``--traces``); ``command``: the command line a report names as the way to reproduce the run."""
    from reports.console import render_result
    out = stdout_console(stderr=is_standard_output(json_path))
    if quiet:
        out.print(summary_line(result), soft_wrap=True)   # one line per fact: a script reads it
    else:
        render_result(out, result, config_text, traces_for)
        if note:
            out.print(note)
    if unreached_note(result):
        out.print(unreached_note(result), style="yellow")
    files = OutputSet()
    if json_path:
        from reports.json_report import result_json
        files.add(json_path, result_json(result, name, command))
    if report_path:
        from reports.document import ReportSection, render_report
        files.add(report_path, render_report(report_path, [ReportSection(name, config_text, result)],
                                             f"rmqcheck report: {name}", command))
    for path, text in (extra_files or {}).items():
        files.add(path, text)
    files.write()
    if files.files():   # on stderr: standard output stays the report (or the JSON, with --json -)
        import click
        sys.stdout.flush()   # after the report's last line, where both go to one terminal
        click.echo(f"rmqcheck: wrote {', '.join(files.files())}", err=True)
