"""A ``faults --json`` result read back into the report object ``faults`` renders (``rmqcheck report``).

The JSON (reports/faults.py, ``report_to_dict``) carries every part the Markdown and HTML documents draw:
bounds, availability, the next bound, the decision table, and per property its combinations, modes,
closing changes, the sets it holds with and its budget vectors, each with its trace. What it does not
carry is read from the property set of the result's mode (a property's summary). The result is checked
by :func:`rmqcheck.saved_result.accept_saved` and its traces replayed before this runs.
"""
from __future__ import annotations

from typing import Any

from explore.faults import vector_type
from explore.result import Stats
from reports.json_report import fairness_from_dict, trace_from_list

from explore.fault_search import (AlwaysReport, CombinationReport, CostlyChange, FaultsReport, GraphReport, ModeReport,
                           NextBound, TableRow, VectorReport)
from .setup import BadInput


def faults_report_from_dict(data: dict[str, Any], where: str, cfg: Any) -> FaultsReport:
    """The report ``faults`` rendered for ``data`` (``cfg``: its typed configuration)."""
    from model.modes import mode_of

    properties = mode_of(cfg).properties()
    kind = vector_type(cfg)

    def vector(combo: Any) -> Any:
        if not isinstance(combo, dict) or set(combo) != set(kind.keys()):
            raise BadInput(f"{where}: a combination must name the failure kinds {', '.join(kind.keys())}")
        return kind(int(combo[k]) for k in kind.keys())

    def modes(items: list[dict[str, Any]]) -> list[ModeReport]:
        return [ModeReport(m["breaking_action"], vector(m["combination"]), trace_from_list(m["trace"]), m["meaning"],
                           list(m.get("closed_by", [])), costly(m.get("closed_at_a_cost", []))) for m in items]

    def combinations(items: list[dict[str, Any]]) -> list[CombinationReport]:
        return [CombinationReport(vector(c["combination"]), trace_from_list(c["trace"])) for c in items]

    def costly(items: list[dict[str, Any]]) -> list[CostlyChange]:
        return [CostlyChange(c["change"], tuple(c["costs"])) for c in items]

    reps: list[Any] = []
    try:
        for p in data["properties"]:
            summary = properties.get(p["name"]).summary
            if "vectors" in p:
                reps.append(GraphReport(p["name"], summary, [
                    VectorReport(vector(v["budgets"]), v["status"], trace_from_list(v.get("trace")),
                                 v.get("loop_start")) for v in p["vectors"]], kind=p["kind"]))
                continue
            rep = AlwaysReport(p["name"], summary, p["status"], combinations(p["combinations"]), modes(p["modes"]),
                               list(p["holds_with"]), costly(p.get("holds_at_a_cost", [])))
            nb = p.get("at_next_bound")
            if nb is not None:
                rep.at_next_bound = NextBound(nb["status"], combinations(nb["combinations"]), modes(nb["modes"]),
                                              [vector(c) for c in nb["gone_combinations"]],
                                              [(g["breaking_action"], vector(g["combination"]))
                                               for g in nb["gone_modes"]])
            reps.append(rep)
        sweep = data["sweep"]
        table = None
        if data.get("table") is not None:
            table = [TableRow(row["setting"], {name: None if cell["status"] == "unknown" else
                                               [vector(c) for c in cell["combinations"]]
                                               for name, cell in row["properties"].items()},
                              tuple(row["availability"]["reached"]), row.get("unsettled", ""),
                              {name: cell["at_next_bound"] for name, cell in row["properties"].items()
                               if "at_next_bound" in cell})
                     for row in data["table"]]
        stats = data.get("stats")
        return FaultsReport(
            data["config"], data["outcome"], reps, sweep["configurations"], sweep["jobs"], sweep["stopped"],
            stats=Stats(**stats) if isinstance(stats, dict) else None,
            incomplete_reason=data.get("incomplete_reason", ""),
            error=(data.get("error") or {}).get("message", ""), unsettled=list(sweep.get("unsettled", [])),
            sweep_engine=sweep.get("engine", "local"), engine=data.get("engine", "local"),
            reached=tuple(data["availability"]["reached"]), bounds=data["bounds"],
            sets_tried=sweep.get("sets_tried", 0), sets_total=sweep.get("sets_total", 0),
            next_bound=data.get("next_bound"), table=table, fairness=fairness_from_dict(data.get("fairness")))
    except BadInput:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise BadInput(f"{where}: not a whole 'rmqcheck faults --json' result ({type(exc).__name__}: {exc})") from None
