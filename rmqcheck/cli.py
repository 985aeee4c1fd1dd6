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

from .bench import bench
from .check import check
from .compile_notice import announce_compilation
from .config_cmd import config_cmd
from .exit_codes import EXIT_BAD_INPUT, EXIT_INCOMPLETE
from .explorer.command import explore
from .faults import faults
from .gate import gate
from .matrix import matrix
from .memory_cap import cannot_load
from .interrupt import terminate_as_interrupt
from .output import console_gone, stdout_console
from .replay import replay
from .report_cmd import report_cmd
from .setup import BadInput
from .simulate import simulate
from .suggest import closest, with_suggestion
from .versions_cmd import print_versions, versions

#: exceptions that mean "the user's input is wrong" (exit code 2), whoever raises them, by module: each
#: is looked up only once its module is loaded (an exception cannot come from a module never imported),
#: so that ``rmqcheck --help`` loads neither the model nor numba
INPUT_ERRORS = (("model.config", "ConfigError"), ("invariants.base", "UnknownPropertyError"),
                ("reports.files", "OutputPathError"), ("explore.trace", "ReplayError"),
                ("reports.json_report", "ResultFileError"), ("spark_explore.errors", "SparkUnavailable"),
                ("spark_explore.errors", "SparkRefused"), ("explore.compact_dir", "WorkDirRefused"))


def input_error_types() -> tuple[type[BaseException], ...]:
    return (BadInput, *(getattr(sys.modules[module], name) for module, name in INPUT_ERRORS
                        if module in sys.modules))


