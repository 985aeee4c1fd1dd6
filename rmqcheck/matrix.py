"""``rmqcheck matrix``: several configurations, one table of verdicts (configurations x properties)."""
from __future__ import annotations

import sys

import click

from reports.files import OutputSet, is_standard_output

from .compile_notice import announce_compilation
from .engines import run_check, sweep_runner
from .exit_codes import EXIT_FOR_OUTCOME, EXIT_INCOMPLETE, worst_outcome
from .interrupt import stop_on_signals
from .options import (TRACES, command_line, engine_option, fairness_options, given_options, json_option,
                      limit_options, property_option, quiet_option, spark_master_option, spark_options,
                      threads_option, traces_option, with_fairness)
from .output import stdout_console
from .setup import BadInput, CheckJob, check_outputs, limits, parallelism, resolve_config, select_properties

#: the presets the matrix leaves out by default: the benchmark spaces
NOT_BY_DEFAULT = ("bench", "large")


def default_presets() -> tuple[str, ...]:
    """The presets the matrix runs by default: all but the benchmark spaces."""
    from model.modes import DEFAULT_MODE, get_mode
    return tuple(name for name in get_mode(DEFAULT_MODE).presets if name not in NOT_BY_DEFAULT)


@click.command()
@click.option("--preset", "preset_names", multiple=True, metavar="NAME",
              help="A configuration to run (repeatable); default: every preset but bench and large "
                   "('rmqcheck list').")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE",
              help="Override one knob in every configuration (repeatable).")
@click.option("--versions", "versions_text", metavar="all|X.Y.Z,...",
              help="Check each preset at each of these RocketMQ releases (all: every release the presets' mode "
                   "checks), one column per release; default preset with it: the mode's default. Releases "
                   "that behave alike share one exploration. 'rmqcheck versions' lists them.")
@property_option
@fairness_options
@limit_options
@json_option
@click.option("--report", "report_path", metavar="PATH",
              help="Write every configuration's verdicts and traces: Markdown (.md) or HTML (.html).")
@click.option("--jobs", type=int, metavar="N",
              help="Configurations checked in parallel, one process each (default: 1, or the cores --threads "
                   "leaves; jobs times threads at most the usable cores; --engine local only).")
@threads_option
@engine_option("Where each configuration is explored, on the local engine: in local processes (--jobs), or "
               "as one Spark task each.")
@spark_master_option
@quiet_option
@traces_option
@click.pass_context
def matrix(ctx: click.Context, preset_names, assignments, versions_text, property_names, fairness, unfair_kinds,
           max_states, max_depth, max_seconds,
           json_path, report_path, jobs, threads, engine, spark_master, quiet, traces) -> None:
    """Check several presets and print one table: each cell a verdict, violations with trace length.

    With --versions, each preset at each RocketMQ release: one column per release.

    The exit code is that of the most serious outcome: 4 model error, 1 violated, 3 incomplete, 0 passed.
    """
    announce_compilation()
    from reports.console import configurations_table, matrix_table, render_traces
    from model.modes import mode_of
    from reports.document import ReportSection, report_format

    names = list(dict.fromkeys(preset_names)) or (["default"] if versions_text is not None else
                                                  list(default_presets()))
    configs = [(name, resolve_config(name, None, assignments)) for name in names]
    if versions_text is not None:
        configs = at_releases(configs, versions_text, quiet)
    modes = list(dict.fromkeys(mode_of(cfg).name for _, cfg in configs))
    if len(modes) > 1:   # one table has one set of property columns
        raise BadInput(f"--preset: presets of modes {' and '.join(modes)}; give the presets of one mode")
    props = with_fairness(ctx, select_properties(property_names, configs[0][1]), fairness, unfair_kinds, configs[0][1])
    lim = limits(max_states, max_depth, max_seconds)
    spark_options(ctx, engine, ("spark_master",))
    if engine == "spark" and given_options(ctx, ("jobs",)):
        raise BadInput("--jobs is for --engine local; on Spark the master runs the configurations' tasks on its "
                       "cores (e.g. --spark-master local[2])")
    if engine == "spark" and threads is not None:
        raise BadInput("--threads: the local engine's option; on Spark each configuration's task explores on one "
                       "thread")
    jobs, threads = parallelism(threads, jobs, default_jobs=0 if threads is not None else 1)
    if engine == "spark":
        threads = 1
    if report_path:
        report_format(report_path)
    check_outputs({"--json": json_path, "--report": report_path})

    from explore.sweep import Task

    # one sweep task per distinct configuration (releases that behave alike share one); in parallel (or in
    # an executor) the workers draw no progress bar
    explored = distinct_configurations(configs)
    tasks = [Task(check_configuration, (cfg, tuple(props.names()), lim, quiet or jobs > 1 or engine == "spark",
                                        f"[{i}/{len(explored)}] {name}", threads, props.fairness))
             for i, (name, cfg) in enumerate(explored, start=1)]
    with stop_on_signals(), sweep_runner(engine, jobs, spark_master) as runner:
        # after Ctrl-C the remaining configurations stop at once, as incomplete
        sweep = runner.run(tasks)
        if sweep.failure:
            click.echo(f"rmqcheck: {sweep.failure}; no output file written", err=True)
            sys.exit(EXIT_INCOMPLETE)
        if sweep.interrupted:
            raise KeyboardInterrupt
        results = dict(zip((same_behaviour(cfg) for _, cfg in explored), sweep.results))
        sections = [ReportSection(name, cfg.short(), for_release(results[same_behaviour(cfg)], cfg))
                    for name, cfg in configs]
        out = stdout_console(stderr=is_standard_output(json_path))
        if not quiet:
            out.print(configurations_table(sections))
        out.print(matrix_table(sections))
        if not quiet:
            for s in sections:
                render_traces(out, s.result, TRACES[traces], prefix=f"{s.name} / ")
        files = OutputSet()
        if json_path:
            from reports.json_report import matrix_json
            files.add(json_path, matrix_json(sections))
        if report_path:
            from reports.document import render_report
            files.add(report_path, render_report(report_path, sections, "rmqcheck matrix report",
                                                 command_line(click.get_current_context())))
        files.write()
    sys.exit(EXIT_FOR_OUTCOME[worst_outcome([s.result.outcome for s in sections])])


