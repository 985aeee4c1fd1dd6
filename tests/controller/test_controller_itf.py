"""Controller-mode traces in ITF (``--itf``): every field keeps one ITF type in every state (the
controller's master id, a slave's HA master and the waiting put's broker are optional values, sets of
broker and message ids are sets), and the states read back as the views written."""
from __future__ import annotations

import json

from cli_driver import invoke
from model.controller import preset
from model.controller.model import ControllerModel
from model.controller.view import view_kinds
from reports.itf import field_kinds, variables, view_of_state


def _shapes(node, path=""):
    """``(field path, ITF shape)`` of every leaf of an ITF value (a record's fields walked into)."""
    if isinstance(node, dict) and not any(k.startswith("#") for k in node):
        for k, v in node.items():
            yield from _shapes(v, f"{path}.{k}" if path else k)
    elif isinstance(node, dict):
        yield path, next(iter(node))
    else:
        yield path, type(node).__name__


def test_every_field_keeps_one_itf_type_in_every_state(tmp_path):
    out = tmp_path / "itf"
    r = invoke("check", "--preset", "controller-allack", "--set", "messages=2", "--itf", str(out), "--quiet")
    assert r.exit_code == 1, r.stderr
    types: dict[str, set[str]] = {}
    vars_seen = set()
    sizes = set()
    for path in sorted(out.iterdir()):
        data = json.loads(path.read_text())
        for state in data["states"]:
            vars_seen.add(tuple(k for k in state if k != "#meta"))
            for field, shape in _shapes({k: v for k, v in state.items() if k != "#meta"}):
                types.setdefault(field, set()).add(shape)
            sizes.add(len(state["controller"]["masterBrokerId"]["#set"]))
    assert len(vars_seen) == 1
    assert {f: t for f, t in types.items() if len(t) > 1} == {}
    assert types["controller.masterBrokerId"] == types["producer.sendOk"] == {"#set"}
    assert types["broker1.haMaster"] == types["producer.waitBroker"] == {"#set"}
    assert sizes == {0, 1}   # not vacuous: the master goes from none to one within the traces


def test_itf_states_read_back_as_the_views_written():
    cfg = preset("controller-allack").with_overrides(["brokers=3", "messages=2"])
    model = ControllerModel(cfg)
    kinds = field_kinds(cfg.as_dict())
    state, seen = model.initial()[0], 0
    for _ in range(12):
        nexts = [n for _, n, flags in model.enabled(state) if not flags & 2]
        for n in nexts:
            view = model.view(n)
            assert list(view) == list(view_kinds(cfg))
            # (an epoch file's entries are pairs: JSON has lists only)
            assert view_of_state(json.loads(json.dumps(variables(view, kinds))), kinds) == json.loads(json.dumps(view))
            seen += 1
        state = nexts[0]
    assert seen > 20
