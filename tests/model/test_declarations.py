"""Each action is declared once (``@action`` beside its kernel function), and everything else about it -
the classes, the table order, the kernel's dispatch - is derived from that one declaration, in every model
mode (the 4.4 mode's registry and the controller mode's, model/controller/declare.py)."""
from __future__ import annotations

import collections
import importlib

import pytest

from model import Config, RocketMQModel
from model.actions import ACTION_TYPES, actions_for
from model.declare import ROCKETMQ_METHOD, declarations

#: each mode's action registry, and the module its typed action classes are members of
REGISTRIES = {"4.4": ("model.declare:ROCKETMQ_44", "model.actions"),
              "controller": ("model.controller.declare:CONTROLLER", "model.controller.model")}


def _registry(mode: str):
    module, _, name = REGISTRIES[mode][0].partition(":")
    return getattr(importlib.import_module(module), name)


def _types(mode: str):
    return importlib.import_module(REGISTRIES[mode][1]).ACTION_TYPES


@pytest.mark.parametrize("mode", sorted(REGISTRIES))
def test_every_action_has_exactly_one_declaration(mode):
    decls = _registry(mode).declarations()
    for attribute in ("name", "kind"):
        counts = collections.Counter(getattr(d, attribute) for d in decls)
        assert [k for k, n in counts.items() if n > 1] == []
    functions = collections.Counter((d.module, d.function) for d in decls)
    assert [f for f, n in functions.items() if n > 1] == []
    assert [cls.declaration for cls in _types(mode)] == list(decls)


@pytest.mark.parametrize("mode", sorted(REGISTRIES))
def test_every_docstring_names_the_rocketmq_method_the_declaration_cites(mode):
    types = {cls.__name__: cls for cls in _types(mode)}
    for d in _registry(mode).declarations():
        assert ROCKETMQ_METHOD.fullmatch(d.rocketmq), d.name
        assert d.rocketmq in d.doc, f"{d.name}: docstring does not name {d.rocketmq}"
        assert types[d.name].__doc__ == d.doc and types[d.name]().doc == d.doc
        assert d.actor in _registry(mode).actors and d.phrase


@pytest.mark.parametrize("mode", sorted(REGISTRIES))
def test_the_checked_in_dispatch_is_generated_from_the_declarations(mode):
    # after adding or changing a declaration: python -m model.declare (4.4), python -m model.controller.declare
    registry = _registry(mode)
    assert registry.dispatch_path.read_text() == registry.dispatch_source()
    text = registry.dispatch_source()
    for d in registry.declarations():
        assert text.count(f"    if kind == {d.kind}:  # {d.name}\n") == 1
        assert f"return {d.call()}\n" in text
    for m in registry.mutant_declarations():
        assert text.count(f"    if kind == {m.kind}:  # seeded bug {m.mutation}: {m.replaces}\n") == 1


def test_argument_codes_follow_the_declared_arguments():
    cfg = Config.from_mapping(dict(slaves=2, consumers=2, queues=2, flush_disk_type="SYNC_FLUSH"))
    for a in actions_for(cfg):
        kind, *xyz = a.code()
        args = a.declaration.args
        assert kind == a.kind
        assert xyz == [args[i].code(getattr(a, args[i].name)) if i < len(args) else 0 for i in range(3)]


def _enabled_kinds(m, limit: int) -> set[str]:
    """Names of the actions of model ``m`` enabled somewhere in its first ``limit`` reachable states
    (breadth first)."""
    seen = set(m.initial())
    frontier = list(seen)
    kinds: set[str] = set()
    while frontier and len(seen) < limit:
        following = []
        for state in frontier:
            for a, target, _ in m.enabled(state):
                kinds.add(type(a).__name__)
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        frontier = following
    return kinds


def _model_44(limit: int, **knobs) -> set[str]:
    return _enabled_kinds(RocketMQModel(Config.from_mapping(knobs), strict=True), limit)


def test_every_declared_action_is_enabled_in_a_small_configuration():
    sync = _model_44(3000, messages=1, flush_disk_type="SYNC_FLUSH", broker_role="SYNC_MASTER", max_ha_disconnects=1)
    failures = _model_44(20000, messages=1, consumers=2, max_master_crashes=1, max_master_power_losses=1,
                         max_slave_crashes=1, max_slave_power_losses=1, max_consumer_restarts=1)
    retention = _model_44(3000, messages=3, commitlog_file_messages=1, max_file_deletions=1, max_master_crashes=0,
                          max_master_power_losses=0)
    assert {d.name for d in declarations()} - sync - failures - retention == set()