def at_releases(configs: list, text: str, quiet: bool) -> list:
    """``--versions all|X.Y.Z,...``: each configuration at each release, named by the release (by
    ``preset@release`` with several presets); bad input for a release the presets' mode does not check."""
    from model.knobs import ConfigError
    from model.modes import mode_of
    from model.versions import with_release

    line = mode_of(configs[0][1]).release_line()
    words = [w for w in text.split(",")]
    if text == "all":
        words = list(line.accepted())
        pending = [v for v in line.versions() if v not in line.accepted()]
        if pending and not quiet:
            click.echo(f"note: --versions all: mode {line.mode} checks {', '.join(line.accepted())}; "
                       f"{', '.join(pending)}: {line.pending}", err=True)
    elif not all(w.strip() for w in words):
        raise BadInput(f"--versions {text!r}: an empty release in the list; give all or X.Y.Z,X.Y.Z")
    out = []
    for name, cfg in configs:
        for word in dict.fromkeys(words):
            try:
                at = with_release(cfg, word, "--versions")
            except ConfigError as exc:
                raise BadInput(str(exc)) from None
            version = getattr(at, "rocketmq_version", line.reference)
            out.append((version if len(configs) == 1 else f"{name}@{version}", at))
    return out


def same_behaviour(cfg) -> tuple:
    """What an exploration of ``cfg`` depends on: every knob, not the release's name."""
    return tuple(sorted((k, str(v)) for k, v in cfg.as_dict().items() if k != "rocketmq_version"))


def distinct_configurations(configs: list) -> list:
    """The first of each set of configurations that explore alike (releases whose switches agree)."""
    seen: dict[tuple, tuple] = {}
    for name, cfg in configs:
        seen.setdefault(same_behaviour(cfg), (name, cfg))
    return list(seen.values())


def for_release(result, cfg):
    """``result`` (of a configuration that explores as ``cfg``) as ``cfg``'s own: its config names ``cfg``'s
    release."""
    import copy

    from model.versions import config_dict

    own = config_dict(cfg)
    if result.config == own:
        return result
    mine = copy.copy(result)
    mine.config = own
    return mine


def check_configuration(cfg, property_names, lim, quiet, label="", threads=1, fairness=None):
    """One matrix cell's exploration (a sweep task: it may run in a worker process)."""
    props = select_properties(property_names, cfg)
    if fairness is not None:
        props = props.with_fairness(fairness)
    result, _ = run_check(CheckJob(cfg, props, lim, threads), "local", quiet, label=label)
    return result
