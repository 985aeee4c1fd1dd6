"""The eventually properties on small configurations: each holds where RocketMQ does what it promises and
fails with a seeded bug (model/mutants.py) or a fairness option that takes the promise away; every lasso
is a real path of the model whose cycle closes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from explore import explore
from invariants import PROPERTIES, Fairness
from model import Config, RocketMQModel

NO_FAILURES = dict(max_master_crashes=0, max_master_power_losses=0)
CRASH_ONLY = dict(max_master_power_losses=0)


@dataclass(frozen=True)
class Flip:
    prop: str
    knobs: dict[str, Any]
    mutation: str
    unfair: tuple[str, ...] = ()
    loop_start: int = 0           # where the flipped run's lasso starts repeating
    stutters: bool = True         # its cycle is one state the run stays in

    def __str__(self) -> str:
        return f"{self.prop}-{self.mutation}"


FLIPS = [
    # the master never comes back while the message is only in its page cache: it is never consumed
    Flip("acked_message_eventually_consumed", dict(messages=1, **CRASH_ONLY), "master_never_restarts", loop_start=6),
    # a slave that missed an entry diverges for good: never again the master's log
    Flip("slaves_eventually_catch_up", dict(messages=2, **NO_FAILURES), "replica_skips_entry", loop_start=12),
    # the master stays down (unfair restart) and the consumer does not fail over to the slave
    Flip("consumption_eventually_completes", dict(messages=1, **CRASH_ONLY), "consumer_stops_after_route_change",
         unfair=("MasterRestart",), loop_start=0),
]


def check(flip: Flip, mutation: str | None):
    model = RocketMQModel(Config.from_mapping(flip.knobs), mutation=mutation)
    props = PROPERTIES.select([flip.prop]).with_fairness(Fairness("weak", flip.unfair))
    return explore(model, props).properties[0]


@pytest.mark.parametrize("flip", FLIPS, ids=str)
def test_holds_then_fails_with_the_seeded_bug(flip):
    assert check(flip, None).status == "holds"
    broken = check(flip, flip.mutation)
    assert broken.status == "violated"
    steps = broken.trace.steps
    assert broken.loop_start is not None and steps[broken.loop_start].state == steps[-1].state
    assert (broken.loop_start == len(steps) - 1) == flip.stutters
    if flip.loop_start:
        assert broken.loop_start == flip.loop_start


def test_same_verdicts_and_lassos_on_every_thread_count():
    from explore.local import LocalExplorer
    model = RocketMQModel(Config.from_mapping(dict(messages=1, **CRASH_ONLY)))
    props = PROPERTIES.select(["acked_message_eventually_consumed", "slaves_eventually_catch_up",
                               "consumption_eventually_completes"]).with_fairness(Fairness("weak", ("MasterRestart",)))
    seen = []
    for threads in (1, 2, 3):
        r = LocalExplorer(model, props, threads=threads, slice_states=37, parallel_from=8).run()
        seen.append([(p.name, p.status, p.loop_start, p.note, p.trace.actions if p.trace else None)
                     for p in r.properties])
    assert seen[0] == seen[1] == seen[2]
    assert [s for _, s, *_ in seen[0]] == ["violated", "violated", "holds"]
