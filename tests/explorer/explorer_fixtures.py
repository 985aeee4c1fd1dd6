"""What the explorer tests share: the explorer of the ``default`` preset behind Starlette's TestClient, and a
known counterexample found by the engine itself (imported as ``explorer_fixtures``, a unique module name on
pytest's path)."""
from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import select
import subprocess
import sys
import urllib.error
import urllib.request

from starlette.testclient import TestClient

#: the property whose shortest counterexample in ``default`` the tests walk (5 steps: a consumer's committed
#: offset read back below what it committed once the master crashes)
PROPERTY = "committed_offset_never_regresses"


@functools.lru_cache(maxsize=None)
def session():
    from model import preset
    from rmqcheck.explorer.session import Session

    return Session(preset("default"))


@functools.lru_cache(maxsize=None)
def controller_session():
    """The explorer's model of the ``controller`` preset (RocketMQ 5.3.3 controller mode)."""
    from model.controller import preset
    from rmqcheck.explorer.session import Session

    return Session(preset("controller"))


@functools.lru_cache(maxsize=None)
def counterexample(name: str = PROPERTY):
    """The engine's shortest trace of ``name`` in ``default`` (the check stops once the property is decided)."""
    from explore.local import Limits
    from rmqcheck.engines import run_check
    from rmqcheck.setup import CheckJob

    result, _ = run_check(CheckJob(session().config, session().properties.select([name]), Limits()), quiet=True)
    return result.property(name).trace


def client(limits=None, hosts=None, of=None) -> TestClient:
    """The explorer of ``of`` (a session; default: the ``default`` preset's) behind Starlette's TestClient."""
    from explore.local import Limits
    from rmqcheck.explorer.server import Explorer, app

    explorer = Explorer(of or session(), limits or Limits())
    return TestClient(app(explorer, hosts), base_url="http://127.0.0.1:8737", raise_server_exceptions=False)


@contextlib.contextmanager
def served(*args: str, timeout: float = 120):
    """``rmqcheck explore ARGS --port 0`` as a real process: yields ``(url, process)`` once it listens, and
    stops it (SIGTERM, as Ctrl-C would) at the end, keeping what it wrote on stderr as ``stderr_text``."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "rmqcheck", "explore", *args, "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline() if ready else ""
        found = re.search(r"http://\S+/", line)
        if not found:
            proc.kill()
            raise AssertionError(f"the server did not start: {line!r} {proc.stderr.read()[-2000:]}")
        yield found.group(0), proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stderr_text = proc.stderr.read()
        for stream in (proc.stdout, proc.stderr):
            stream.close()


#: urllib without the environment's proxies: the explorer is on this machine
LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get_json(url: str) -> tuple[int, dict]:
    """``(status, JSON body)`` of a GET over real HTTP."""
    try:
        with LOCAL.open(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
