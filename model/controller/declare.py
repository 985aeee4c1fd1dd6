"""The controller mode's action declarations: its :class:`~model.declare.ActionRegistry`, arguments and
drawing roles. Each action of :mod:`model.controller.actions` is declared with :func:`action` above its
kernel function, each seeded bug of :mod:`model.controller.mutants` with :func:`mutant`, exactly as the
4.4 mode's (:mod:`model.declare` explains a declaration); from them follow the typed action classes
(:mod:`model.controller.model`), the configuration's action table and the dispatch,
:mod:`model.controller.dispatch`, a generated module checked into the repository. Regenerate it with
``python -m model.controller.declare`` after adding or changing a declaration; a test fails while it is
stale.

The fixed order of the table: the controller's availability, the producer's sends, the put's wait, the
consumer's pulls, then each broker's own block (failures, dispatch, registration and elections, liveness,
SyncStateSet maintenance, HA as a slave), then the controller's elections. A broker is named by its
controller id 1..n; the kernel takes the 0-based index.
"""
from __future__ import annotations

from pathlib import Path

from ..declare import ActionRegistry, Arg


def _brokers(cfg):
    return range(1, cfg.brokers + 1)


def _index(b: int) -> int:
    return b - 1


#: the broker the action runs on
BROKER = Arg("broker", _brokers, _index, 1)
#: the broker an election makes master
ELECTED = Arg("elected", _brokers, _index, 1)
#: the broker in the slave role of an HA connection
SLAVE = Arg("slave", _brokers, _index, 1)
#: the broker a slave connects to
MASTER = Arg("master", _brokers, _index, 1)

#: the parts of the cluster an action belongs to (the explorer shows it beside the action); ``namesrv``: a name
#: server's own steps (model/controller/namesrv.py)
ACTORS = ("producer", "client", "store", "controller", "ha", "failure", "namesrv")
#: sections of the fixed action order (module docstring); ``namesrv`` last: registrations, expiries and route
#: refreshes (only with name servers); ``quorum`` after it: the controller group's own steps and failures (only
#: with ``controllers = 3``, model/controller/quorum.py)
SECTIONS = ("outage", "send", "ack", "pull", "broker", "election", "namesrv", "quorum")
#: who a drawing names: the producer, the consumer, the controller, the broker an argument names, or the
#: name server the ``nameserver`` argument names
ROLES = ("producer", "consumer", "controller", "broker", "elected", "slave", "master", "nameserver")

#: the controller mode's declarations
CONTROLLER = ActionRegistry(
    actors=ACTORS, roles=ROLES, sections=SECTIONS, modules=("model.controller.actions", "model.controller.offsets",
                                                            "model.controller.namesrv",
                                                            "model.controller.quorum"),
    mutants="model.controller.mutants", dispatch_path=Path(__file__).with_name("dispatch.py"),
    command="python -m model.controller.declare", native_import="from explore.native import kernel",
    state_args=("w",), arity=2)

action = CONTROLLER.action
mutant = CONTROLLER.mutant


if __name__ == "__main__":
    from model.controller import declare    # the module the kernel modules register with, not this __main__ copy
    print(declare.CONTROLLER.write_dispatch())
