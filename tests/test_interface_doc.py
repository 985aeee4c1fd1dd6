"""docs/interface.md lists every public name of the code: each knob, preset, property and command appears
there in backticks, so a new name cannot land without its line in the contributors' interface page."""
from __future__ import annotations

from pathlib import Path

import invariants
from model import KNOBS, PRESETS
from rmqcheck.cli import cli

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "interface.md").read_text()


def _missing(names) -> list[str]:
    return [name for name in names if f"`{name}`" not in PAGE]


def test_every_knob_preset_property_and_command_is_on_the_interface_page():
    assert _missing(k.key for k in KNOBS) == []
    assert _missing(PRESETS) == []
    assert _missing(p.name for p in invariants.PROPERTIES) == []
    assert _missing(cli.commands) == []
    assert len(cli.commands) >= 9 and len(KNOBS) >= 27      # the lists read are the real ones
