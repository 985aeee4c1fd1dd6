import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))   # cli_driver


@pytest.fixture
def no_exploration(monkeypatch):
    """Fail the test if any command starts exploring (bad input must be caught before)."""
    def refuse(*a, **k):
        raise AssertionError("exploration started despite bad input")
    for module in ("rmqcheck.check", "rmqcheck.matrix", "rmqcheck.gate"):
        monkeypatch.setattr(f"{module}.run_check", refuse)
    monkeypatch.setattr("rmqcheck.fault_search.FaultSearch.run", refuse)
