"""Starting a Spark session for the engine, with clear errors when Spark cannot run.

Executors run the same Python (``spark.pyspark.python``) and import the model's compiled kernels from
the installed package, so on a real cluster rmqcheck must be installed on every worker, and the work
directory must be a path every node sees (a shared filesystem).
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

from .errors import SparkUnavailable

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def check_java() -> str:
    """The java binary Spark will use, or SparkUnavailable."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise SparkUnavailable("Java not found: the Spark engine needs Java 17 on PATH or in JAVA_HOME "
                               "(or use --engine local)")
    try:
        subprocess.run([java, "-version"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SparkUnavailable(f"Java at {java} does not run ({exc}); the Spark engine needs Java 17") from None
    return java


def check_master(master: str, timeout: float = 3.0) -> None:
    """Fail fast on a standalone master URL nobody answers (Spark itself would retry for a minute)."""
    if master.startswith("local"):
        return
    if not master.startswith("spark://"):
        raise SparkUnavailable(f"--spark-master {master!r}: expected local[N], local[*] or spark://HOST:PORT")
    for hostport in master[len("spark://"):].split(","):
        url = urlparse("spark://" + hostport)
        if not url.hostname or not url.port:
            raise SparkUnavailable(f"--spark-master {master!r}: expected spark://HOST:PORT")
        try:
            with socket.create_connection((url.hostname, url.port), timeout=timeout):
                return
        except OSError as exc:
            last = exc
    raise SparkUnavailable(f"cannot reach the Spark master {master}: {last.strerror or last}")


class SparkLog:
    """Where the JVM's own output goes: every line Spark and Java print (startup notices, log4j errors,
    stack traces) lands in this file instead of the user's terminal. The JVM lives as long as this process,
    so there is one log per process: ``spark.log`` in the user's ``--work-dir``, else a temporary file that
    is removed at exit unless a failure message named it."""

    path: Path | None = None
    keep = False

    @classmethod
    def choose(cls, work_dir: Path | None) -> Path:
        if cls.path is None:
            if work_dir is not None:
                cls.path = work_dir / "spark.log"
            else:
                fd, name = tempfile.mkstemp(prefix="rmqcheck-spark-", suffix=".log")
                os.close(fd)
                cls.path = Path(name)
                atexit.register(cls._remove_unless_kept)
        return cls.path

    @classmethod
    def named(cls) -> str:
        """The log's path for an error message (the log is then kept)."""
        cls.keep = True
        return str(cls.path) if cls.path is not None else "(no log: Spark had not started)"

    @classmethod
    def _remove_unless_kept(cls) -> None:
        if cls.path is not None and not cls.keep and cls.path.name.startswith("rmqcheck-spark-"):
            with contextlib.suppress(OSError):
                cls.path.unlink()


@contextlib.contextmanager
def _output_to(path: Path) -> Iterator[None]:
    """The process's stdout and stderr point at ``path`` while the JVM is launched (it inherits them)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


# An executor JVM only starts Python tasks and passes their small summaries on: the model kernel and the
# columnar work run in the Python workers. Measured on the ``default`` preset with two workers (two runs each):
# C1 only, the serial collector and a 32 MB starting heap took the executor JVMs from 4.3-5.7 to 1.5-1.8
# CPU-seconds and their peak resident memory from 560 to 359 MiB (both together), and the run from 8.3-8.9
# to 7.0-8.0 s. The heap may still grow to ``spark.executor.memory``.
EXECUTOR_JVM = " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms32m"

# What the Python workers allocate and free, level-sized arrays task after task, must go back to the system:
# - glibc's malloc serves a freed block of up to 32 MB from its heap the next time (its mmap threshold rises
#   to the largest block freed), and a heap with live blocks above the freed ones cannot shrink. A fixed
#   threshold maps every block above 256 KiB on its own and unmaps it when freed.
# - pyarrow allocates through its own pool (mimalloc), which kept what writing a level file took: writing
#   the level file of a million states left 141 MiB resident, 53 MiB (libraries, once) with the system pool.
# Measured on ``bench`` with two workers and eight partitions, one run each: a Python worker's peak 544 ->
# 475 MiB from the malloc settings alone. The price is CPU (fresh pages faulted in): about 10 % more in the
# Python workers (one worker on ``bench``; a 4 MiB threshold saved about 4 % of it and kept 20 MiB more).
WORKER_ENV = {"MALLOC_MMAP_THRESHOLD_": "262144", "MALLOC_TRIM_THRESHOLD_": "1048576",
              "ARROW_DEFAULT_MEMORY_POOL": "system"}


def _from_py4j(record: logging.LogRecord) -> bool:
    """False (drop) for a log record made in py4j's own code."""
    return f"{os.sep}py4j{os.sep}" not in record.pathname


def start_session(master: str, partitions: int, app_name: str = "rmqcheck", log_dir: Path | None = None):
    """A SparkSession configured for level-synchronous BFS (only this package imports pyspark). The JVM's
    output goes to :class:`SparkLog`'s file (``log_dir``'s ``spark.log`` when given)."""
    check_java()
    check_master(master)
    from pyspark.sql import SparkSession

    # the Python workers must run this interpreter (the one with numba and the model installed)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    cache_dir = os.environ.get("NUMBA_CACHE_DIR", "")
    pythonpath = os.pathsep.join([str(PROJECT_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    log4j = f"-Dlog4j2.configurationFile=file:{Path(__file__).with_name('log4j2.properties')}"
    # A cluster driver only plans queries and schedules tasks: HotSpot's C2 compiler spent about 40 % of its
    # CPU optimising Spark's planner code without making the planning measurably faster, CPU that the
    # executors on the same machine need, so the driver JIT stops at C1. In local mode the driver JVM runs
    # the tasks too and keeps C2.
    driver_jit = "" if master.startswith("local") else " -XX:TieredStopAtLevel=1"
    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.driver.extraJavaOptions", log4j + driver_jit)
               .config("spark.executor.extraJavaOptions", log4j + EXECUTOR_JVM)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(partitions))
               .config("spark.sql.adaptive.enabled", "false")
               # every query posts its plan to the listener bus; the default "formatted" rendering took a
               # sixth of the driver's query thread
               .config("spark.sql.ui.explainMode", "simple")
               # never broadcast a visited level: that would collect it to the driver
               .config("spark.sql.autoBroadcastJoinThreshold", "-1")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.python.worker.reuse", "true")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.pyspark.driver.python", sys.executable)
               .config("spark.executorEnv.NUMBA_CACHE_DIR", cache_dir)
               .config("spark.executorEnv.PYTHONPATH", pythonpath)
               .config("spark.driver.memory", os.environ.get("RMQCHECK_SPARK_DRIVER_MEMORY", "2g"))
               .config("spark.executor.memory", os.environ.get("RMQCHECK_SPARK_EXECUTOR_MEMORY", "1g")))
    for name, value in WORKER_ENV.items():
        builder = builder.config(f"spark.executorEnv.{name}", value)
    # py4j logs every broken connection (e.g. on Ctrl-C) with a traceback; rmqcheck reports failures itself.
    # Some of those go through the root logger (``logging.exception`` in py4j.java_gateway), so a filter
    # there drops every record made in py4j's code
    logging.getLogger("py4j").setLevel(logging.CRITICAL)
    root = logging.getLogger()
    if _from_py4j not in root.filters:
        root.addFilter(_from_py4j)
    try:
        with _output_to(SparkLog.choose(log_dir)):
            spark = builder.getOrCreate()
    except Exception as exc:  # JVM failed to start, master refused the application...
        raise SparkUnavailable(f"Spark did not start on {master}: {' '.join(str(exc).split())[:300]} "
                               f"(Spark's log: {SparkLog.named()})") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark
