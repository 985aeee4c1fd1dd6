"""Each property is declared once (``@check`` above its predicate); its bit, the property set and the
compiled ``state_check`` / ``transition_check`` are derived from the declarations."""
from __future__ import annotations

import collections

from invariants import PROPERTIES, readable
from invariants.declare import CHECKS_PATH, checks_source, declarations
from model import events

PUBLIC_ORDER = ("acked_message_never_lost", "consumed_message_never_lost", "replicas_agree",
                "committed_offset_never_regresses", "no_message_skipped", "slave_serves_pull",
                "offset_committed_to_slave", "master_recovers", "slave_sync_overwrites_offset",
                "message_redelivered", "message_acked", "message_consumed", "replication_can_catch_up",
                "acked_message_eventually_consumed", "slaves_eventually_catch_up", "consumption_eventually_completes")
#: the availability witness only ``faults`` reads; it keeps its bit (after the sometimes properties)
FAULTS_ONLY = ("message_acked_while_slave_away",)


def test_every_property_is_declared_once_in_the_public_order():
    decls = declarations()
    assert [n for n, k in collections.Counter(d.name for d in decls).items() if k > 1] == []
    assert tuple(d.name for d in decls if not d.faults_only) == PUBLIC_ORDER
    assert tuple(d.name for d in decls if d.faults_only) == FAULTS_ONLY
    assert [(p.name, p.bit, p.kind, p.summary, p.doc) for p in PROPERTIES.every()] == \
        [(d.name, bit, d.kind, d.summary, d.doc) for bit, d in enumerate(decls) if not d.faults_only]


def test_declarations_are_complete():
    for d in declarations():
        assert d.doc and d.summary, d.name
        if d.event:
            assert isinstance(getattr(events, d.event), int), d.name
    # the eventually properties' P and Q are tested through their verdicts (tests/invariants/test_liveness_properties.py)
    assert set(readable.STATE) | set(readable.TRANSITION) == \
        {d.name for d in declarations() if d.kind != "eventually"}
    assert set(readable.TRANSITION) == {d.name for d in declarations() if d.event}


def test_the_checked_in_checks_are_generated_from_the_declarations():
    # after adding or changing a declaration: python -m invariants.declare
    assert CHECKS_PATH.read_text() == checks_source()


def test_every_property_has_every_fact_the_reports_need():
    """What a report or an explanation needs of a property comes with it: an always property names the
    fields it decides on (each name matches a field of the model's readable state), and every always and
    graph and eventually property has its conditions in invariants/explain.py (the plain-Python readings are checked
    above)."""
    import re

    from invariants.explain import EXPLAINERS
    from model import Config, RocketMQModel
    m = RocketMQModel(Config.from_mapping({"slaves": 1}))
    fields = list(m.view(m.initial_states()[0]))
    for d in declarations():
        if d.kind == "always":
            assert d.reads and any(re.search(d.reads, f) for f in fields), d.name
    assert set(EXPLAINERS) == {d.name for d in declarations() if d.kind in ("always", "graph", "eventually")}
