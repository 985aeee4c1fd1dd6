"""The JSON result (``--json PATH``), and reading it back for ``rmqcheck replay`` and ``rmqcheck report``."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from explore.result import CheckResult, ModelError, PropertyResult, Stats, Step, Trace
from invariants.base import WEAK, Fairness

from .files import write_text_atomic

TOOL = "rmqcheck"
SIMULATE = "simulate"   # the engine name explore.simulate puts in its results


class ResultFileError(ValueError):
    """A result file (``--json`` output) that cannot be read, is not JSON, or does not fit the schema."""


def version() -> str:
    try:
        from importlib.metadata import version as _v
        return _v("rmqcheck")
    except Exception:
        return "0.1.0"


def trace_to_list(trace: Trace | None) -> list[dict[str, Any]]:
    if trace is None:
        return []
    return [{"step": s.index, "action": s.action, "state": s.view, "changes": s.changes,
             **({"outcome": s.outcome} if s.outcome else {})} for s in trace.steps]


def property_to_dict(p: PropertyResult, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """One verdict; a violation with a trace also carries its ``explanation`` (invariants/explain.py),
    computed for ``config``, the result's knobs."""
    from invariants.explain import explain_result
    d: dict[str, Any] = {"name": p.name, "kind": p.kind, "status": p.status, "summary": p.summary}
    if p.trace is not None:
        d["trace"] = trace_to_list(p.trace)
    if p.loop_start is not None:   # an eventually property's lasso: the trace repeats from this step for ever
        d["loop_start"] = p.loop_start
    if p.fairness is not None:
        d["fairness"] = {"mode": p.fairness.mode, "unfair": list(p.fairness.unfair)}
    explanation = explain_result(p, config or {})
    if explanation is not None:
        d["explanation"] = explanation.to_dict()
    if p.note:
        d["note"] = p.note
    return d


def result_to_dict(result: CheckResult) -> dict[str, Any]:
    s = result.stats
    d: dict[str, Any] = {
        "tool": TOOL,
        "version": version(),
        "command": "simulate" if result.engine == SIMULATE else "check",
        "model": result.model,
        "config": result.config,
        # simulation runs on the local machine; the schema's engine is where, "search" says how
        "engine": "local" if result.engine == SIMULATE else result.engine,
        "search": "random-walks" if result.engine == SIMULATE else "bfs",
        "outcome": result.outcome,
        "stats": {
            "distinct_states": s.distinct_states,
            "transitions": s.transitions,
            "depth": s.depth,
            "seconds": round(s.seconds, 6),
            "states_per_second": round(s.states_per_second, 1),
            "peak_rss_bytes": s.peak_rss_bytes,
            "bytes_per_state": s.bytes_per_state,
            "disk_bytes": s.disk_bytes,
            "levels": s.levels,
            "exact": s.exact,
            "collision_probability": s.collision_probability,
            "visited": s.visited,
            **({"visited_note": s.visited_note} if s.visited_note else {}),
            "unexpanded_states": s.unexpanded,
            "level_engines": s.level_engines,
            "stopped_early": s.stopped_early,
            "stop_reason": s.stop_reason,
            "coverage": s.coverage,
            "terminal_states": s.terminal_states,
            "pruned_transitions": s.pruned_transitions,
            "pruned_reasons": s.pruned_reasons,
        },
        "properties": [property_to_dict(p, result.config) for p in result.properties],
    }
    if result.bounds:
        d["bounds"] = result.bounds
    if result.next_bound is not None:
        d["next_bound"] = result.next_bound
    if result.terminal_trace is not None:
        d["terminal_trace"] = trace_to_list(result.terminal_trace)
    if result.incomplete_reason:
        d["incomplete_reason"] = result.incomplete_reason
    if result.error is not None:
        e = result.error
        d["error"] = {"message": e.message, "action": e.action, "state": e.state_view,
                      "trace": trace_to_list(e.trace)}
    return d


def result_json(result: CheckResult, name: str = "", reproduce: str = "") -> str:
    """The JSON of ``result``; ``name`` (how reports title the configuration) and ``reproduce`` (the command
    line that reproduces the run) let ``rmqcheck report`` render the run's own report again."""
    extra = {**({"name": name} if name else {}), **({"reproduce": reproduce} if reproduce else {})}
    return json.dumps({**result_to_dict(result), **extra}, indent=2) + "\n"


def write_json(path: str | Path, result: CheckResult) -> None:
    write_text_atomic(path, result_json(result))


def matrix_to_dict(sections: list[Any]) -> dict[str, Any]:
    """Several configurations (``rmqcheck matrix``): one full result per configuration, by name."""
    return {"tool": TOOL, "version": version(), "command": "matrix",
            "configurations": [{"name": s.name, **result_to_dict(s.result)} for s in sections]}


def matrix_json(sections: list[Any]) -> str:
    return json.dumps(matrix_to_dict(sections), indent=2) + "\n"


def write_matrix_json(path: str | Path, sections: list[Any]) -> None:
    write_text_atomic(path, matrix_json(sections))


# -- reading a result back (rmqcheck replay) -------------------------------------------------------------
def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise ResultFileError(f"{where}: {what}")