def console_encodings_replace() -> None:
    """A console whose encoding is not UTF-8 (``PYTHONIOENCODING=ascii``, a Latin-1 locale) prints what it
    cannot encode as ``?``: the run, its verdicts and its files are the same, where a mark such as the
    trace's "why" cross ended the run with a UnicodeEncodeError before its ``--json`` file was written."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
        if encoding not in ("utf8", "utf16", "utf32") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):   # pragma: no cover - a stream that cannot be reconfigured
                pass


class RmqcheckGroup(click.Group):
    """The command group; its ``main`` turns bad input into one line on stderr and exit code 2, so the
    console script and click's ``CliRunner`` behave the same."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        console_encodings_replace()
        try:
            with terminate_as_interrupt():
                return super().main(args, prog_name or "rmqcheck", complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt):
            # a signal before exploration could stop cleanly (or a second one): nothing known, nothing written
            click.echo("rmqcheck: interrupted before a result; no output file written", err=True)
            sys.exit(EXIT_INCOMPLETE)
        except MemoryError:
            click.echo("rmqcheck: out of memory before a result; no output file written "
                       "(lower --max-states, or free memory)", err=True)
            sys.exit(EXIT_INCOMPLETE)
        except BrokenPipeError:
            console_gone()
            sys.exit(EXIT_BAD_INPUT)
        except (OSError, ImportError, SystemError) as exc:
            line = cannot_load(exc)   # under ulimit -v: numba's compiler library could not be mapped
            if line is None:
                raise
            click.echo(error_line(line, prefix="rmqcheck: out of memory: "), err=True)
            sys.exit(EXIT_INCOMPLETE)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _bad_input(exc.format_message() + hint)
        except click.ClickException as exc:
            _bad_input(exc.format_message())
        except Exception as exc:
            if not isinstance(exc, input_error_types()):
                raise
            _bad_input(str(exc))

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        """click's lookup, with the closest command name suggested for an unknown one."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            best = closest(name, self.list_commands(ctx))
            hint = f"; did you mean '{best}'?" if best else ""
            ctx.fail(f"No such command '{name}'{hint or '.'} Commands: {', '.join(self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)


#: an error line is at most this long: it names what is wrong, it does not echo a megabyte of input
MAX_ERROR_LINE = 299
#: a word (a value, a path) longer than this is cut in the middle
MAX_ERROR_WORD = 80


def _shortened(word: str) -> str:
    """A long word's start and end around "...": a path keeps its last component whole (the file the
    message is about), anything else its last 16 characters."""
    tail = word[word.rindex("/"):] if "/" in word[1:] else ""
    if not tail or len(tail) > MAX_ERROR_WORD - 24:
        tail = word[-16:]
    return f"{word[:MAX_ERROR_WORD - 3 - len(tail)]}...{tail}"


def error_line(message: str, prefix: str = "rmqcheck: error: ") -> str:
    """``prefix`` and ``message`` on one line of at most :data:`MAX_ERROR_LINE` characters: every word
    over :data:`MAX_ERROR_WORD` characters (an offending value, a long path) keeps its start and its end
    around "...", then the line itself is cut if it is still too long."""
    words = [w if len(w) <= MAX_ERROR_WORD else _shortened(w) for w in message.split()]
    line = prefix + with_suggestion(" ".join(words))
    return line if len(line) <= MAX_ERROR_LINE else line[:MAX_ERROR_LINE - 3] + "..."


def _bad_input(message: str) -> None:
    click.echo(error_line(message), err=True)
    sys.exit(EXIT_BAD_INPUT)


@click.group(cls=RmqcheckGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="rmqcheck", prog_name="rmqcheck")
def cli() -> None:
    """rmqcheck: explicit-state model checker of RocketMQ 4.4 master/slave replication.

    Every property gets a verdict; every violation gets a shortest counterexample trace.
    """


@cli.command("list")
@click.option("--mode", "mode_name", metavar="4.4|controller",
              help="List the names of this model mode (default: 4.4).")
@click.option("--versions", "releases", is_flag=True,
              help="List the mode's RocketMQ releases and version switches instead (as 'rmqcheck versions').")
def list_cmd(mode_name: str | None, releases: bool) -> None:
    """List presets, knobs (allowed values, defaults) and properties."""
    if releases:
        print_versions(mode_name)
        return
    announce_compilation(explorer=False)
    from model.knobs import ConfigError
    from model.modes import DEFAULT_MODE, get_mode
    from reports.console import names_table

    try:
        mode = get_mode(mode_name or DEFAULT_MODE)
    except ConfigError as exc:
        raise BadInput(str(exc)) from None
    KNOBS, PRESETS, PRESET_DESCRIPTIONS = mode.knobs, mode.presets, mode.preset_descriptions
    PROPERTIES = mode.properties()

    out = stdout_console()
    out.print(names_table("presets (--preset NAME)", ("preset", "what it sets"),
                          [(name, PRESET_DESCRIPTIONS.get(name, "")) for name in PRESETS]))
    rows = []
    for k in KNOBS:
        default = str(k.default).lower() if isinstance(k.default, bool) else str(k.default)
        rows.append((k.key, k.allowed_text(), default, k.rocketmq, k.doc))
    out.print(names_table("knobs (--set key=value, or key = value in a TOML file)",
                          ("knob", "allowed", "default", "RocketMQ", "meaning"), rows))
    out.print(names_table("properties (--property NAME)", ("property", "kind", "meaning"),
                          [(p.name, p.kind, p.summary) for p in PROPERTIES.every()]))
    out.print("kinds: always = must hold in every reachable state; sometimes = must be reachable (else the "
              "model is vacuous there); graph = from every reachable state a goal stays reachable; "
              "eventually = leads-to under --fairness, checked only when named with --property "
              "(docs/liveness.md).")


@cli.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of the result that --json writes."""
    from reports.result_schema import schema_text
    click.echo(schema_text(), nl=False)


def refuse_empty(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An option or argument given as ``''`` is bad input, not the option left out: ``--config ''`` ran
    the default preset, ``--json ''`` wrote nothing, ``--work-dir ''`` made a temporary directory."""
    for item in (value if isinstance(value, tuple) else (value,)):
        if item == "":
            raise click.BadParameter("'' is empty; give a value, or leave the option out", ctx=ctx, param=param)
    return value


def refuse_empty_values(command: click.Command) -> None:
    """Attach :func:`refuse_empty` to every free-text option and argument of ``command``."""
    for param in command.params:
        if param.type is click.STRING and param.callback is None and not getattr(param, "is_flag", False):
            param.callback = refuse_empty


for command in (check, faults, matrix, gate, replay, simulate, bench, explore, config_cmd, report_cmd, versions):
    refuse_empty_values(command)
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    """The console script ``rmqcheck``."""
    cli.main(args=argv, prog_name="rmqcheck")


if __name__ == "__main__":  # pragma: no cover
    main()
