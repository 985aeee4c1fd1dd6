"""The controller mode is declared as the 4.4 mode is: its actions with ``@action`` (their classes, table
order and dispatch derived from the declarations; tests/model/test_declarations.py checks both modes'
dispatches and that every declared action is enabled somewhere), its seeded bugs with ``@mutant``, its properties with ``@check`` (bits in declared order,
generated checks)."""
from __future__ import annotations

import collections
import re
from pathlib import Path

from invariants.controller import AVAILABILITY_WITNESSES, PROPERTIES
from invariants.controller.declare import CONTROLLER as CHECKS
from model.controller import preset
from model.controller.declare import CONTROLLER
from model.controller.model import ControllerModel

#: the public order of the controller properties (docs/controller.md, docs/interface.md)
PUBLIC_ORDER = ("acked_message_on_every_later_master", "queue_offset_names_one_message",
                "delivered_message_stays_on_master", "one_master_per_epoch", "epoch_file_agrees_with_log",
                "consumed_message_never_lost", "committed_offset_never_regresses", "no_message_skipped",
                "new_master_elected", "master_eventually_elected", "acked_message_eventually_consumed")


def test_properties_take_their_bits_from_the_declared_order():
    decls = CHECKS.declarations()
    assert [n for n, k in collections.Counter(d.name for d in decls).items() if k > 1] == []
    assert tuple(p.name for p in PROPERTIES.every()) == PUBLIC_ORDER
    assert [(p.name, p.bit, p.kind, p.summary, p.doc) for p in (*PROPERTIES.every(), *AVAILABILITY_WITNESSES)] == \
        sorted([(d.name, bit, d.kind, d.summary, d.doc) for bit, d in enumerate(decls)], key=lambda t: t[0] not in
               PUBLIC_ORDER)
    assert {p.name for p in AVAILABILITY_WITNESSES} == {d.name for d in decls if d.faults_only}


def test_the_checked_in_checks_are_generated_from_the_declarations():
    # after adding or changing a declaration: python -m invariants.controller.declare
    assert CHECKS.checks_path.read_text() == CHECKS.checks_source()


def test_an_always_property_names_fields_of_the_readable_state():
    m = ControllerModel(preset("controller").with_overrides(["brokers=3"]))
    fields = list(m.view(m.initial_states()[0]))
    for d in CHECKS.declarations():
        assert d.doc and d.summary, d.name
        if d.kind == "always":
            assert any(re.search(d.reads, f) for f in fields), d.name


def test_seeded_bugs_are_kernels_of_their_own_not_branches_in_the_protocol():
    """As in the 4.4 mode: a seeded bug is an alternative kernel (model/controller/mutants.py) put in the
    replaced action's row; the protocol modules neither import nor test for it."""
    root = Path(__file__).resolve().parents[2] / "model" / "controller"
    for name in ("actions", "state", "kernel", "params", "offsets"):
        text = (root / f"{name}.py").read_text()
        assert "mutant" not in text.lower() and "seeded" not in text, name
    names = {d.name for d in CONTROLLER.declarations()}
    cfg = preset("controller").with_overrides(["max_broker_power_losses=1", "max_controller_outages=1",
                                               "consumer_offsets=on", "max_consumer_restarts=1"])
    plain = ControllerModel(cfg).params
    mutations = sorted({m.mutation for m in CONTROLLER.mutant_declarations()})
    for mutation in mutations:
        mutated = ControllerModel(cfg, mutation=mutation).params
        changed = [i for i in range(len(plain)) if plain[i] != mutated[i]]
        assert changed and all(mutated[i] > 100 for i in changed), mutation   # only kind codes moved
    for m in CONTROLLER.mutant_declarations():
        assert m.replaces in names and m.kind > 100 and m.doc, m
