"""What the explorer tests share: the explorer of the ``default`` preset behind Starlette's TestClient, and a
known counterexample found by the engine itself (imported as ``explorer_fixtures``, a unique module name on
pytest's path)."""
from __future__ import annotations

import functools

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
def counterexample(name: str = PROPERTY):
    """The engine's shortest trace of ``name`` in ``default`` (the check stops once the property is decided)."""
    from explore.local import Limits
    from rmqcheck.engines import run_check
    from rmqcheck.setup import CheckJob

    result, _ = run_check(CheckJob(session().config, session().properties.select([name]), Limits()), quiet=True)
    return result.property(name).trace


def client(limits=None, hosts=None) -> TestClient:
    from explore.local import Limits
    from rmqcheck.explorer.server import Explorer, app

    explorer = Explorer(session(), limits or Limits())
    return TestClient(app(explorer, hosts), base_url="http://127.0.0.1:8737", raise_server_exceptions=False)
