"""Running one check on the chosen engine: the embedded local BFS, or the same BFS on Spark.

Engines never print; they report progress to a listener. Here the listener is the rich progress bar,
drawn on stderr only when it is a terminal, so piped output and CI logs stay clean.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from rich.console import Console

if TYPE_CHECKING:
    from explore.result import CheckResult

from .setup import BadInput, CheckJob

ENGINES = ("local", "spark")


@dataclass(frozen=True)
class SparkOptions:
    """The options of ``--engine spark`` (passed through to ``explore_on_spark``)."""

    master: str = "local[*]"
    partitions: int | None = None
    work_dir: str | None = None
    resume: bool = False
    driver_level_limit: int | None = None


@contextlib.contextmanager
def progress_listener(quiet: bool, label: str = "", unit: str = "") -> Iterator[Any]:
    """A progress-bar listener on a terminal (none when ``quiet`` or when stderr is not a terminal);
    ``label`` names the configuration running when there are several (matrix, gate)."""
    err = Console(stderr=True, highlight=False)
    if quiet or not err.is_terminal:
        yield None
        return
    from reports.console import ProgressBar
    with ProgressBar(err, label=label, **({"unit": unit} if unit else {})) as bar:
        yield bar


def explore_local(job: CheckJob, listener: Any) -> tuple[CheckResult, Any]:
    """The local BFS; returns the explorer too, whose stored states the graph export re-expands."""
    from explore.local import LocalExplorer
    explorer = LocalExplorer(job.model(), job.properties, job.limits, listener)
    return explorer.run(), explorer


def explore_spark(job: CheckJob, listener: Any, options: SparkOptions) -> CheckResult:
    """The Spark BFS (pyspark is imported only inside ``spark_explore``)."""
    try:
        from spark_explore.engine import explore_on_spark
    except ImportError as exc:
        raise BadInput(f"--engine spark: the Spark engine cannot be loaded ({exc}); "
                       "use --engine local") from None
    extra = {} if options.driver_level_limit is None else {"driver_threshold": options.driver_level_limit}
    return explore_on_spark(job.model(), job.properties, job.limits, listener, master=options.master,
                            partitions=options.partitions, work_dir=options.work_dir, resume=options.resume,
                            **extra)


def run_check(job: CheckJob, engine: str = "local", quiet: bool = False,
              spark: SparkOptions | None = None, label: str = "") -> tuple[CheckResult, Any]:
    """Explore ``job`` on ``engine``: ``(result, local explorer or None)``."""
    with progress_listener(quiet, label) as listener:
        if engine == "spark":
            result, explorer = explore_spark(job, listener, spark or SparkOptions()), None
        else:
            result, explorer = explore_local(job, listener)
    if not result.config:
        result.config = job.config.as_dict()
    return result, explorer
