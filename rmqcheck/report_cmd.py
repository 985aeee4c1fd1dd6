"""``rmqcheck report FILE.json --report OUT``: render the report of a saved ``check --json`` or ``faults --json``
result again, as HTML or Markdown, without exploring: the same document the run's own ``--report`` wrote.

Only a result of this rmqcheck is rendered (rmqcheck/saved_result.py): its tool, version, command, mode and
model are checked, and every trace is replayed against the model and must still show its verdict, so an
edited file is refused instead of being rendered as a verdict.
"""
from __future__ import annotations

from pathlib import Path

import click

from .compile_notice import announce_compilation
from .setup import check_input_file, check_outputs


@click.command("report")
@click.argument("result_file", metavar="FILE.json")
@click.option("--report", "report_path", required=True, metavar="PATH",
              help="Write the report: Markdown (.md) or HTML (.html).")
def report_cmd(result_file: str, report_path: str) -> None:
    """Render the report of a saved 'rmqcheck check --json' or 'rmqcheck faults --json' result again, without
    exploring. The result's traces are replayed first: a file that is not an unedited result of this
    rmqcheck is refused (exit 2)."""
    from reports.document import ReportSection, render_report, report_format
    from reports.files import OutputSet
    from reports.json_report import read_result, result_from_dict

    from .saved_result import accept_saved, saved_config, verify_traces

    report_format(report_path)
    check_input_file(result_file, "result file")
    check_outputs({"--report": report_path}, {"FILE.json": result_file})
    data = read_result(result_file)
    command, mode = accept_saved(data, result_file, ("check", "faults"), "rmqcheck report")
    cfg = saved_config(data, result_file, mode)
    announce_compilation()
    verify_traces(data, result_file, command, cfg)
    name = data.get("name") if isinstance(data.get("name"), str) and data.get("name") else Path(result_file).stem
    files = OutputSet()
    if command == "faults":
        from reports.faults import faults_report

        from .saved_faults import faults_report_from_dict
        report = faults_report_from_dict(data, result_file, cfg)
        files.add(report_path, faults_report(report_path, report, name, cfg.short()))
    else:
        result = result_from_dict(data, str(result_file))
        files.add(report_path, render_report(report_path, [ReportSection(name, cfg.short(), result)],
                                             f"rmqcheck report: {name}", str(data.get("reproduce") or "")))
    files.write()
    click.echo(f"wrote {report_path}")
