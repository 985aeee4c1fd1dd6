"""Running one check on the chosen engine: the embedded local BFS, or the same BFS on Spark, found by
name in the engine registry (:mod:`explore.protocol`; the Spark engine registers itself when
:mod:`spark_explore` is imported, here).

Engines never print; they report progress to a listener. Here the listener is the rich progress bar,
drawn on stderr only when it is a terminal; elsewhere (piped, a CI log) a progress line every half
minute.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from rich.console import Console

import spark_explore  # noqa: F401  (registers the "spark" engine; pyspark loads only when it runs)
from explore.protocol import Explorer, explorer_factory, explorer_names

if TYPE_CHECKING:
    from explore.result import CheckResult

from .setup import BadInput, CheckJob

ENGINES = explorer_names()


@dataclass(frozen=True)
class SparkOptions:
    """The options of ``--engine spark`` (passed through to ``explore_on_spark``)."""

    master: str = "local[*]"
    partitions: int | None = None
    work_dir: str | None = None
    resume: bool = False
    driver_level_limit: int | None = None


@contextlib.contextmanager
def progress_listener(quiet: bool, label: str = "", unit: str = "", forecast: bool = True) -> Iterator[Any]:
    """A progress-bar listener on a terminal, a progress line every half minute when stderr is not one (a CI
    log shows a long run is alive), none when ``quiet``; ``label`` names the configuration running when
    there are several (matrix, gate)."""
    from explore.forecast import SizeWarning

    err = Console(stderr=True, highlight=False)

    def say(text: str) -> None:   # a run heading for ten million states says so, --quiet or not
        err.print(f"rmqcheck{f' [{label}]' if label else ''}: {text}", soft_wrap=True, markup=False)

    def warned(inner: Any) -> Any:   # a breadth-first run's levels forecast its size (explore/forecast.py)
        return SizeWarning(inner, say) if forecast else inner
    if quiet:
        yield warned(None)
        return
    if not err.is_terminal:
        import sys

        from reports.console import ProgressLines
        with ProgressLines(sys.stderr, label=label, unit=unit) as lines:
            yield warned(lines)
        return
    from reports.console import ProgressBar
    with ProgressBar(err, label=label, **({"unit": unit} if unit else {})) as bar:
        yield warned(bar)


def _options(engine: str, spark: SparkOptions | None, job: CheckJob) -> dict[str, Any]:
    """The engine's own constructor options."""
    if engine == "local":
        return {"threads": job.threads, **({"visited": "compact"} if job.compact else {}),
                **({"work_dir": job.work_dir} if job.work_dir else {}), **({"resume": True} if job.resume else {})}
    if engine != "spark":
        return {}
    o = spark or SparkOptions()
    extra = {} if o.driver_level_limit is None else {"driver_threshold": o.driver_level_limit}
    return dict(master=o.master, partitions=o.partitions, work_dir=o.work_dir, resume=o.resume, **extra)


def build_explorer(job: CheckJob, engine: str, listener: Any, spark: SparkOptions | None = None) -> Explorer:
    """The registered engine ``engine`` set up for ``job``; an engine that cannot load is bad input."""
    factory = explorer_factory(engine)
    try:
        return factory(job.model(), job.properties, job.limits, listener, **_options(engine, spark, job))
    except ImportError as exc:
        raise BadInput(f"--engine {engine}: the {engine} engine cannot be loaded ({exc}); "
                       "use --engine local") from None


def sweep_runner(engine: str, jobs: int, spark_master: str = "local[*]") -> Any:
    """What runs a sweep's tasks (``run(tasks)``, results in task order): ``jobs`` local processes, or one
    Spark task per exploration on ``spark_master`` (the compiled local engine inside an executor)."""
    if engine != "spark":
        from explore.sweep import SweepPool
        return SweepPool(jobs)
    try:
        from spark_explore.sweep import SparkSweep
    except ImportError as exc:
        raise BadInput(f"--engine spark: the spark engine cannot be loaded ({exc}); use --engine local") from None
    return SparkSweep(spark_master)


def run_check(job: CheckJob, engine: str = "local", quiet: bool = False,
              spark: SparkOptions | None = None, label: str = "") -> tuple[CheckResult, Any]:
    """Explore ``job`` on ``engine``: ``(result, local explorer or None)``; the local explorer's stored
    states are what the graph export re-expands. ``label`` names the configuration on the progress bar."""
    with progress_listener(quiet, label) as listener:
        explorer = build_explorer(job, engine, listener, spark)
        result = explorer.run()
    if not result.config:
        from model.versions import config_dict
        result.config = config_dict(job.config)   # with rocketmq_version, in every mode
    if not result.bounds:
        from explore.faults import bounds
        result.bounds = bounds(job.config)
    return result, (explorer if explorer.engine == "local" else None)
