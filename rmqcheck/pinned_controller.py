"""The controller mode's pinned numbers (``pinned_controller.toml``, beside this module): the
configurations its tests and documentation rely on, with what exploring them produced.

Kept apart from ``pinned.toml`` so the 4.4 table stays as it is. Every number is PRODUCED BY
EXPLORATION (every controller property, local engine, one thread)::

    python -m rmqcheck.pinned_controller --update    # re-explore, rewrite the numbers
    python -m rmqcheck.pinned_controller             # compare only: exit 1 naming what moved
"""
from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

PINNED_PATH = Path(__file__).with_name("pinned_controller.toml")


@dataclass(frozen=True)
class PinnedControl:
    name: str
    preset: str
    knobs: dict[str, Any]
    mutation: str | None
    distinct_states: int
    transitions: int
    depth: int
    verdicts: dict[str, str]
    large: bool = False

    def config(self) -> Any:
        from model.controller import preset
        return preset(self.preset).with_overrides([f"{k}={_text(v)}" for k, v in self.knobs.items()])

    @property
    def counts(self) -> tuple[int, int, int]:
        return self.distinct_states, self.transitions, self.depth


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def load(path: Path | None = None) -> dict[str, PinnedControl]:
    raw = tomllib.loads((path or PINNED_PATH).read_text())["configuration"]
    return {e["name"]: PinnedControl(e["name"], e.get("preset", "controller"), dict(e.get("set", {})),
                                     e.get("mutation"), int(e["distinct_states"]), int(e["transitions"]),
                                     int(e["depth"]), dict(e.get("verdicts", {})),
                                     bool(e.get("large", False))) for e in raw}


def explored(entry: PinnedControl) -> PinnedControl:
    from explore.local import explore
    from invariants.controller import PROPERTIES
    from model.controller.model import ControllerModel

    r = explore(ControllerModel(entry.config(), mutation=entry.mutation), PROPERTIES)
    if r.error is not None or r.incomplete_reason:
        raise RuntimeError(f"{entry.name}: exploration did not complete ({r.error or r.incomplete_reason})")
    return PinnedControl(entry.name, entry.preset, entry.knobs, entry.mutation, r.stats.distinct_states,
                         r.stats.transitions, r.stats.depth, {p.name: p.status for p in r.properties}, entry.large)


def main(argv: list[str]) -> int:
    update = "--update" in argv
    doc = tomlkit.parse(PINNED_PATH.read_text())
    moved = []
    for raw in doc["configuration"]:
        old = load()[raw["name"]]
        new = explored(old)
        if new.counts != old.counts or new.verdicts != old.verdicts:
            moved.append(f"{old.name}: {old.counts} {old.verdicts} -> {new.counts} {new.verdicts}")
        raw["distinct_states"], raw["transitions"], raw["depth"] = new.counts
        raw["verdicts"] = new.verdicts
    print("\n".join(moved) or "nothing moved")
    if update:
        PINNED_PATH.write_text(tomlkit.dumps(doc))
        return 0
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
