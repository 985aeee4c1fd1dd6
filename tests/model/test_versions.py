"""The release lines (model/versions.py, versions_44.py, versions_5.py): the switch table's format, its facts
against apache/rocketmq's history when a clone is at hand, every release accepted, the reference release
being the defaults, and each modelled switch shown by its pinned configuration.

The history check needs a git directory of apache/rocketmq: set ``RMQCHECK_ROCKETMQ_GIT`` to it (a bare
clone will do). CI has no such clone, so there the check is skipped, saying so.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

import pytest

from model import KNOBS, Config, ConfigError
from model.modes import MODES, get_mode
from model.versions import release_line, version_key, with_release

ROOT = Path(__file__).resolve().parents[2]
LINES = {name: mode.release_line() for name, mode in MODES.items()}
SWITCHES = [(line.mode, s) for line in LINES.values() for s in line.switches]
HEX40 = re.compile(r"[0-9a-f]{40}")


def _id(item):
    return f"{item[0]}:{item[1].name}"


def test_each_line_lists_its_releases_in_order_with_its_reference():
    for line in LINES.values():
        keys = [version_key(v) for v in line.versions()]
        assert keys == sorted(set(keys)) and line.reference in line.versions()
        assert set(line.accepted()) <= set(line.versions())
    assert LINES["4.4"].versions()[0] == "4.4.0" and LINES["4.4"].versions()[-1] == "4.9.8"
    assert LINES["controller"].versions()[0] == "5.0.0" and LINES["controller"].versions()[-1] == "5.3.3"


@pytest.mark.parametrize("item", SWITCHES, ids=_id)
def test_a_switch_row_has_a_commit_a_first_release_and_both_rules(item):
    mode, s = item
    line = LINES[mode]
    assert HEX40.fullmatch(s.commit) and all(HEX40.fullmatch(c) for c in s.also)
    assert s.first in line.versions()
    assert s.before.strip() and s.after.strip() and s.rocketmq.strip()
    assert re.fullmatch(r"[a-z][a-z0-9_]*", s.name)
    if not s.modelled:
        assert s.why_not.strip()
        return
    knob = {k.key: k for k in get_mode(mode).knobs}[s.knob]
    assert knob.default == s.value_at(line.reference)       # the defaults are the reference release
    assert s.kernel.strip() and s.test.strip()
    path, _, name = s.test.partition("::")
    assert f"def {name}(" in (ROOT / path).read_text(), s.test
    assert s.pinned or s.not_at_bounds.strip()


def test_a_change_not_modelled_says_why():
    for line in LINES.values():
        for change in line.not_modelled:
            assert change.change.strip() and change.why.strip()
            assert all(HEX40.fullmatch(c) for c in change.commits)


def test_the_defaults_are_the_reference_release_and_every_release_is_accepted():
    assert Config().rocketmq_version == "4.4.0"
    assert Config.from_mapping({"rocketmq_version": "4.4.0"}) == Config()
    line = LINES["4.4"]
    for version in line.versions():
        cfg = Config.from_mapping({"rocketmq_version": version})
        assert cfg.rocketmq_version == version
        for s in line.modelled():
            assert getattr(cfg, s.knob) == s.value_at(version)
    assert Config.from_mapping({"rocketmq_version": "rocketmq-all-4.9.8"}).rocketmq_version == "4.9.8"


def test_an_explicit_knob_wins_over_the_release():
    cfg = Config.from_mapping({"rocketmq_version": "4.9.8", "overflow_to_max": False})
    assert (cfg.overflow_to_max, cfg.ha_close_on_ack_beyond_master_max) == (False, True)
    assert cfg.short() == "RocketMQ 4.9.8, overflow_to_max=false"
    assert with_release(Config(), "4.9.3").short() == "RocketMQ 4.9.3 defaults"


@pytest.mark.parametrize("version, words", [
    ("4.3.2", "not a release rmqcheck knows"), ("5.1.0", "a release of mode controller"),
    ("4.9", "not a version"), ("", "not a version")])
def test_an_unknown_or_other_line_version_lists_the_known_ones(version, words):
    with pytest.raises(ConfigError) as e:
        Config.from_mapping({"rocketmq_version": version})
    assert words in str(e.value) and "4.4.0, 4.5.0, 4.5.1" in str(e.value) and "4.9.8" in str(e.value)


def test_the_controller_mode_checks_every_release_of_its_line():
    mode = get_mode("controller")
    assert mode.from_mapping({"rocketmq_version": "5.3.3"}) == mode.preset("controller").from_mapping({})
    assert mode.from_mapping({"rocketmq_version": "5.1.0"}).rocketmq_version == "5.1.0"
    assert release_line("controller").accepted() == release_line("controller").versions()
    with pytest.raises(ConfigError, match="a release of mode 4.4"):
        mode.from_mapping({"rocketmq_version": "4.9.8"})


def test_the_release_is_no_knob_for_set():
    with pytest.raises(ConfigError, match="--rocketmq-version 4.9.4"):
        Config().with_overrides(["rocketmq_version=4.9.4"])
    assert "rocketmq_version" not in {k.key for k in KNOBS}


# --- each modelled switch alone changes its pinned configuration's numbers or verdicts --------------------
@functools.lru_cache(maxsize=None)
def _explored(knobs: tuple):
    import invariants
    from explore import explore
    from model import RocketMQModel
    r = explore(RocketMQModel(Config.from_mapping(dict(knobs)), strict=True), invariants.PROPERTIES)
    return (r.stats.distinct_states, r.stats.transitions, r.stats.depth), {p.name: p.status for p in r.properties}


@pytest.mark.parametrize("switch", [s for s in LINES["4.4"].modelled() if s.pinned], ids=lambda s: s.name)
def test_the_pinned_configuration_of_a_switch_moves_with_it_alone(switch):
    from tests.tooling.pinned import pinned
    entry = pinned(switch.pinned)
    assert entry.group == "release" and entry.preset is None
    assert entry.knobs.get(switch.knob) == switch.values[1]
    on = _explored(tuple(sorted(entry.knobs.items())))
    assert on == (entry.counts, entry.verdicts)
    off = _explored(tuple(sorted({**entry.knobs, switch.knob: switch.values[0]}.items())))
    assert off != on


# --- the facts against the history, when a clone of apache/rocketmq is at hand ---------------------------
GIT_DIR = os.environ.get("RMQCHECK_ROCKETMQ_GIT", "")
needs_history = pytest.mark.skipif(
    not GIT_DIR or not Path(GIT_DIR).exists(),
    reason="no apache/rocketmq history here (CI has none): set RMQCHECK_ROCKETMQ_GIT to a clone's git directory")


def _git(*args: str) -> str:
    return subprocess.run(["git", "--git-dir", GIT_DIR, *args], capture_output=True, text=True, timeout=120,
                          check=True).stdout


def _first_release(commit: str) -> str:
    tags = [t for t in _git("tag", "--contains", commit).split() if re.fullmatch(r"rocketmq-all-[0-9.]+", t)]
    return min((t[len("rocketmq-all-"):] for t in tags), key=version_key)


@needs_history
@pytest.mark.parametrize("item", SWITCHES, ids=_id)
def test_git_tag_contains_confirms_the_first_release(item):
    _, s = item
    for commit in (s.commit, *s.also):
        assert _git("cat-file", "-t", commit).strip() == "commit"
        assert _first_release(commit) == s.first, commit


@needs_history
def test_the_history_has_every_release_tag_but_the_ones_noted():
    tags = set(_git("tag", "-l", "rocketmq-all-*").split())
    for line in LINES.values():
        for release in line.releases:
            assert (release.tag in tags) or "no rocketmq-all-" in release.note, release.version
        for change in line.not_modelled:
            for commit in change.commits:
                assert _first_release(commit) == change.first, commit
