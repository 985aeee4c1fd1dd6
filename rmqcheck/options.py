"""Click options shared by several commands, so each is spelled and documented once."""
from __future__ import annotations

from typing import Callable

import click

from model import PRESETS


def config_options(f: Callable) -> Callable:
    """``--preset`` / ``--config`` (one of them) and repeatable ``--set key=value`` overrides."""
    f = click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
                     help="Override one knob (repeatable), e.g. --set slaves=2.")(f)
    f = click.option("--config", "config_file", metavar="FILE.toml",
                     help="Read knobs from a TOML file (key = value lines; optional preset = \"NAME\").")(f)
    f = click.option("--preset", "preset_name", metavar="NAME",
                     help=f"Start from a named preset: {', '.join(PRESETS)} (default: default).")(f)
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


def json_option(f: Callable) -> Callable:
    return click.option("--json", "json_path", metavar="PATH",
                        help="Write the result as JSON (schema in the README).")(f)


def quiet_option(f: Callable) -> Callable:
    return click.option("--quiet", is_flag=True, help="No progress bar; print only a summary line.")(f)


def traces_option(f: Callable) -> Callable:
    """``--traces all|violated|none``: which traces the console and the report show."""
    return click.option("--traces", type=click.Choice(["all", "violated", "none"]), default="violated",
                        show_default=True,
                        help="Traces to print and put in --report: all, only violations', or none.")(f)
