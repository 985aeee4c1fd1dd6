"""Click options shared by several commands, so each is spelled and documented once."""
from __future__ import annotations

import os
import re
import shlex
from typing import Any, Callable

import click
from click.core import ParameterSource

from explore.result import REACHED, S_VIOLATED

from .engines import ENGINES, SparkOptions
from .setup import MAX_COUNT, BadInput, bounded

#: the master URLs Spark can use: local, local[N], local[*], local[N,F], local[*,F], spark://HOST:PORT[,HOST:PORT]
MASTER_URL = re.compile(r"local(\[(\*|[1-9][0-9]{0,5})(,\s*[0-9]{1,5})?\])?"
                        r"|spark://[A-Za-z0-9.\-_\[\]:]+:[0-9]{1,5}(,[A-Za-z0-9.\-_\[\]:]+:[0-9]{1,5})*")
MAX_PARTITIONS = 1 << 20


def _complete(names: Callable[[], Any], suffix: str = "") -> Callable:
    """A shell-completion callback offering ``names()`` that start with what was typed (click's completion:
    ``eval "$(_RMQCHECK_COMPLETE=bash_source rmqcheck)"``)."""
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
        from click.shell_completion import CompletionItem
        return [CompletionItem(n + suffix) for n in names() if (n + suffix).startswith(incomplete)]
    return complete


def _files(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    from click.shell_completion import CompletionItem
    return [CompletionItem(incomplete, type="file")]


def _preset_names() -> list[str]:
    from model.modes import MODES
    return list(dict.fromkeys(name for mode in MODES.values() for name in mode.presets))


def _knob_names() -> list[str]:
    from model.modes import MODES
    return list(dict.fromkeys(k.key for mode in MODES.values() for k in mode.knobs))


def _release_names() -> list[str]:
    from model.modes import MODES
    return [v for mode in MODES.values() for v in mode.release_line().accepted()]


def _property_names() -> list[str]:
    from model.modes import MODES
    return list(dict.fromkeys(name for mode in MODES.values() for name in mode.properties().names()))


def config_options(f: Callable) -> Callable:
    """``--preset`` / ``--config`` (one of them), the operator's own ``--broker-conf`` / ``--group-config``
    files, ``--rocketmq-version``, and repeatable ``--set key=value`` overrides (applied in that order)."""
    f = click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
                     shell_complete=_complete(_knob_names, "="), help="Override one knob (repeatable), e.g. --set slaves=2.")(f)
    f = click.option("--rocketmq-version", metavar="X.Y.Z", expose_value=False, multiple=True,
                     callback=_remember("rocketmq_version", once=True), shell_complete=_complete(_release_names),
                     help="Check this RocketMQ release: every version switch takes its behaviour ('rmqcheck "
                          "versions' lists them); --set still changes one. Default: the mode's reference "
                          "release, 4.4.0 (mode 4.4) or 5.3.3 (controller).")(f)
    f = click.option("--group-config", metavar="FILE", expose_value=False, callback=_remember("group_config"),
                     shell_complete=_files,
                     help="The consumer group's settings as 'mqadmin updateSubGroup' prints them "
                          "(SubscriptionGroupConfig [...]) or as key=value lines: its brokerId and "
                          "whichBrokerWhenConsumeSlowly.")(f)
    f = click.option("--broker-conf", "broker_confs", multiple=True, metavar="FILE", expose_value=False,
                     callback=_remember("broker_confs"), shell_complete=_files,
                     help="A broker's broker.conf (Java properties, as RocketMQ reads it); repeat it for the "
                          "master and each slave of the group. 'rmqcheck config' shows the knobs they give.")(f)
    f = click.option("--config", "config_file", metavar="FILE.toml", is_eager=True, multiple=True,
                     callback=_read_run_table,
                     shell_complete=_files,
                     help="Read knobs from a TOML file (key = value lines; optional preset = \"NAME\"), and "
                          "from its [run] table the properties, limits, engine and threads (options "
                          "given win).")(f)
    f = click.option("--preset", "preset_name", metavar="NAME", multiple=True, callback=_once,
                     shell_complete=_complete(_preset_names),
                     help="Start from a named preset (default: default); 'rmqcheck list' shows them all.")(f)
    f = click.option("--mode", metavar="4.4|controller", expose_value=False, multiple=True,
                     callback=_remember("mode", once=True),
                     help="The model: 4.4 master/slave (default) or the 5.3.3 controller mode "
                          "(also: mode = \"...\" in the TOML file, or a controller preset).")(f)
    return f


