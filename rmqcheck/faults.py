"""``rmqcheck faults``: which combinations of failures break each guarantee, through which step, and which
setting closes each one (see :mod:`explore.fault_search` for how)."""
from __future__ import annotations

import functools
import sys
from typing import Any

import click
from rich.console import Console

from reports.files import OutputSet, is_standard_output

from .compile_notice import announce_compilation
from .engines import sweep_runner
from explore.run_control import DEFAULT_MAX_CONFIGS

from .exit_codes import EXIT_FOR_OUTCOME
from .interrupt import stop_on_signals
from .options import (config_options, driver_level_limit_option, engine_option, fairness_options, given_options,
                      json_option, limit_options, partitions_option, property_option, quiet_option,
                      spark_master_option, spark_options, threads_option, traces_option, with_fairness)
from .output import stdout_console
from .setup import BadInput, check_outputs, config_name, limits, parallelism, resolve_config, select_properties

#: configurations the search for what closes each mode may explore in all (``--max-configs``)
SPARK_ONLY = ("spark_master", "partitions", "driver_level_limit")


@click.command()
@config_options
@property_option
@fairness_options
@limit_options
@json_option
@click.option("--report", "report_path", metavar="PATH",
              help="Write a section per property with its modes and every trace: Markdown (.md) or HTML (.html).")
@traces_option
@click.option("--jobs", type=int, metavar="N",
              help="Explorations of the sweeps run in parallel (default: the usable cores --threads leaves; "
                   "--engine local only).")
@threads_option
@click.option("--max-configs", type=int, default=DEFAULT_MAX_CONFIGS, show_default=True, metavar="N",
              help="Configurations the search for what closes each mode may explore in all.")
@click.option("--grow", type=click.Choice(["messages", "consumers", "slaves", "brokers", "none"]), default="messages",
              show_default=True,
              help="After the analysis, repeat its exhaustive exploration with one more of this and report per "
                   "property whether its minimal combinations and modes stay the same (none: do not; brokers: "
                   "controller mode, consumers and slaves: 4.4).")
@click.option("--table", is_flag=True,
              help="Also print the decision table: per durability setting (broker_role x flush_disk_type; "
                   "controller mode: all_ack_in_sync_state_set x min_in_sync_replicas; the rest as given), the "
                   "smallest failure combinations that break each property.")
@engine_option("The exhaustive exploration on the local BFS or the same BFS on Spark; the sweeps' explorations "
               "in local processes (--jobs) or as one Spark task each.")
@spark_master_option
@partitions_option
@driver_level_limit_option
@quiet_option
@click.pass_context
def faults(ctx: click.Context, preset_name, config_file, assignments, property_names, fairness, unfair_kinds,
           max_states, max_depth,
           max_seconds, json_path, report_path, traces, jobs, threads, max_configs, grow, table, engine, spark_master,
           partitions, driver_level_limit, quiet) -> None:
    """Which failure combinations break each property, through which step, and what closes each mode.

    One exhaustive exploration with the full failure budgets gives, per always property, the minimal
    combinations of failures that violate it and its failure modes (action kind and combination), each with
    a shortest trace; the graph property is checked per budget vector; single changes and sets of changes
    are explored to find what closes each mode. Exit code 0 when no mode is found and the graph property
    holds for every budget vector, 1 when one is, 3 incomplete (a limit or Ctrl-C), 2 bad input, 4 model
    error.
    """
    announce_compilation()
    from invariants.base import SOMETIMES
    from reports.document import report_format

    from explore.fault_search import FaultSearch

    cfg = resolve_config(preset_name, config_file, assignments)
    _mode_options(cfg, grow, engine)
    props = with_fairness(ctx, select_properties(property_names, cfg), fairness, unfair_kinds, cfg)
    sometimes = [p.name for p in props if p.kind == SOMETIMES]
    if property_names and sometimes:
        raise BadInput(f"--property {sometimes[0]}: a sometimes property has no failure modes; "
                       "faults reports always, graph and eventually properties")
    props = props.without([SOMETIMES])
    lim = limits(max_states, max_depth, max_seconds)
    spark = spark_options(ctx, engine, SPARK_ONLY)
    if engine == "spark" and given_options(ctx, ("jobs",)):
        raise BadInput("--jobs is for --engine local; on Spark the master runs the sweeps' tasks on its cores "
                       "(e.g. --spark-master local[2])")
    if engine == "spark" and threads is not None:
        raise BadInput("--threads: the local engine's option; on Spark each sweep task explores on one thread")
    # the one exploration of step 1 runs alone: unless told otherwise it takes every core
    step1_threads = threads or parallelism(None, 1)[1]
    jobs, threads = parallelism(threads, jobs, default_jobs=0)
    if engine == "spark":
        threads = 1
    if max_configs < 0:
        raise BadInput(f"--max-configs {max_configs}: must be >= 0")
    if report_path:
        report_format(report_path)
    check_outputs({"--json": json_path, "--report": report_path}, {"--config": config_file})
    sweeper = sweep_runner(engine, jobs, spark.master)   # Java and the master checked before any exploration

    from reports.faults import FaultsProgress
    err = Console(stderr=True, highlight=False)
    progress = None if quiet else FaultsProgress(err, bar=err.is_terminal)
    # the first Ctrl-C stops the whole search (every exploration and sweep), keeping what is complete; Spark
    # keeps its own handler, which cancels its jobs
    with stop_on_signals(engine == "local"):
        report = FaultSearch(cfg, props, lim, jobs, max_configs, threads=threads, step1_threads=step1_threads,
                             sweeper=sweeper, analyser=_analyser(engine, spark), progress=progress, grow=grow,
                             table=table).run()
    out = stdout_console(stderr=is_standard_output(json_path))
    name = config_name(preset_name, config_file)
    from reports.faults import faults_json, faults_report, render_console, summary_line
    if quiet:
        out.print(summary_line(report))
    else:
        render_console(out, report, cfg.short(), traces)
    files = OutputSet()   # written all or none, as for check; a report holds every trace (--traces is the console's)
    if json_path:
        files.add(json_path, faults_json(report, name))
    if report_path:
        files.add(report_path, faults_report(report_path, report, name, cfg.short()))
    files.write()
    sys.exit(EXIT_FOR_OUTCOME[report.outcome])


def _mode_options(cfg: Any, grow: str, engine: str) -> None:
    """``--grow`` names a count of the configuration's model mode."""
    from model.modes import mode_of

    mode = mode_of(cfg)
    counts = mode.faults().grow_knobs
    if grow != "none" and grow not in counts:
        raise BadInput(f"--grow {grow}: not a count of mode {mode.name}; it grows: {', '.join(counts)}, none")


def _analyser(engine: str, spark) -> Any:
    """Step 1 on the engine ``check --engine`` would use (None: the local engine's)."""
    if engine != "spark":
        return None
    from spark_explore.engine import DRIVER_LEVEL_LIMIT
    from spark_explore.faults import analyse_on_spark
    limit = DRIVER_LEVEL_LIMIT if spark.driver_level_limit is None else spark.driver_level_limit
    return functools.partial(analyse_on_spark, master=spark.master, partitions=spark.partitions,
                             driver_threshold=limit)
