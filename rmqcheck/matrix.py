"""``rmqcheck matrix``: several configurations, one table of verdicts (configurations x properties)."""
from __future__ import annotations

import sys

import click

from explore.sweep import Task, run_sweep, usable_cores
from model import PRESETS

from .engines import run_check
from .exit_codes import EXIT_FOR_OUTCOME, worst_outcome
from .options import json_option, limit_options, property_option, quiet_option
from .output import stdout_console
from .setup import BadInput, CheckJob, check_outputs, limits, resolve_config, select_properties

#: presets the matrix runs by default: all but the benchmark space
DEFAULT_PRESETS = tuple(name for name in PRESETS if name != "bench")


@click.command()
@click.option("--preset", "preset_names", multiple=True, metavar="NAME",
              help=f"A configuration to run (repeatable); default: {', '.join(DEFAULT_PRESETS)}.")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
              help="Override one knob in every configuration (repeatable).")
@property_option
@limit_options
@json_option
@click.option("--report", "report_path", metavar="PATH",
              help="Write every configuration's verdicts and traces: Markdown (.md) or HTML (.html).")
@click.option("--jobs", type=int, default=1, show_default=True, metavar="N",
              help="Configurations checked in parallel, one process each (at most the usable cores).")
@quiet_option
def matrix(preset_names, assignments, property_names, max_states, max_depth, max_seconds, json_path,
           report_path, jobs, quiet) -> None:
    """Check several presets and print one table: each cell a verdict, violations with trace length.

    The exit code is that of the most serious outcome: 4 model error, 1 violated, 3 incomplete, 0 passed.
    """
    from reports.console import configurations_table, matrix_table
    from reports.document import ReportSection, report_format

    names = list(dict.fromkeys(preset_names)) or list(DEFAULT_PRESETS)
    configs = [(name, resolve_config(name, None, assignments)) for name in names]
    props = select_properties(property_names)
    lim = limits(max_states, max_depth, max_seconds)
    cores = usable_cores()
    if not 1 <= jobs <= cores:
        raise BadInput(f"--jobs {jobs}: must be between 1 and {cores} (the usable cores)")
    if report_path:
        report_format(report_path)
    check_outputs({"--json": json_path, "--report": report_path})

    # one sweep task per configuration; in parallel the workers draw no progress bar
    tasks = [Task(check_configuration, (cfg, tuple(props.names()), lim, quiet or jobs > 1)) for _, cfg in configs]
    sweep = run_sweep(tasks, jobs)
    if sweep.interrupted:
        raise KeyboardInterrupt
    sections = [ReportSection(name, cfg.short(), result) for (name, cfg), result in zip(configs, sweep.results)]
    out = stdout_console()
    if not quiet:
        out.print(configurations_table(sections))
    out.print(matrix_table(sections))
    if json_path:
        from reports.json_report import write_matrix_json
        write_matrix_json(json_path, sections)
    if report_path:
        from reports.document import write_report
        write_report(report_path, sections, "rmqcheck matrix report")
    sys.exit(EXIT_FOR_OUTCOME[worst_outcome([s.result.outcome for s in sections])])


def check_configuration(cfg, property_names, lim, quiet):
    """One matrix cell's exploration (a sweep task: it may run in a worker process)."""
    result, _ = run_check(CheckJob(cfg, select_properties(property_names), lim), "local", quiet)
    return result
