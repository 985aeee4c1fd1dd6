"""The ``rmqcheck`` command line.

Exit codes (model-scope.md): 0 every property as expected, 1 a property violated (or, for ``gate``, a
verdict differs from the baseline), 2 bad input, 3 incomplete (a limit was hit), 4 model error. Bad input
is reported as one line on stderr, without a traceback.
"""
from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console

from explore.result import ERROR, INCOMPLETE, PASSED, VIOLATED, CheckResult
from invariants import PROPERTIES
from model import KNOBS, PRESET_DESCRIPTIONS, PRESETS

from explore.trace import ReplayError
from invariants.base import UnknownPropertyError
from model.config import ConfigError
from reports.files import OutputPathError

from .setup import BadInput, CheckJob, limits, resolve_config, select_properties

#: exceptions that mean "the user's input is wrong" (exit code 2), whoever raises them
INPUT_ERRORS = (BadInput, ConfigError, UnknownPropertyError, OutputPathError, ReplayError)

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_INCOMPLETE, EXIT_MODEL_ERROR = 0, 1, 2, 3, 4
EXIT_FOR_OUTCOME = {PASSED: EXIT_OK, VIOLATED: EXIT_VIOLATED, INCOMPLETE: EXIT_INCOMPLETE,
                    ERROR: EXIT_MODEL_ERROR}


def stdout_console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


def run_job(job: CheckJob, engine: str, quiet: bool, spark_options: dict[str, Any] | None = None,
            keep_graph: bool = False) -> tuple[CheckResult, Any]:
    """Explore one job with the chosen engine, drawing a progress bar on a terminal unless ``quiet``."""
    model = job.model()
    err = stderr_console()
    listener = None
    bar = None
    if not quiet and err.is_terminal:
        from reports.console import ProgressBar
        bar = ProgressBar(err)
        listener = bar
    if engine == "spark":
        from spark_explore.engine import explore_on_spark  # pyspark is only imported here
        runner = lambda: (explore_on_spark(model, job.properties, job.limits, listener,  # noqa: E731
                                           **(spark_options or {})), None)
    else:
        from explore.local import LocalExplorer
        explorer = LocalExplorer(model, job.properties, job.limits, listener)
        runner = lambda: (explorer.run(), explorer)  # noqa: E731
    if bar is not None:
        with bar:
            return runner()
    return runner()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="rmqcheck", prog_name="rmqcheck")
def cli() -> None:
    """rmqcheck: explicit-state model checker of RocketMQ 4.4 master/slave replication.

    Every property gets a verdict; every violation gets a shortest counterexample trace.
    """


def config_options(f):
    f = click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
                     help="Override one knob (repeatable), e.g. --set slaves=2.")(f)
    f = click.option("--config", "config_file", metavar="FILE.toml", help="Read knobs from a TOML file.")(f)
    f = click.option("--preset", "preset_name", metavar="NAME",
                     help=f"Start from a named preset: {', '.join(PRESETS)} (default: default).")(f)
    return f


@cli.command()
@config_options
@click.option("--property", "property_names", multiple=True, metavar="NAME",
              help="Check only this property (repeatable); default: all.")
@click.option("--engine", type=click.Choice(["local", "spark"]), default="local", show_default=True,
              help="Exploration engine.")
@click.option("--max-states", type=int, help="Stop (incomplete) after this many distinct states.")
@click.option("--max-depth", type=int, help="Explore states up to this many steps from the start.")
@click.option("--max-seconds", type=float, help="Stop (incomplete) after this much time.")
@click.option("--json", "json_path", metavar="PATH", help="Write the result as JSON.")
@click.option("--quiet", is_flag=True, help="Print only the summary line.")
def check(preset_name, config_file, assignments, property_names, engine, max_states, max_depth,
          max_seconds, json_path, quiet) -> None:
    """Explore a configuration exhaustively and give every property a verdict."""
    from reports.console import render_result
    from reports.files import check_writable
    from reports.json_report import write_json

    cfg = resolve_config(preset_name, config_file, assignments)
    props = select_properties(property_names)
    lim = limits(max_states, max_depth, max_seconds)
    if json_path:
        check_writable(json_path, "--json")
    job = CheckJob(cfg, props, lim)
    result, _ = run_job(job, engine, quiet)
    if json_path:
        write_json(json_path, result)
    out = stdout_console()
    if quiet:
        s = result.stats
        out.print(f"{result.outcome}: {s.distinct_states:,} states, {s.transitions:,} transitions, "
                  f"depth {s.depth}, {s.seconds:.2f} s")
    else:
        render_result(out, result, cfg.short())
    sys.exit(EXIT_FOR_OUTCOME[result.outcome])


@cli.command("list")
def list_cmd() -> None:
    """List presets, knobs and properties."""
    from rich.table import Table

    out = stdout_console()
    t = Table(title="presets", title_justify="left")
    t.add_column("preset", style="bold")
    t.add_column("what it sets")
    for name in PRESETS:
        t.add_row(name, PRESET_DESCRIPTIONS.get(name, ""))
    out.print(t)
    t = Table(title="knobs (--set key=value, or a TOML file)", title_justify="left")
    for col in ("knob", "allowed", "default", "RocketMQ", "meaning"):
        t.add_column(col, style="bold" if col == "knob" else None)
    for k in KNOBS:
        default = str(k.default).lower() if isinstance(k.default, bool) else str(k.default)
        t.add_row(k.key, k.allowed_text(), default, k.rocketmq, k.doc)
    out.print(t)
    t = Table(title="properties (--property NAME)", title_justify="left")
    for col in ("property", "kind", "meaning"):
        t.add_column(col, style="bold" if col == "property" else None)
    for p in PROPERTIES:
        t.add_row(p.name, p.kind, p.summary)
    out.print(t)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input becomes one line on stderr and exit code 2."""
    try:
        cli.main(args=argv, prog_name="rmqcheck", standalone_mode=False)
    except BadInput as exc:
        _bad_input(str(exc))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("rmqcheck: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        _bad_input(exc.format_message())
    except INPUT_ERRORS as exc:
        _bad_input(str(exc))


def _bad_input(message: str) -> None:
    click.echo(f"rmqcheck: error: {' '.join(message.split())}", err=True)
    sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":  # pragma: no cover
    main()