def _refuse_empty(param: click.Parameter, value: Any) -> None:
    for item in (value if isinstance(value, (tuple, list)) else (value,)):
        if item == "":
            raise click.BadParameter("'' is empty; give a value, or leave the option out", param=param)


def _once(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An option that names one thing (``--preset``, ``--mode``, ``--config``), declared ``multiple`` so that
    a second use is seen: click keeps the last of a repeated option without a word (``--preset bench
    --preset default`` ran default). Bad input when given twice; its one value, or None."""
    _refuse_empty(param, value)
    values = tuple(value or ())
    if len(values) > 1:
        raise click.BadParameter(f"given {len(values)} times ({', '.join(repr(v[:40]) for v in values[:3])}); "
                                 "give it once", param=param)
    return values[0] if values else None


def _remember(key: str, once: bool = False) -> Callable:
    """A callback keeping an option's value in ``ctx.meta`` for :func:`rmqcheck.setup.resolve_config`:
    the commands' own signatures stay as they are. ``once``: an option given at most once (:func:`_once`)."""
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        value = _once(ctx, param, value) if once else value
        _refuse_empty(param, value)
        ctx.meta[key] = value
        return value
    return keep


def _read_run_table(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """``--config FILE``, read first (eager): its ``[run]`` table becomes the defaults of the other
    options (rmqcheck/run_file.py)."""
    value = _once(ctx, param, value)
    if value and os.path.isfile(value):   # anything else: resolve_config says what is wrong, in its turn
        from .run_file import read_run_table
        ctx.default_map = {**(ctx.default_map or {}), **read_run_table(value)}
    return value


def property_option(f: Callable) -> Callable:
    return click.option("--property", "property_names", multiple=True, metavar="NAME",
                        shell_complete=_complete(_property_names),
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


def visited_option(f: Callable) -> Callable:
    """``--compact`` / ``--exact``: the local engine's visited set (docs/engines.md, Compact visited set)."""
    return click.option("--compact/--exact", "compact", default=False, show_default=True,
                        help="Visited set of the local engine: 64-bit fingerprints (compact: a few bytes a state, "
                             "a collision probability reported; the graph and eventually properties "
                             "decided over the graph written to disk) or whole states (exact).")(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "json_path", metavar="PATH",
                        help="Write the result as JSON ('rmqcheck schema' prints its JSON Schema).")(f)


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


#: the options that only name output files: a reproduce line without them never overwrites a file
OUTPUT_PARAMS = frozenset({"json_path", "report_path", "graph_path", "graph_around", "graph_radius", "itf_dir",
                           "junit_path"})


def command_line(ctx: click.Context) -> str:
    """The command that reproduces this run, for reports: the command path and every option given (not the
    defaults, not the output files: pasting it must not overwrite the report it was copied from), in each
    option's long spelling, quoted for a POSIX shell."""
    words = ctx.command_path.split()
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name is None or param.name in OUTPUT_PARAMS:
            continue
        if ctx.get_parameter_source(param.name) in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None):
            continue
        value = ctx.params[param.name] if param.expose_value else ctx.meta.get(param.name)
        spelling = max(param.opts, key=len)
        if param.is_flag:
            if value:
                words.append(spelling)
            elif param.secondary_opts:
                words.append(max(param.secondary_opts, key=len))
            continue
        for item in (value if isinstance(value, (list, tuple)) else [value]):   # --preset: multiple, one value
            words += [spelling, str(item)]
    return shlex.join(words)


def engine_option(help_text: str) -> Callable[[Callable], Callable]:
    """``--engine local|spark`` (the registered engines); ``help_text`` says what runs on the engine."""
    return click.option("--engine", type=click.Choice(ENGINES), default="local", show_default=True,
                        help=help_text)


def spark_master_option(f: Callable) -> Callable:
    return click.option("--spark-master", default="local[*]", show_default=True, metavar="URL",
                        help="Spark master URL (--engine spark only).")(f)


def partitions_option(f: Callable) -> Callable:
    return click.option("--partitions", type=int, metavar="N", help="Frontier partitions (--engine spark only).")(f)


def driver_level_limit_option(f: Callable) -> Callable:
    return click.option("--driver-level-limit", type=int, metavar="N",
                        help="Expand levels of at most N states in the driver, without Spark stages "
                             "(default 20,000; 0: every level after the initial states on the cluster; "
                             "--engine spark only).")(f)


def check_master_url(url: str) -> None:
    """Refuse a master URL Spark would only reject after starting a JVM (or, worse, take as a file)."""
    if not MASTER_URL.fullmatch(url or ""):
        raise BadInput(f"--spark-master {url!r}: not a master URL; use local, local[N], local[*], local[N,F] "
                       "or spark://HOST:PORT")
    if url.startswith("spark://"):
        for address in url[len("spark://"):].split(","):
            port = int(address.rsplit(":", 1)[1])
            if not 1 <= port <= 65535:
                raise BadInput(f"--spark-master {url!r}: port {port} is not a TCP port (1-65535)")


def given_options(ctx: click.Context, names: tuple[str, ...]) -> list[str]:
    """The options of ``names`` (parameter names) given on the command line, as ``--spelled-out``."""
    return [f"--{p.replace('_', '-')}" for p in names
            if ctx.get_parameter_source(p) not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None)]


def refuse_unless_spark(ctx: click.Context, engine: str, names: tuple[str, ...]) -> None:
    """Spark-only options (``names``) given without ``--engine spark`` are bad input."""
    given = given_options(ctx, names)
    if engine != "spark" and given:
        raise BadInput(f"{given[0]} is only meaningful with --engine spark; drop it or add --engine spark")


def spark_options(ctx: click.Context, engine: str, names: tuple[str, ...]) -> SparkOptions:
    """The command's Spark options (``names``: the parameter names it has), validated: bad input when one
    is given without ``--engine spark`` or is out of range."""
    refuse_unless_spark(ctx, engine, names)
    if engine != "spark":
        return SparkOptions()
    p = ctx.params
    partitions = p.get("partitions")
    if partitions is not None:
        bounded("--partitions", partitions, MAX_PARTITIONS)
    if p.get("resume") and not p.get("work_dir"):
        raise BadInput("--resume needs --work-dir DIR (the checkpoints to resume from)")
    limit = p.get("driver_level_limit")
    if limit is not None:
        bounded("--driver-level-limit", limit, MAX_COUNT, positive=False)
    check_master_url(p["spark_master"])
    return SparkOptions(p["spark_master"], partitions, p.get("work_dir"), bool(p.get("resume")), limit)


def fairness_options(f: Callable) -> Callable:
    """``--fairness weak|strong|none`` and repeatable ``--unfair KIND``: the runs an eventually property
    quantifies over (docs/liveness.md)."""
    from invariants.base import FAIRNESS_MODES, WEAK
    f = click.option("--unfair", "unfair_kinds", multiple=True, metavar="KIND",
                     help="Give the action kind KIND no fairness (repeatable), e.g. --unfair MasterRestart: "
                          "the master may stay down for ever. Eventually properties only.")(f)
    f = click.option("--fairness", type=click.Choice(FAIRNESS_MODES), default=WEAK, show_default=True,
                     help="Fairness of the eventually properties' runs: every action that is not a failure is "
                          "weakly fair (continuously enabled => taken), strongly fair (enabled infinitely "
                          "often => taken), or none (any state may stutter for ever).")(f)
    return f


def with_fairness(ctx: click.Context, props, fairness: str, unfair_kinds: tuple[str, ...], config: Any = None):
    """``props`` with the fairness the options give: bad input for an action kind unknown to ``config``'s
    model mode (4.4 when None); a note (once, on the console) when a fairness option is given but no
    eventually property is selected."""
    from explore.fairness import unknown_kinds
    from invariants.base import EVENTUALLY, Fairness
    from model.modes import DEFAULT_MODE, get_mode, mode_of
    known = list((get_mode(DEFAULT_MODE) if config is None else mode_of(config)).kinds())
    bad = unknown_kinds(unfair_kinds, known)
    if bad:
        raise BadInput(f"--unfair {bad[0]}: not an action kind; kinds: {', '.join(sorted(known))}")
    given = [spelling for name, spelling in (("fairness", "--fairness"), ("unfair_kinds", "--unfair"))
             if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None)]
    if given and not props.of_kind(EVENTUALLY):
        click.echo(f"note: {' and '.join(given)} only affect eventually properties, and none is selected",
                   err=True)
    return props.with_fairness(Fairness(fairness, tuple(unfair_kinds)))
