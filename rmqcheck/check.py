"""``rmqcheck check``: explore one configuration exhaustively and give every property a verdict."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from reports.graph_export import DEFAULT_RADIUS, GRAPH_NODE_LIMIT

from .compile_notice import announce_compilation
from .engines import SparkOptions, run_check
from .exit_codes import EXIT_FOR_OUTCOME
from .interrupt import stop_on_signals
from .options import (TRACES, command_line, config_options, driver_level_limit_option, engine_option,
                      fairness_options, given_options, json_option, limit_options, partitions_option, property_option, quiet_option, spark_master_option,
                      spark_options, threads_option, traces_option, visited_option, with_fairness)
from .output import print_result
from .setup import (BadInput, CheckJob, check_itf_dir, check_outputs, config_name, limits, parallelism,
                    resolve_config, select_properties)

SPARK_ONLY = ("spark_master", "partitions", "driver_level_limit")


@click.command()
@config_options
@property_option
@fairness_options
@engine_option("Exploration engine: the embedded local BFS, or the same BFS on Spark.")
@limit_options
@threads_option
@visited_option
@json_option
@click.option("--report", "report_path", metavar="PATH",
              help="Write a self-contained trace report: Markdown (.md) or HTML (.html).")
@click.option("--graph", "graph_path", metavar="PATH",
              help=f"Export the explored state graph, counterexamples marked: GraphML (.graphml) or DOT (.dot); "
                   f"local engine, at most {GRAPH_NODE_LIMIT:,} states.")
@click.option("--graph-around", "graph_around", metavar="PROPERTY",
              help="With --graph: export only PROPERTY's trace and the states up to --graph-radius steps after "
                   "its states (any space size).")
@click.option("--graph-radius", type=int, default=DEFAULT_RADIUS, show_default=True, metavar="K",
              help="With --graph-around: how many steps after the trace to export.")
@click.option("--next-bound", "next_bound", is_flag=True,
              help="Explore the configuration once more with one more message (local engine) and say which "
                   "verdicts move there; the exit code stays this bound's.")
@click.option("--itf", "itf_dir", metavar="DIR",
              help="Write each trace as DIR/<property>.itf.json in the Informal Trace Format (Apalache, Quint).")
@quiet_option
@traces_option
@spark_master_option
@partitions_option
@click.option("--work-dir", metavar="DIR",
              help="Checkpoint directory: the levels on disk of --engine spark, or of the local engine with "
                   "--compact (default: a temporary directory, removed at the end).")
@click.option("--resume", is_flag=True,
              help="Continue a stopped run from the last finished level in --work-dir (--engine spark, or the "
                   "local engine with --compact): the same results as a run never stopped.")
@driver_level_limit_option
@click.pass_context
def check(ctx: click.Context, preset_name, config_file, assignments, property_names, fairness, unfair_kinds, engine,
          max_states,
          max_depth, max_seconds, threads, compact, json_path, report_path, graph_path, graph_around, graph_radius, next_bound,
          itf_dir, quiet,
          traces, spark_master, partitions,
          work_dir, resume, driver_level_limit) -> None:
    """Explore a configuration exhaustively and give every property a verdict.

    Exit code 0 when every property holds (or is reached), 1 when one is violated, 3 when a limit stopped
    the run first, 2 for bad input, 4 for a model error.
    """
    announce_compilation()
    from explore.run_control import Limits
    from reports.document import report_format
    from reports.graph_export import graph_format

    cfg = resolve_config(preset_name, config_file, assignments)
    props = with_fairness(ctx, select_properties(property_names, cfg), fairness, unfair_kinds, cfg)
    lim = limits(max_states, max_depth, max_seconds)
    if threads is not None and engine != "local":
        raise BadInput(f"--threads: the local engine's option; --engine {engine} has its own workers")
    _, threads = parallelism(threads, 1)
    if compact and engine != "local":
        raise BadInput(f"--compact: the local engine's visited set; --engine {engine} keeps its own")
    if compact and graph_path:
        raise BadInput("--graph re-expands the stored states, which --compact does not keep; drop one of them")
    spark = _spark_options(ctx, engine, graph_path and not graph_around)
    given = given_options(ctx, ("work_dir", "resume"))
    if engine == "local" and given:
        if not compact:
            raise BadInput(f"{given[0]}: --work-dir and --resume hold the levels of --compact (or of --engine spark); "
                           "add --compact")
        if work_dir is not None and not work_dir.strip():
            raise BadInput("--work-dir: an empty path; give a directory")
        if resume and not work_dir:
            raise BadInput("--resume needs --work-dir DIR (the directory of the run to continue)")
    if report_path:
        report_format(report_path)
    _graph_around_options(ctx, graph_path, graph_around, graph_radius, props, cfg)
    if next_bound and engine != "local":
        raise BadInput(f"--next-bound explores on the local engine; drop it with --engine {engine}")
    if graph_path:
        graph_format(graph_path)
        # explore at most one state past the export limit: a space too big to export fails fast
        if not graph_around and (lim.max_states is None or lim.max_states > GRAPH_NODE_LIMIT):
            lim = Limits(GRAPH_NODE_LIMIT + 1, lim.max_depth, lim.max_seconds)
    inputs = {"--config": config_file}
    check_outputs({"--json": json_path, "--report": report_path, "--graph": graph_path}, inputs, work_dir)
    if itf_dir:
        check_itf_dir(itf_dir, inputs)

    job = CheckJob(cfg, props, lim, threads, compact=compact,
                   **(dict(work_dir=work_dir, resume=resume) if engine == "local" else {}))
    with stop_on_signals(engine == "local"):
        result, explorer = run_check(job, engine, quiet, spark)
        if next_bound:
            from .next_bound import compare, explore_next_bound
            result.next_bound = compare(explore_next_bound(job, quiet), result.verdicts())
        extra_files = {}
        if graph_path:
            from reports.graph_export import graph_text
            # refused (bad input) before any file is written; written in one set with --json and --report
            extra_files[graph_path] = graph_text(graph_path, _graph(job, explorer, result, graph_around,
                                                                    graph_radius))
        made_itf = bool(itf_dir) and not Path(itf_dir).exists()
        if itf_dir:
            from reports.itf import itf_files
            Path(itf_dir).mkdir(parents=True, exist_ok=True)
            extra_files.update(itf_files(itf_dir, result))
        name = config_name(preset_name, config_file)
        try:
            print_result(result, name, cfg.short(), quiet, json_path=json_path, report_path=report_path,
                         extra_files=extra_files, traces_for=TRACES[traces], command=command_line(ctx))
        except BaseException:   # no file written (a full disk, a signal): nor the --itf directory made for them
            if made_itf:
                shutil.rmtree(itf_dir, ignore_errors=True)
            raise
    sys.exit(EXIT_FOR_OUTCOME[result.outcome])


def _spark_options(ctx: click.Context, engine: str, graph_path: str | None) -> SparkOptions:
    spark = spark_options(ctx, engine, SPARK_ONLY)
    if engine == "spark" and graph_path:
        raise BadInput("--graph needs the local engine's stored states; drop --graph or use --engine local")
    return spark


def _graph_around_options(ctx: click.Context, graph_path, graph_around, graph_radius, props, cfg) -> None:
    radius_given = ctx.get_parameter_source("graph_radius") not in (ParameterSource.DEFAULT, None)
    if graph_around and not graph_path:
        raise BadInput("--graph-around needs --graph PATH (the file to write)")
    if radius_given and not graph_around:
        raise BadInput("--graph-radius is only meaningful with --graph-around PROPERTY")
    if graph_radius < 0:
        raise BadInput(f"--graph-radius {graph_radius}: must be >= 0")
    if graph_around and graph_around not in props.names():
        from model.modes import mode_of
        try:   # an unknown name: bad input with the known names of the configuration's mode
            mode_of(cfg).properties().get(graph_around)
        except ValueError as exc:
            raise BadInput(f"--graph-around: {exc}") from None
        raise BadInput(f"--graph-around {graph_around}: not among the checked properties "
                       f"({', '.join(props.names())}); add --property {graph_around}")


def _graph(job, explorer, result, around: str | None, radius: int):
    """The graph to export, traces marked; bad input when it is above the export limit (the message
    names a smaller configuration that fits, found by exploring it) or ``around`` has no trace."""
    from reports.graph_export import build_graph, build_graph_around, too_big
    if around:
        model = explorer.model if explorer is not None else job.model()
        return build_graph_around(model, result, around, radius)
    if result.stats.distinct_states > GRAPH_NODE_LIMIT or result.above_state_limit():
        from .graph_fit import fitting_configuration
        fit = fitting_configuration(job.config, job.properties, GRAPH_NODE_LIMIT, job.limits.max_depth)
        raise BadInput(too_big(f"this fits: {fit.describe()}" if fit else ""))
    return build_graph(explorer.model, explorer.stored_states(), result)
