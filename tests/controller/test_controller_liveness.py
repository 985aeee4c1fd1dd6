"""The controller mode's eventually property ``master_eventually_elected``: after a master failure, with a
live SyncStateSet member and the controller reachable, some broker becomes master. It holds on fair runs
where the dead master may stay down for ever (``--unfair BrokerRestart``: the failover itself must elect),
and the seeded bug ``controller_skips_election`` (the controller never elects when it finds the master
inactive) makes it fail there, with a lasso that replays as a fair counterexample."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import invoke  # noqa: E402

NAME = "master_eventually_elected"
#: one message keeps it small (about 12,000 states); the old master may stay down for ever
SMALL = ("--preset", "controller", "--set", "messages=1", "--property", NAME, "--unfair", "BrokerRestart")


def explored(mutation=None, unfair=("BrokerRestart",)):
    from explore.local import LocalExplorer
    from invariants.base import Fairness
    from invariants.controller import PROPERTIES
    from model.controller import preset
    from model.controller.model import ControllerModel

    model = ControllerModel(preset("controller").with_overrides(["messages=1"]), mutation=mutation)
    props = PROPERTIES.select([NAME]).with_fairness(Fairness("weak", unfair))
    return model, props, LocalExplorer(model, props).run().property(NAME)


def test_it_is_in_the_default_selection_and_holds_when_the_failover_itself_must_elect(tmp_path):
    from invariants.controller import PROPERTIES

    assert NAME in PROPERTIES.names() and PROPERTIES.get(NAME).kind == "eventually"
    out = tmp_path / "live.json"
    run = invoke("check", *SMALL, "--json", str(out), "--quiet")
    assert run.exit_code == 0, run.stdout + run.stderr
    [p] = json.loads(out.read_text())["properties"]
    assert (p["name"], p["status"]) == (NAME, "holds")
    assert p["fairness"] == {"mode": "weak", "unfair": ["BrokerRestart"]}


def test_a_controller_that_skips_the_election_breaks_it_with_a_fair_lasso():
    """With the seeded bug the controller keeps naming the dead master: the surviving SyncStateSet member
    is never elected and, its role unchanged, never asks for an election itself."""
    from explore.liveness import lasso_fault

    model, props, p = explored("controller_skips_election")
    bit = props.get(NAME).bit   # its place in the declared order
    assert p.status == "violated" and p.loop_start is not None
    steps = p.trace.steps
    assert "BrokerCrash" in " ".join(p.trace.actions)   # the master failure
    assert lasso_fault(model, props.get(NAME), [s.state for s in steps], [s.action_index for s in steps[1:]],
                       p.loop_start, props.fairness, props.eventually_masks) == ""
    masks = np.zeros(128, np.uint64)
    props.eventually_masks(np.asarray(steps[-1].state, np.uint64), model.params, masks)
    assert (int(masks[2 * bit]), int(masks[2 * bit + 1])) == (1, 0)   # P, not Q, where it stays
    view = steps[-1].view
    dead = view["controller.masterBrokerId"]
    assert not view[f"broker{dead}.up"] and view["controller.syncStateSet"] != [dead]


def test_a_restart_of_the_old_master_also_gives_a_master():
    """Under plain weak fairness a crashed broker comes back, registers and asks for an election: the
    property holds even with the seeded bug, which is why the check above lets the master stay down."""
    _, _, p = explored("controller_skips_election", unfair=())
    assert p.status == "holds"


def test_controller_failures_are_never_fair_and_unfair_takes_controller_kinds():
    from explore.fairness import fair_actions
    from invariants.base import Fairness

    from model.controller import preset
    from model.controller.model import ControllerModel

    cfg = preset("controller").with_overrides(["max_broker_power_losses=1", "max_controller_outages=1",
                                                "max_link_losses=1", "max_ha_disconnects=1"])
    actions = ControllerModel(cfg).actions()
    fair = dict(zip(map(str, actions), fair_actions(actions, Fairness())))
    for failure in ("BrokerCrash(broker=1)", "BrokerPowerLoss(broker=2)", "ControllerDown()",
                    "ControllerLinkLoss(broker=1)", "HADisconnect(slave=2)", "AlterSyncStateSetReplyLost(broker=1)"):
        assert fair[failure] == 0, failure
    for periodic in ("BrokerRestart(broker=1)", "ControllerUp()", "ControllerLinkHeal(broker=1)",
                     "ControllerElect(elected=2)", "SyncBrokerMetadata(broker=2)", "ControllerDeclareDead(broker=1)"):
        assert fair[periodic] == 1, periodic
    unfair = dict(zip(map(str, actions), fair_actions(actions, Fairness("weak", ("BrokerRestart",)))))
    assert unfair["BrokerRestart(broker=1)"] == 0 and unfair["ControllerUp()"] == 1
    bad = invoke("check", "--preset", "controller", "--property", NAME, "--unfair", "MasterRestart")
    assert bad.exit_code == 2 and "--unfair MasterRestart: not an action kind" in bad.stderr
    assert "BrokerRestart" in bad.stderr and bad.stderr.count("\n") == 1


def test_replay_reads_a_controller_lasso_with_the_controller_masks(tmp_path):
    """Without fairness any state may stutter for ever, so the property fails at its first trigger; replay
    checks that lasso with this mode's P and Q (a 4.4 reading would not find P)."""
    out = tmp_path / "none.json"
    run = invoke("check", *SMALL[:-2], "--fairness", "none", "--json", str(out), "--quiet")
    assert run.exit_code == 1, run.stdout + run.stderr
    [p] = json.loads(out.read_text())["properties"]
    assert p["status"] == "violated" and p["loop_start"] == len(p["trace"]) - 1
    replayed = invoke("replay", str(out))
    assert replayed.exit_code == 0, replayed.stdout + replayed.stderr
    assert f"{NAME}: the lasso closes, is fair" in replayed.stdout