def test_every_declared_controller_action_is_enabled_in_a_small_configuration():
    from model.controller import preset
    from model.controller.model import ControllerModel
    every = preset("controller-allack").with_overrides(
        ["messages=1", "max_broker_power_losses=1", "max_controller_outages=1", "max_link_losses=1",
         "max_ha_disconnects=1"])
    # PullMessageQueue1 exists only with a second queue (queues=2), and needs a second message to pull
    two_queues = preset("controller").with_overrides(["queues=2", "messages=2"])
    # the consumer-offset actions exist only with consumer_offsets=ON, the name servers' with name_servers >= 1
    # (their failures with their budgets), BrokerShutdown only with stale_tail=on
    offsets = preset("controller").with_overrides(["consumer_offsets=on", "messages=1", "max_consumer_restarts=1"])
    name_servers = preset("controller").with_overrides(
        ["messages=1", "name_servers=1", "max_namesrv_restarts=1", "max_namesrv_cutoffs=1"])
    stale = preset("controller").with_overrides(["stale_tail=on", "messages=1"])
    # the quorum's actions exist only with controllers=3 (its failures with their budgets)
    quorum = preset("controller").with_overrides(["controllers=3", "messages=1", "max_broker_crashes=0",
                                                  "max_controller_outages=1", "max_link_losses=1"])
    assert {d.name for d in _registry("controller").declarations()} - \
        _enabled_kinds(ControllerModel(every), 30000) - _enabled_kinds(ControllerModel(two_queues), 30000) - \
        _enabled_kinds(ControllerModel(offsets), 30000) - _enabled_kinds(ControllerModel(name_servers), 30000) - \
        _enabled_kinds(ControllerModel(stale), 3000) - _enabled_kinds(ControllerModel(quorum), 30000) == set()


def test_seeded_bugs_are_kernels_of_their_own_not_branches_in_the_protocol():
    """Issue 13: a seeded bug is an alternative kernel function (model/mutants.py) put in the replaced
    action's row of the action table; the protocol modules neither import nor test for it."""
    from pathlib import Path

    from model.declare import mutant_declarations
    from model.rocketmq import RocketMQModel

    protocol = ["client", "failures", "ha", "metadata", "offsets", "producer", "routes", "store"]
    root = Path(__file__).resolve().parents[2] / "model"
    for name in protocol:
        text = (root / f"{name}.py").read_text()
        assert "mutant" not in text and "MUTATION" not in text, name
    names = {d.name for d in declarations()}
    cfg = Config.from_mapping(dict(slaves=1, consumers=1, messages=2, flush_disk_type="SYNC_FLUSH",
                                   max_master_crashes=1, max_master_power_losses=1))
    plain = RocketMQModel(cfg).params
    for m in mutant_declarations():
        assert m.replaces in names and m.kind > 100 and m.doc, m
        mutated = RocketMQModel(cfg, mutation=m.mutation).params
        changed = [i for i in range(len(plain)) if plain[i] != mutated[i]]
        assert changed and all(mutated[i] > 100 for i in changed), m   # only kind codes moved


def test_regenerating_compiles_nothing(tmp_path):
    """The edit cycle: ``python -m model.declare`` and ``python -m invariants.declare`` (and the controller
    mode's, ``python -m model.controller.declare`` and ``python -m invariants.controller.declare``) import
    only the declarations, never a compiled entry point, so on a cold kernel cache they write nothing there
    (a compile would: every kernel is cached on disk) and take about a second each, not minutes."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "RMQCHECK_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_DISABLE_JIT", None)
    scripts = (("model.declare", "dispatch.py"), ("invariants.declare", "checks.py"),
               ("model.controller.declare", "dispatch.py"), ("invariants.controller.declare", "checks.py"))
    for script, written in scripts:
        out = subprocess.run([sys.executable, "-m", script], cwd=root, env=env, capture_output=True,
                             text=True, timeout=120, check=True)
        assert out.stdout.strip().endswith(written)
    cached = [p.name for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".nbi", ".nbc")]
    assert cached == []


def test_two_actions_of_one_kind_are_refused_at_declaration():
    """The generated dispatch runs the first action of a kind: a second action declared with a kind already
    taken (BrokerShutdown took PersistAllOffsets' 40 in a merge) would run the other's kernel."""
    from model.controller.declare import CONTROLLER
    taken = CONTROLLER.declarations()[0]
    with pytest.raises(ValueError, match=f"kind {taken.kind} is already {taken.name}'s"):
        CONTROLLER.action("Toy", kind=taken.kind, actor=taken.actor, section=CONTROLLER.sections[0], rocketmq="X#y",
                          phrase="p")(lambda w: 0)
