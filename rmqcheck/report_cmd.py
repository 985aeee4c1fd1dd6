"""``rmqcheck report FILE.json --report OUT``: render the report of a saved ``check --json`` result again,
as HTML or Markdown, without exploring."""
from __future__ import annotations

from pathlib import Path

import click

from .setup import check_input_file, check_outputs


@click.command("report")
@click.argument("result_file", metavar="FILE.json")
@click.option("--report", "report_path", required=True, metavar="PATH",
              help="Write the report: Markdown (.md) or HTML (.html).")
def report_cmd(result_file: str, report_path: str) -> None:
    """Render the report of a saved 'rmqcheck check --json' result again, without exploring."""
    from model import Config, ConfigError
    from reports.document import ReportSection, render_report, report_format
    from reports.files import OutputSet
    from reports.json_report import ResultFileError, read_result, result_from_dict

    report_format(report_path)
    check_input_file(result_file, "result file")
    check_outputs({"--report": report_path}, {"FILE.json": result_file})
    result = result_from_dict(read_result(result_file), str(result_file))
    try:
        config_text = Config(**result.config).short()
    except (TypeError, ConfigError):
        raise ResultFileError(f"{result_file}: 'config' is not a configuration of this rmqcheck") from None
    name = Path(result_file).stem
    files = OutputSet()
    files.add(report_path, render_report(report_path, [ReportSection(name, config_text, result)],
                                         f"rmqcheck report: {name}"))
    files.write()
    click.echo(f"wrote {report_path}")
