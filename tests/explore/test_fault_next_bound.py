"""``faults`` repeats its exhaustive exploration at the next bound (``--grow``) and says what changed.

The README's SYNC_MASTER example with one message: no combination of up to two master power losses loses
an acknowledged message. With two messages, two master power losses alone do (issue 34). The expected
answer is computed here by ``check``: the grown configuration explored once per budget vector.
"""
from __future__ import annotations

from explore import explore
from explore.faults import BUDGET_KNOBS, Lattice, minimal
from invariants import PROPERTIES
from model import Config, RocketMQModel, preset
from explore.fault_search import FaultSearch, bounds

ACKED = PROPERTIES.select(["acked_message_never_lost"])
EXAMPLE = preset("sync-master").with_overrides(["messages=1", "max_master_crashes=0", "max_master_power_losses=2"])


def checked_minimal_combinations(cfg: Config) -> dict[tuple[int, ...], int]:
    """Per minimal violating budget vector, the length of ``check``'s shortest counterexample there."""
    lengths = {}
    for v in Lattice.of(cfg).vectors():
        r = explore(RocketMQModel(Config.from_mapping(dict(zip(BUDGET_KNOBS, v)), base=cfg)), ACKED)
        p = r.property("acked_message_never_lost")
        if p.status == "violated":
            lengths[v] = len(p.trace)
    return {v: lengths[v] for v in minimal(list(lengths))}


def test_at_the_next_bound_two_master_power_losses_lose_an_acknowledged_message():
    report = FaultSearch(EXAMPLE, ACKED, jobs=1, max_configs=0, grow="messages").run()
    rep = report.properties[0]
    assert rep.status == "holds" and not rep.combinations
    grown = EXAMPLE.with_overrides(["messages=2"])
    assert report.next_bound["bounds"] == bounds(grown) and report.next_bound["grow"] == "messages"
    expected = checked_minimal_combinations(grown)
    assert expected, "check finds the property violated with two messages"
    nb = rep.at_next_bound
    assert nb.status == "violated" and not nb.same
    assert {c.vector: len(c.trace) for c in nb.combinations} == expected
    two_power_losses = (0, 2, 0, 0, 0, 0)
    assert two_power_losses in expected
    # every new mode's trace ends in its breaking action with the counters of its combination
    for m in nb.modes:
        assert m.trace.steps[-1].action.startswith(m.kind)
        assert m.trace.steps[-1].view["failures.masterPowerLosses"] == m.vector[1]


def test_grow_none_and_a_count_at_its_limit():
    report = FaultSearch(EXAMPLE, ACKED, jobs=1, max_configs=0, grow="none").run()
    assert report.next_bound is None and report.properties[0].at_next_bound is None
    full = EXAMPLE.with_overrides(["slaves=3", "max_master_power_losses=0"])
    report = FaultSearch(full, ACKED, jobs=1, max_configs=0, grow="slaves").run()
    assert report.next_bound == {"grow": "slaves", "skipped": "slaves=4 is beyond the model's range"}
