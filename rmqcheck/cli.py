"""The ``rmqcheck`` command line: the command group, ``rmqcheck list``, and the entry point.

Each other command lives in its own module (``check``, ``matrix``, ``gate``, ``replay``, ``simulate``).
Exit codes (model-scope.md): 0 every property as expected, 1 a property violated (or, for ``gate``, a
verdict differs from the baseline), 2 bad input, 3 incomplete (a limit was hit), 4 model error. Bad input
is reported as one line on stderr, without a traceback.
"""
from __future__ import annotations

import sys
from typing import Any

import click

from explore.trace import ReplayError
from invariants import PROPERTIES
from invariants.base import UnknownPropertyError
from model import KNOBS, PRESET_DESCRIPTIONS, PRESETS
from model.config import ConfigError
from reports.files import OutputPathError
from reports.json_report import ResultFileError
from spark_explore.errors import SparkRefused, SparkUnavailable

from .bench import bench
from .check import check
from .exit_codes import EXIT_BAD_INPUT
from .faults import faults
from .gate import gate
from .matrix import matrix
from .output import stdout_console
from .replay import replay
from .setup import BadInput
from .simulate import simulate

#: exceptions that mean "the user's input is wrong" (exit code 2), whoever raises them
INPUT_ERRORS = (BadInput, ConfigError, UnknownPropertyError, OutputPathError, ReplayError, ResultFileError,
                SparkUnavailable, SparkRefused)


class RmqcheckGroup(click.Group):
    """The command group; its ``main`` turns bad input into one line on stderr and exit code 2, so the
    console script and click's ``CliRunner`` behave the same."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            return super().main(args, prog_name or "rmqcheck", complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("rmqcheck: aborted", err=True)
            sys.exit(130)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _bad_input(exc.format_message() + hint)
        except click.ClickException as exc:
            _bad_input(exc.format_message())
        except INPUT_ERRORS as exc:
            _bad_input(str(exc))


def _bad_input(message: str) -> None:
    click.echo(f"rmqcheck: error: {' '.join(message.split())}", err=True)
    sys.exit(EXIT_BAD_INPUT)


@click.group(cls=RmqcheckGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="rmqcheck", prog_name="rmqcheck")
def cli() -> None:
    """rmqcheck: explicit-state model checker of RocketMQ 4.4 master/slave replication.

    Every property gets a verdict; every violation gets a shortest counterexample trace.
    """


@cli.command("list")
def list_cmd() -> None:
    """List presets, knobs (allowed values, defaults) and properties."""
    from rich.table import Table

    out = stdout_console()
    t = Table(title="presets (--preset NAME)", title_justify="left")
    t.add_column("preset", style="bold")
    t.add_column("what it sets")
    for name in PRESETS:
        t.add_row(name, PRESET_DESCRIPTIONS.get(name, ""))
    out.print(t)
    t = Table(title="knobs (--set key=value, or key = value in a TOML file)", title_justify="left")
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
    out.print("kinds: always = must hold in every reachable state; sometimes = must be reachable (else the "
              "model is vacuous there); graph = from every reachable state a goal stays reachable.")


for command in (check, faults, matrix, gate, replay, simulate, bench):
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    """The console script ``rmqcheck``."""
    cli.main(args=argv, prog_name="rmqcheck")


if __name__ == "__main__":  # pragma: no cover
    main()
