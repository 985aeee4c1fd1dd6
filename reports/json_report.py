"""The JSON result of model-scope.md (``--json PATH``), and reading it back for ``rmqcheck replay``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explore.result import CheckResult, PropertyResult, Trace

from .files import write_text_atomic

TOOL = "rmqcheck"


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


def property_to_dict(p: PropertyResult) -> dict[str, Any]:
    d: dict[str, Any] = {"name": p.name, "kind": p.kind, "status": p.status, "summary": p.summary}
    if p.trace is not None:
        d["trace"] = trace_to_list(p.trace)
    if p.note:
        d["note"] = p.note
    return d


def result_to_dict(result: CheckResult) -> dict[str, Any]:
    s = result.stats
    d: dict[str, Any] = {
        "tool": TOOL,
        "version": version(),
        "model": result.model,
        "config": result.config,
        "engine": result.engine,
        "outcome": result.outcome,
        "stats": {
            "distinct_states": s.distinct_states,
            "transitions": s.transitions,
            "depth": s.depth,
            "seconds": round(s.seconds, 6),
            "states_per_second": round(s.states_per_second, 1),
            "peak_rss_bytes": s.peak_rss_bytes,
            "levels": s.levels,
            "exact": s.exact,
            "collision_probability": s.collision_probability,
            "unexpanded_states": s.unexpanded,
            "level_engines": s.level_engines,
        },
        "properties": [property_to_dict(p) for p in result.properties],
    }
    if result.incomplete_reason:
        d["incomplete_reason"] = result.incomplete_reason
    if result.error is not None:
        e = result.error
        d["error"] = {"message": e.message, "action": e.action, "state": e.state_view,
                      "trace": trace_to_list(e.trace)}
    return d


def write_json(path: str | Path, result: CheckResult) -> None:
    write_text_atomic(path, json.dumps(result_to_dict(result), indent=2) + "\n")
