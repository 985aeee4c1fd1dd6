"""A throw-away Spark standalone cluster on 127.0.0.1, started from the pyspark package's launch classes.

``org.apache.spark.deploy.master.Master`` and ``...worker.Worker`` run through the package's own
``bin/spark-class``; the tests and the benchmark use it to run the engine on a real cluster (master plus
workers, executors in separate JVMs) rather than in local mode. Every process is stopped on exit.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from .errors import SparkUnavailable
from .session import check_java


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise SparkUnavailable("pyspark is not installed")
    return Path(spec.origin).parent


class StandaloneCluster:
    """``with StandaloneCluster(workers=2) as cluster: ... cluster.master_url ...``"""

    def __init__(self, workers: int = 2, cores_per_worker: int = 1, worker_memory: str = "1g",
                 start_timeout: float = 90.0) -> None:
        self.workers = workers
        self.cores = cores_per_worker
        self.memory = worker_memory
        self.timeout = start_timeout
        self.procs: list[subprocess.Popen] = []
        self.log_dir = Path(tempfile.mkdtemp(prefix="rmqcheck-cluster-"))
        self.port = free_port()
        self.ui_port = free_port()
        self.master_url = f"spark://127.0.0.1:{self.port}"

    def _launch(self, name: str, *args: str) -> None:
        check_java()
        home = spark_home()
        env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1",
                   SPARK_WORKER_DIR=str(self.log_dir / "work"), SPARK_LOG_DIR=str(self.log_dir))
        log = open(self.log_dir / f"{name}.log", "wb")
        self.procs.append(subprocess.Popen([str(home / "bin" / "spark-class"), *args], stdout=log,
                                           stderr=subprocess.STDOUT, env=env, start_new_session=True))

    def alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as r:
                return int(json.load(r).get("aliveworkers", 0))
        except (OSError, ValueError):
            return 0

    def start(self) -> "StandaloneCluster":
        self._launch("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                     "--port", str(self.port), "--webui-port", str(self.ui_port))
        for i in range(self.workers):
            self._launch(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", self.master_url,
                         "--host", "127.0.0.1", "--cores", str(self.cores), "--memory", self.memory,
                         "--webui-port", str(free_port()))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.alive_workers() >= self.workers:
                return self
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.5)
        logs = "; ".join(f"{p.name}: {p.read_text(errors='replace')[-300:]}" for p in self.log_dir.glob("*.log"))
        self.stop()
        raise SparkUnavailable(f"the standalone cluster did not come up within {self.timeout:g} s ({logs})")

    def kill_worker(self, index: int) -> None:
        """SIGKILL worker ``index`` with its executors and their Python workers (one process group),
        as a lost machine would go: for chaos tests."""
        proc = self.procs[1 + index]
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=20)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.procs.clear()

    def __enter__(self) -> "StandaloneCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
