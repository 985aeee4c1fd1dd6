"""``rmqcheck versions [--mode M]`` (and ``rmqcheck list --mode M --versions``): the releases of a mode's line
and the version switches that change at each, from the declarations (model/versions.py), so the table, the
documentation page (rmqcheck/reference.py) and ``--rocketmq-version`` cannot disagree."""
from __future__ import annotations

from typing import Any

import click

from .setup import BadInput


def line_of(mode_name: str | None) -> Any:
    """The release line of mode ``mode_name`` (default 4.4); bad input for an unknown mode."""
    from model.knobs import ConfigError
    from model.modes import DEFAULT_MODE, get_mode
    try:
        return get_mode(mode_name or DEFAULT_MODE).release_line()
    except ConfigError as exc:
        raise BadInput(str(exc)) from None


def status(line: Any, switch: Any) -> str:
    """How the model carries a switch: its knob, or why not."""
    if switch.modelled:
        return f"knob {switch.knob}"
    return "not modelled yet" if switch.why_not == line.pending else "not modelled"


def release_rows(line: Any) -> list[tuple[str, str, str, str, str, str]]:
    """``(release, date, switch, commit, rule from this release, how modelled)``: a row per switch that changes
    at a release, one row for a release where none does; a release is checked as the oldest release whose
    modelled switches all have its values."""
    rows = []
    for release in line.releases:
        notes = [release.note] if release.note else []
        if release.version not in line.accepted():
            notes.append("not checked yet")
        same = line.same_as(release.version)
        if same != release.version:
            notes.insert(0, f"checked as {same}")
        changes = line.changes_at(release.version)
        if not changes:
            first = release is line.releases[0]
            rows.append((release.version, release.date, "", "",
                         "; ".join(notes if first else ["no change in the modelled paths", *notes]), ""))
        for i, s in enumerate(changes):
            rule = s.after if not notes or i else f"{s.after} ({'; '.join(notes)})"
            rows.append((release.version if i == 0 else "", release.date if i == 0 else "", s.name,
                         s.commit[:10], rule, status(line, s)))
    return rows


def switch_rows(line: Any) -> list[tuple[str, str, str, str, str, str]]:
    """``(switch, first release, commit, Class#method, rule before, where the model shows it)``."""
    rows = []
    for s in line.switches:
        if s.modelled:
            shown = f"{s.kernel}; test {s.test}" + (f"; pinned {s.pinned}" if s.pinned else f"; {s.not_at_bounds}")
        else:
            shown = f"not modelled: {s.why_not}"
        rows.append((s.name, s.first, s.commit, s.rocketmq, s.before, shown))
    return rows


def print_versions(mode_name: str | None) -> None:
    from reports.console import names_table

    from .output import stdout_console

    line = line_of(mode_name)
    out = stdout_console()
    out.print(names_table(f"RocketMQ releases of mode {line.mode} (--rocketmq-version X.Y.Z; default "
                          f"{line.reference})", ("release", "date", "switch", "commit", "rule from this release",
                                                 "model"), release_rows(line)))
    out.print(names_table("version switches (the rule before the first release; --set SWITCH=... for 'what if')",
                          ("switch", "first", "commit", "RocketMQ", "rule before", "model"),
                          [(n, f, c[:10], r, b, m) for n, f, c, r, b, m in switch_rows(line)]))
    pending = (f" {line.pending[0].upper()}{line.pending[1:]}: mode {line.mode} checks {', '.join(line.accepted())} "
               "only." if line.checkable else "")
    out.print(f"{len(line.not_modelled)} further changes were read but not modelled (docs/versions.md says "
              f"which and why).{pending}")


@click.command("versions")
@click.option("--mode", "mode_name", metavar="4.4|controller", help="The model mode's releases (default: 4.4).")
def versions(mode_name: str | None) -> None:
    """List the RocketMQ releases a mode checks and the version switches that change at each.

    Each switch is a knob: --rocketmq-version X.Y.Z sets every switch to release X.Y.Z's behaviour, and
    --set SWITCH=true|false still changes one ("what if"). Commits and first releases come from
    apache/rocketmq's history (git tag --contains COMMIT).
    """
    print_versions(mode_name)
