"""Click options shared by several commands, so each is spelled and documented once."""
from __future__ import annotations

import shlex
from typing import Callable

import click
from click.core import ParameterSource

from explore.result import REACHED, S_VIOLATED


def config_options(f: Callable) -> Callable:
    """``--preset`` / ``--config`` (one of them) and repeatable ``--set key=value`` overrides."""
    f = click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
                     help="Override one knob (repeatable), e.g. --set slaves=2.")(f)
    f = click.option("--config", "config_file", metavar="FILE.toml",
                     help="Read knobs from a TOML file (key = value lines; optional preset = \"NAME\").")(f)
    f = click.option("--preset", "preset_name", metavar="NAME",
                     help="Start from a named preset (default: default); 'rmqcheck list' shows them all.")(f)
    return f


def property_option(f: Callable) -> Callable:
    return click.option("--property", "property_names", multiple=True, metavar="NAME",
                        help="Check only this property (repeatable); default: all. See 'rmqcheck list'.")(f)


def limit_options(f: Callable) -> Callable:
    """Bounds that end a run as incomplete (exit code 3), never as a false "passed"."""
    f = click.option("--max-seconds", type=float, metavar="S",
                     help="Stop (incomplete) after this much time.")(f)
    f = click.option("--max-depth", type=int, metavar="N",
                     help="Explore states up to N steps from the start (incomplete if more exist).")(f)
    f = click.option("--max-states", type=int, metavar="N",
                     help="Stop (incomplete) after N distinct states.")(f)
    return f


def threads_option(f: Callable) -> Callable:
    """``--threads N``: the local engine's threads per exploration (the same results for every N)."""
    return click.option("--threads", type=int, metavar="N",
                        help="Threads of each local exploration (default: the usable cores, shared among "
                             "--jobs where there are jobs); every thread count gives the same results.")(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "json_path", metavar="PATH",
                        help="Write the result as JSON (schema in the README).")(f)


def quiet_option(f: Callable) -> Callable:
    return click.option("--quiet", is_flag=True, help="No progress bar; print only a summary line.")(f)


#: --traces: which traces the console prints, as the property statuses that get one
TRACES = {"violated": (S_VIOLATED,), "all": (S_VIOLATED, REACHED), "none": ()}


def traces_option(f: Callable) -> Callable:
    """``--traces all|violated|none``: the same meaning on every command that prints traces."""
    return click.option("--traces", "traces", type=click.Choice(tuple(TRACES)), default="violated",
                        show_default=True,
                        help="Traces printed on the console: each violated property's counterexample (with why "
                             "it fails), all (also each reached sometimes property's witness), or none. "
                             "Reports always hold every trace.")(f)


def command_line(ctx: click.Context) -> str:
    """The command that reproduces this run, for reports: the command path and every option given (not the
    defaults), in each option's long spelling, quoted for a POSIX shell."""
    words = ctx.command_path.split()
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        if ctx.get_parameter_source(param.name) in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None):
            continue
        value = ctx.params.get(param.name)
        spelling = max(param.opts, key=len)
        if param.is_flag:
            if value:
                words.append(spelling)
            elif param.secondary_opts:
                words.append(max(param.secondary_opts, key=len))
            continue
        for item in (value if param.multiple else [value]):
            words += [spelling, str(item)]
    return shlex.join(words)
