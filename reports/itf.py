"""Traces in the Informal Trace Format (ITF), the JSON traces of Apalache and Quint (``--itf DIR``).

ITF (https://apalache-mc.org/docs/adr/015adr-trace.html) is a JSON object ``{"#meta", "vars", "states"}``;
each state is ``{"#meta": {"index": i}, var: value, ...}``. rmqcheck's readable state is a flat map of
fields named ``actor.field`` (``master.commitlog``, ``consumer1.q0.offset``, ``master.consumerOffset[0]``);
in ITF each actor is one variable whose value is a record of its fields, nested on every dot, and the
fields ``name[k]`` of a record form one map ``name`` from ``k`` (ITF record fields are identifiers), so a
Quint or Apalache user reads ``master.commitlog`` and ``consumer1.q0.offset`` the same way.
Values use ITF's encodings, with one type per field in every state (the model's view says which):
a set of message ids or brokerIds (a commitlog, a route, ``producer.sendOk``) is ``{"#set": [...]}``; a
field that may have no value (an offset not yet committed) is a set of at most one element, ``{"#set":
[3]}`` or ``{"#set": []}``, in every state (the TLA+ idiom for an optional value; Quint's ``None`` variant
cannot be read by the itf-py reader, which makes a Python class of each tag and ``None`` is a keyword);
an int beyond JSON's safe range is ``{"#bigint": "..."}``. Each state's ``#meta`` also names the action that led to it and
what it returned, so the trace reads as rmqcheck prints it. An eventually property's lasso has ITF's
optional ``loop``: the index of the state the last state steps back to, for ever (the last state itself
when the run stays there), with the action of that step as ``#meta.loop_action``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from explore.result import REACHED, S_VIOLATED, CheckResult, PropertyResult, Trace

from .files import write_text_atomic

FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
#: JSON numbers are exact only up to 2**53 (JavaScript readers); ITF writes larger ints as strings
SAFE_INT = 2 ** 53 - 1
NO_VALUE = {"#tup": []}
#: how a field of each kind is written (the kinds of model/view.py's codecs): one ITF type per field
SET, OPTION, PLAIN = "set", "option", "plain"
_INDEXED = re.compile(r"(?P<name>\w+)\[(?P<key>\d+)\]")


def itf_value(value: Any) -> Any:
    """One readable value in ITF's encoding."""
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -SAFE_INT <= value <= SAFE_INT else {"#bigint": str(value)}
    if value is None:
        return NO_VALUE
    if isinstance(value, (list, tuple)):
        return [itf_value(v) for v in value]
    if isinstance(value, dict):
        return {"#map": [[itf_value(k), itf_value(v)] for k, v in value.items()]}
    return {"#unserializable": str(value)}


def field_value(value: Any, kind: str = PLAIN) -> Any:
    """One field's value in ITF, typed by its ``kind``: a set as ``#set``, an optional value as a set of
    at most one element (in every state, so the field keeps one type), anything else as is."""
    if kind == SET:
        return {"#set": [itf_value(v) for v in value]}
    if kind == OPTION:
        return {"#set": [] if value is None else [itf_value(value)]}
    return itf_value(value)


def field_kinds(config: dict[str, Any]) -> dict[str, str]:
    """The ITF kind of every readable field of ``config``'s states, from its mode's ``view_kinds()`` (``ids``
    a set, ``optional`` a set of at most one element); {} when ``config`` is not a configuration of
    rmqcheck's (e.g. a toy model's)."""
    from model.knobs import ConfigError
    from model.modes import config_of_mapping

    try:
        cfg = config_of_mapping(config)
    except (TypeError, ValueError, KeyError, ConfigError):
        return {}
    typed = {"ids": SET, "optional": OPTION}
    return {name: typed.get(kind, PLAIN) for name, kind in getattr(cfg, "view_kinds", dict)().items()}


class _Encoded:
    """A field's value already in ITF (so nesting does not encode it again)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class _Indexed(dict):
    """The fields ``name[k]`` of one record: an ITF map from ``k`` to the value."""


def _encode(node: Any) -> Any:
    if isinstance(node, _Encoded):
        return node.value
    if isinstance(node, _Indexed):
        return {"#map": [[k, _encode(v)] for k, v in sorted(node.items())]}
    if isinstance(node, dict):
        return {k: _encode(v) for k, v in node.items()}
    return itf_value(node)


def variables(view: dict[str, Any], kinds: dict[str, str] | None = None) -> dict[str, Any]:
    """The readable state as ITF variables: one record per actor (``master``, ``consumer1``), nested on
    every ``.`` of a field's name (``consumer1.q0.offset``), ``name[k]`` fields as a map from ``k``; each
    field's value typed by its kind in ``kinds`` (see :func:`field_kinds`)."""
    out: dict[str, Any] = {}
    for name, value in view.items():
        *path, last = name.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        encoded = _Encoded(field_value(value, (kinds or {}).get(name, PLAIN)))
        indexed = _INDEXED.fullmatch(last)
        if indexed:
            node.setdefault(indexed["name"], _Indexed())[int(indexed["key"])] = encoded
        else:
            node[last] = encoded
    return _encode(out)