def read_result(path: str | Path) -> dict[str, Any]:
    """A result written by ``--json``, checked against the parts of the schema replay relies on:
    ``config`` (an object), ``properties`` (a list of objects with a ``name``) and each ``trace``
    (a list of steps with an int ``step``, a string ``action`` and an object ``state``)."""
    from model.input_text import InputFileError, parse_bounded, read_input_text

    where = str(path)
    try:
        data = parse_bounded(json.loads, read_input_text(path, "trace file"), "JSON", f"trace file {where!r}")
    except InputFileError as exc:
        raise ResultFileError(str(exc)) from None
    _need(isinstance(data, dict), where, "expected a JSON object written by 'rmqcheck check --json'")
    _need(isinstance(data.get("config"), dict), where, "missing 'config' object (the checked knobs)")
    props = data.get("properties")
    _need(isinstance(props, list), where, "missing 'properties' list")
    for i, p in enumerate(props):
        _need(isinstance(p, dict) and isinstance(p.get("name"), str), where,
              f"properties[{i}] must be an object with a string 'name'")
        if "trace" not in p:
            continue
        trace = p["trace"]
        name = p["name"]
        _need(isinstance(trace, list), where, f"property {name}: 'trace' must be a list of steps")
        for j, step in enumerate(trace):
            _need(isinstance(step, dict), where, f"property {name}, step {j}: expected an object")
            _need(isinstance(step.get("step"), int) and not isinstance(step.get("step"), bool), where,
                  f"property {name}, step {j}: 'step' must be an int")
            _need(isinstance(step.get("action"), str), where, f"property {name}, step {j}: 'action' must be a string")
            _need(isinstance(step.get("state"), dict), where, f"property {name}, step {j}: 'state' must be an object")
    return data


# -- a result from its JSON (rmqcheck report) ------------------------------------------------------------
def trace_from_list(steps: list[dict[str, Any]] | None) -> Trace | None:
    """A trace as ``trace_to_list`` wrote it (the readable states; no packed words)."""
    if not steps:
        return None
    return Trace([Step(s["step"], s["action"], (), s["state"], s.get("changes", {}), s.get("outcome", ""))
                  for s in steps])


def fairness_from_dict(data: Any) -> Fairness | None:
    """An eventually property's fairness as ``result_to_dict`` wrote it (None for the other kinds)."""
    if not isinstance(data, dict):
        return None
    return Fairness(data.get("mode", WEAK), tuple(data.get("unfair", ())))


def _stat_fits(default: Any, value: Any) -> bool:
    """Whether ``value`` has the type of a :class:`Stats` field whose default is ``default``."""
    def number(x: Any, whole: bool) -> bool:
        return not isinstance(x, bool) and (isinstance(x, int) or (not whole and isinstance(x, float)))
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, (int, float)):
        return number(value, isinstance(default, int))
    if isinstance(default, list):
        return isinstance(value, list) and all(number(x, False) or isinstance(x, str) for x in value)
    if isinstance(default, dict):
        return isinstance(value, dict) and all(isinstance(v, (dict, int)) and not isinstance(v, bool)
                                               for v in value.values())
    return value is None or isinstance(value, str)


def result_from_dict(data: dict[str, Any], where: str) -> CheckResult:
    """The result ``result_to_dict`` wrote, for rendering again (``rmqcheck report``); a file that is not
    one is :class:`ResultFileError` naming ``where`` and what is missing."""
    stats = data.get("stats")
    _need(isinstance(stats, dict), where, "missing 'stats' object (not a result written by --json?)")
    _need(isinstance(data.get("outcome"), str), where, "missing 'outcome'")
    known = {f.name for f in dataclasses.fields(Stats)}
    renamed = {"unexpanded_states": "unexpanded"}
    values = {renamed.get(k, k): v for k, v in stats.items() if renamed.get(k, k) in known}
    for name, value in values.items():
        _need(_stat_fits(getattr(Stats(), name), value), where, f"stats.{name}: {str(value)[:40]!r} is not of its type")
    s = Stats(**values)
    props = []
    for p in data["properties"]:
        _need(isinstance(p.get("status"), str) and isinstance(p.get("kind"), str), where,
              f"property {p['name']}: missing 'status' or 'kind'")
        props.append(PropertyResult(p["name"], p["kind"], p["status"], p.get("summary", ""),
                                    trace_from_list(p.get("trace")), p.get("note", ""),
                                    loop_start=p.get("loop_start"), fairness=fairness_from_dict(p.get("fairness"))))
    error = None
    if isinstance(data.get("error"), dict):
        e = data["error"]
        error = ModelError(e.get("message", ""), e.get("action", ""), e.get("state", {}),
                           trace_from_list(e.get("trace")))
    return CheckResult(data.get("engine", "local"), data["outcome"], s, props, data["config"], data.get("model", ""),
                       data.get("incomplete_reason", ""), error, trace_from_list(data.get("terminal_trace")),
                       data["bounds"] if isinstance(data.get("bounds"), dict) else {},
                       data["next_bound"] if isinstance(data.get("next_bound"), dict) else None)
