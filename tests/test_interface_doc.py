"""docs/interface.md lists every public name of the code: each knob, preset, property and command appears
there in backticks, as the site builds the page (its knob table is generated from the code's knob table:
rmqcheck/reference.py), so a new name cannot land without its line in the interface page."""
from __future__ import annotations

from pathlib import Path

import invariants
from model import KNOBS, PRESETS
from rmqcheck.cli import cli
from rmqcheck.reference import expand

SOURCE = (Path(__file__).resolve().parents[1] / "docs" / "interface.md").read_text()
PAGE = expand(SOURCE)   # as the site shows it


def _missing(names) -> list[str]:
    return [name for name in names if f"`{name}`" not in PAGE]


def test_every_knob_preset_property_and_command_is_on_the_interface_page():
    assert _missing(k.key for k in KNOBS) == []
    assert _missing(PRESETS) == []
    assert _missing(p.name for p in invariants.PROPERTIES) == []
    assert _missing(cli.commands) == []
    assert len(cli.commands) >= 9 and len(KNOBS) >= 27      # the lists read are the real ones


def test_the_knob_table_is_generated_not_kept_by_hand():
    assert "<!-- reference:knobs -->" in SOURCE and "| `broker_role` |" not in SOURCE
    assert "| `broker_role` |" in PAGE