def trace_to_itf(trace: Trace, prop: PropertyResult, result: CheckResult) -> dict[str, Any]:
    """One property's trace as an ITF document."""
    states = []
    kinds = field_kinds(result.config)
    for step in trace.steps:
        meta: dict[str, Any] = {"index": step.index, "action": step.action}
        if step.outcome:
            meta["outcome"] = step.outcome
        states.append({"#meta": meta, **variables(step.view, kinds)})
    what = "counterexample" if prop.status == S_VIOLATED else "witness"
    meta = {"format": "ITF", "format-description": FORMAT_DESCRIPTION, "source": "rmqcheck",
            "description": f"{prop.name} {prop.status} in {len(trace)} steps: {what} ({prop.summary})",
            "property": prop.name, "status": prop.status, "kind": prop.kind, "config": result.config}
    if (result.config or {}).get("rocketmq_version"):
        meta["rocketmq_version"] = result.config["rocketmq_version"]   # the release checked
    names = [name for name in states[0] if name != "#meta"] if states else []
    doc = {"#meta": meta, "vars": names, "states": states}
    if prop.loop_start is not None:
        # a lasso: ITF's "loop" is the state the last one steps back to; the recorded trace ends with the
        # cycle's first state again, so that copy goes (its action is kept as the loop's)
        if prop.loop_start < len(states) - 1:
            meta["loop_action"] = states[-1]["#meta"]["action"]
            states.pop()
        doc["loop"] = prop.loop_start
    return doc


def traced_properties(result: CheckResult) -> list[PropertyResult]:
    """Properties with a trace to write: counterexamples of violated ones, witnesses of reached ones."""
    return [p for p in result.properties if p.trace is not None and p.status in (S_VIOLATED, REACHED)]


def itf_path(directory: str | Path, prop: PropertyResult) -> Path:
    return Path(directory) / f"{prop.name}.itf.json"


def itf_files(directory: str | Path, result: CheckResult) -> dict[Path, str]:
    """``DIR/<property>.itf.json`` and its text for every trace of ``result``."""
    return {itf_path(directory, prop): json.dumps(trace_to_itf(prop.trace, prop, result), indent=1) + "\n"
            for prop in traced_properties(result)}


def write_itf(directory: str | Path, result: CheckResult) -> list[Path]:
    """Write ``DIR/<property>.itf.json`` for every trace of ``result``; the paths written."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    files = itf_files(directory, result)
    for path, text in files.items():
        write_text_atomic(path, text)
    return list(files)


# -- reading back (rmqcheck explore --trace FILE.itf.json) -------------------------------------------------
def plain_value(value: Any, kind: str = PLAIN) -> Any:
    """One ITF value back in the readable view's encoding (the inverse of :func:`field_value` for the
    values a view holds): ``{"#bigint"}`` an int, a ``#set`` a sorted list (of an optional field: its one
    element, or None when empty), the empty tuple ``None``, a sequence a list."""
    if isinstance(value, dict):
        if "#bigint" in value:
            return int(value["#bigint"])
        if isinstance(value.get("#set"), list):
            items = sorted(plain_value(v) for v in value["#set"])
            if kind == OPTION:
                if len(items) > 1:
                    raise ValueError(f"an optional value holds at most one element: {json.dumps(value)[:60]}")
                return items[0] if items else None
            return items
        if value.get("#tup") == []:
            return None
        raise ValueError(f"an ITF value rmqcheck does not write: {json.dumps(value)[:60]}")
    if isinstance(value, list):
        return [plain_value(v) for v in value]
    return value


def view_of_state(state: dict[str, Any], kinds: dict[str, str] | None = None) -> dict[str, Any]:
    """The flat readable view of one ITF state (the inverse of :func:`variables`): nested records joined by
    ``.``, a map ``name`` from ``k`` back to the fields ``name[k]``, each value decoded by its field's kind
    in ``kinds`` (see :func:`field_kinds`); ``#meta`` left out."""
    view: dict[str, Any] = {}
    kinds = kinds or {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict) and "#map" in node:
            for key, value in node["#map"]:
                name = f"{prefix}[{plain_value(key)}]"
                view[name] = plain_value(value, kinds.get(name, PLAIN))
        elif isinstance(node, dict) and not any(k.startswith("#") for k in node):
            for key, value in node.items():
                walk(f"{prefix}.{key}", value)
        else:
            view[prefix] = plain_value(node, kinds.get(prefix, PLAIN))

    for name, node in state.items():
        if name != "#meta":
            walk(name, node)
    return view
