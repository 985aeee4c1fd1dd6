"""The controller mode's pinned numbers: exploring each controller configuration of tests/tooling/pinned.toml
gives its counts and verdicts; each property holds in some configuration and a seeded bug makes it fail
there; the result is the same on one and two threads."""
from __future__ import annotations

import pytest

from tests.tooling.pinned import explored, load

TABLE = load(mode="controller")
SMALL = [e for e in TABLE.values() if not e.large]

#: seeded bug -> (the property it breaks, the configuration where that property holds without it)
FLIPS = {
    "mutant-elect-outside-sync-state-set": ("acked_message_on_every_later_master", "ctl-controller-allack"),
    "mutant-election-keeps-epoch": ("one_master_per_epoch", "ctl-link-loss"),
    "mutant-queue-offset-reused": ("queue_offset_names_one_message", "ctl-no-failures"),
    "mutant-epoch-entry-past-max": ("epoch_file_agrees_with_log", "ctl-link-loss"),
    "mutant-reply-before-commit": ("one_master_per_epoch", "ctl-quorum"),   # through the quorum (quorum.py)
}


@pytest.mark.parametrize("entry", SMALL, ids=lambda e: e.name)
def test_exploration_gives_the_pinned_numbers(entry):
    now = explored(entry)
    assert now.counts == entry.counts
    assert now.verdicts == entry.verdicts


@pytest.mark.parametrize("mutant", sorted(FLIPS))
def test_each_property_is_flipped_by_a_seeded_bug(mutant):
    prop, healthy = FLIPS[mutant]
    bug = TABLE[mutant]
    assert TABLE[healthy].verdicts[prop] == "holds"
    assert bug.verdicts[prop] == "violated"
    # the same configuration, without the bug
    assert (bug.preset, bug.knobs) == (TABLE[healthy].preset, TABLE[healthy].knobs)


def test_allack_is_what_keeps_acked_messages():
    assert TABLE["ctl-controller"].verdicts["acked_message_on_every_later_master"] == "violated"
    assert TABLE["ctl-controller-allack"].verdicts["acked_message_on_every_later_master"] == "holds"


def test_two_threads_give_the_same_result():
    from explore.local import explore
    from invariants.controller import PROPERTIES
    from model.controller.model import ControllerModel

    entry = TABLE["ctl-controller"]
    one = explore(ControllerModel(entry.config()), PROPERTIES, threads=1)
    two = explore(ControllerModel(entry.config()), PROPERTIES, threads=2)
    assert (two.stats.distinct_states, two.stats.transitions, two.stats.depth) == entry.counts
    assert [(p.name, p.status) for p in one.properties] == [(p.name, p.status) for p in two.properties]
    assert [str(s) for s in one.property("acked_message_on_every_later_master").trace.actions] == \
        [str(s) for s in two.property("acked_message_on_every_later_master").trace.actions]


def test_every_controller_preset_is_a_pinned_configuration():
    """Each preset's numbers are re-explored: some pinned entry is that preset with no knob set (bench and
    the docs quote those numbers), and the entry's configuration is the preset's."""
    from model.controller import preset
    from model.controller.config import PRESETS

    pinned = {e.preset: e for e in TABLE.values() if e.preset and not e.knobs and not e.mutation}
    assert set(PRESETS) <= set(pinned), sorted(set(PRESETS) - set(pinned))
    for name in PRESETS:
        assert pinned[name].config() == preset(name), name
