"""A toy third model mode, registered from the tests only: it proves that a mode is one package plus one
:class:`model.modes.Mode` entry (CONTRIBUTING.md, "Adding a model mode"), and that check, faults, gate,
report, replay, the explorer and the Spark engine run it without naming it.

The model: a client writes messages to a primary, which copies them to a backup; the client is told "ok"
for a write either at once (``sync_ack=false``) or once the backup has it (``sync_ack=true``). A primary
crash falls back to the backup's copy (unless ``crash_keeps_log``), so with neither setting an
acknowledged write can be lost: ``acked_write_kept`` is violated, ``backup_has_copy`` is reached and
``write_reaches_backup`` (an eventually property) holds under weak fairness.

Nothing here is imported by the project: :func:`register` adds the entry to ``model.modes.MODES`` and
:func:`unregister` removes it; the :func:`toy_mode` fixture does both around the tests that import it.
Its generated modules (``dispatch.py``, ``checks.py``) are rewritten by ``python -m tests.toymode.declare``.
"""
from __future__ import annotations

import pytest

from model.modes import Mode

NAME = "toy"

#: the toy mode's registry entry: every part a ``module:NAME`` path in this package
MODE = Mode(NAME, "a toy primary/backup log (tests only: proves the mode registry)",
            "tests.toymode.config", "ToyConfig", "tests.toymode.model:ToyModel",
            "tests.toymode.properties:PROPERTIES", "tests.toymode.faults:PROFILE", "tests.toymode.model:KINDS",
            ("Crash",), "tests.toymode.releases:LINE", "tests.toymode.drawings:DRAWINGS",
            "tests.toymode.declare:ACTIONS")


def register() -> Mode:
    """Add the toy mode to the registry (an error if a mode of its name is there already)."""
    from model.modes import MODES
    if NAME in MODES:
        raise ValueError(f"mode {NAME!r} is already registered")
    MODES[NAME] = MODE
    return MODE


def unregister() -> None:
    from model.modes import MODES
    MODES.pop(NAME, None)


@pytest.fixture(scope="module")
def toy_mode():
    """The toy mode, registered for the tests of one module and unregistered after them."""
    mode = register()
    try:
        yield mode
    finally:
        unregister()
