"""``rmqcheck faults`` output: the console tables, the Markdown/HTML report and the JSON of model-scope.md
("Failure modes").

The report object comes from :mod:`rmqcheck.fault_search`; here it is only rendered. ``traces`` is
``--traces``: ``violated`` shows every mode's trace (and every violating budget vector's), ``all`` also
the trace of every minimal combination, ``none`` only the tables. JSON always carries every trace.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from explore.faults import COMBINATION_KEYS, combination

from .console import trace_table
from .json_report import TOOL, trace_to_list, version

#: singular and plural of each failure kind, for the console
KIND_WORDS = {"master_crashes": ("master crash", "master crashes"),
              "master_power_losses": ("master power loss", "master power losses"),
              "slave_crashes": ("slave crash", "slave crashes"),
              "slave_power_losses": ("slave power loss", "slave power losses"),
              "consumer_restarts": ("consumer restart", "consumer restarts"),
              "ha_disconnects": ("HA disconnect", "HA disconnects")}
GRAPH_NOTE = ("not monotone in the budgets (a slave that is down counts as caught up), so one verdict per "
              "budget vector")


def combination_text(vector: Sequence[int]) -> str:
    """``(1, 1, 0, 0, 0, 0)`` -> ``1 master crash + 1 master power loss``; the zero vector: no failure."""
    parts = [f"{c} {KIND_WORDS[k][c != 1]}" for k, c in zip(COMBINATION_KEYS, vector) if c]
    return " + ".join(parts) if parts else "no failure"


def change_text(change: dict[str, Any]) -> str:
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in change.items())


def closed_text(changes: list[dict[str, Any]]) -> str:
    return "; ".join(change_text(c) for c in changes) if changes else "(no single change)"


def cost_text(costly: Any) -> str:
    """``slaves=0 (cost: no SEND_OK is ever given; removes the slave)``."""
    return f"{change_text(costly.change)} (cost: {'; '.join(costly.costs)})"


def costs_text(costly: list[Any]) -> str:
    return " | ".join(cost_text(c) for c in costly)


# -- console ---------------------------------------------------------------------------------------------
def modes_table(rep: Any) -> Table:
    t = Table(title=f"{rep.name}: {rep.status}", title_justify="left", show_lines=True)
    t.add_column("combination")
    t.add_column("breaking action", style="bold")
    t.add_column("length", justify="right")
    t.add_column("meaning")
    t.add_column("closed by")
    for m in rep.modes:
        t.add_row(combination_text(m.vector), m.kind, str(len(m.trace)), m.meaning, closed_text(m.closed_by))
    return t


def vectors_table(rep: Any) -> Table:
    t = Table(title=f"{rep.name}: {rep.status} ({GRAPH_NOTE})", title_justify="left")
    t.add_column("budgets")
    t.add_column("verdict")
    t.add_column("length", justify="right")
    for v in rep.vectors:
        style = {"holds": "green", "violated": "bold red"}.get(v.status, "yellow")
        t.add_row(combination_text(v.vector), Text(v.status, style=style),
                  str(len(v.trace)) if v.trace is not None else "")
    return t


def render_console(out: Console, report: Any, config_text: str, traces: str) -> None:
    out.print(f"[bold]rmqcheck faults[/bold]: {config_text}")
    if report.stats is not None:
        s = report.stats
        on = "" if report.engine == "local" else f" on the {report.engine} engine"
        out.print(f"one exhaustive exploration with the full budgets{on}: {s.distinct_states:,} states, "
                  f"{s.transitions:,} transitions, depth {s.depth}, {s.seconds:.2f} s")
    for rep in report.properties:
        out.print()
        if rep.kind == "graph":
            out.print(vectors_table(rep))
            if traces != "none":
                for v in rep.vectors:
                    if v.trace is not None:
                        out.print(trace_table(v.trace, f"{rep.name} with budgets {combination_text(v.vector)}"))
            continue
        out.print(_minimal_line(rep))
        if rep.modes:
            out.print(modes_table(rep))
        for m in rep.modes:
            if m.closed_at_a_cost:
                out.print(f"{m.kind} with {combination_text(m.vector)}, closed only at a cost by "
                          f"{costs_text(m.closed_at_a_cost)}")
        if rep.status == "violated":
            holds = "; ".join(f"{{{change_text(c)}}}" for c in rep.holds_with) or "none of the sets tried"
            out.print(f"holds with: {holds}")
            for c in rep.holds_at_a_cost:
                out.print(f"holds only at a cost with {{{change_text(c.change)}}} (cost: {'; '.join(c.costs)})")
        if traces == "all":
            for c in rep.combinations:
                out.print(trace_table(c.trace, f"{rep.name}: shortest with {combination_text(c.vector)}"))
        if traces in ("all", "violated"):
            for m in rep.modes:
                out.print(trace_table(m.trace, f"{rep.name}: {m.kind} with {combination_text(m.vector)}"))
    out.print()
    out.print(summary_line(report))


def _minimal_line(rep: Any) -> str:
    if not rep.combinations:
        return f"[bold]{rep.name}[/bold]: {rep.status} ({rep.summary})"
    combos = "; ".join(f"{combination_text(c.vector)} ({len(c.trace)} steps)" for c in rep.combinations)
    return f"[bold]{rep.name}[/bold]: {rep.status}; minimal combinations: {combos}"


def summary_line(report: Any) -> str:
    modes = sum(len(getattr(r, "modes", [])) for r in report.properties)
    where = "Spark task slot(s)" if report.sweep_engine == "spark" else "job(s)"
    text = f"{report.outcome}: {modes} failure mode(s); sweep: {report.configurations} configuration(s) on " \
           f"{report.jobs} {where}"
    if report.stopped:
        text += f"; closing search stopped: {report.stopped}"
    if report.unsettled:
        text += f"; cut short, so settling nothing: {'; '.join(report.unsettled)}"
    if report.incomplete_reason:
        text += f"; incomplete: {report.incomplete_reason}"
    if report.error:
        text += f"; model error: {report.error}"
    return text


# -- JSON ------------------------------------------------------------------------------------------------
def report_to_dict(report: Any) -> dict[str, Any]:
    """``engine`` is the engine of the exhaustive exploration (step 1); ``sweep.engine`` where the sweeps of
    small explorations ran."""
    d: dict[str, Any] = {"tool": TOOL, "version": version(), "command": "faults", "config": report.config,
                         "engine": report.engine, "outcome": report.outcome,
                         "properties": [_property_dict(r) for r in report.properties],
                         "sweep": {"configurations": report.configurations, "jobs": report.jobs,
                                   "engine": report.sweep_engine, "stopped": report.stopped,
                                   "unsettled": report.unsettled}}
    if report.stats is not None:
        s = report.stats
        d["stats"] = {"distinct_states": s.distinct_states, "transitions": s.transitions, "depth": s.depth,
                      "seconds": round(s.seconds, 6)}
    if report.incomplete_reason:
        d["incomplete_reason"] = report.incomplete_reason
    if report.error:
        d["error"] = {"message": report.error}
    return d


def _property_dict(rep: Any) -> dict[str, Any]:
    if rep.kind == "graph":
        return {"name": rep.name, "kind": "graph", "status": rep.status, "note": GRAPH_NOTE,
                "vectors": [{"budgets": combination(v.vector), "status": v.status,
                             **({"trace": trace_to_list(v.trace)} if v.trace is not None else {})}
                            for v in rep.vectors]}
    return {"name": rep.name, "kind": "always", "status": rep.status,
            "combinations": [{"combination": combination(c.vector), "length": len(c.trace),
                              "trace": trace_to_list(c.trace)} for c in rep.combinations],
            "modes": [{"combination": combination(m.vector), "breaking_action": m.kind, "length": len(m.trace),
                       "meaning": m.meaning, "trace": trace_to_list(m.trace), "closed_by": m.closed_by,
                       "closed_at_a_cost": [_costly(c) for c in m.closed_at_a_cost]}
                      for m in rep.modes],
            "holds_with": rep.holds_with,
            "holds_at_a_cost": [_costly(c) for c in rep.holds_at_a_cost]}


def _costly(c: Any) -> dict[str, Any]:
    return {"change": c.change, "costs": list(c.costs)}


def faults_json(report: Any) -> str:
    return json.dumps(report_to_dict(report), indent=2) + "\n"


# -- Markdown / HTML -------------------------------------------------------------------------------------
def render_markdown(report: Any, name: str, config_text: str, traces: str) -> str:
    from .markdown import _cell, _trace
    out = [f"# rmqcheck faults report: {name}", "", f"Written by rmqcheck {version()}. Knobs that differ from "
           f"the 4.4 defaults: {config_text}.", "", f"**{_cell(summary_line(report))}**"]
    for rep in report.properties:
        out += ["", f"## `{rep.name}`: {rep.status}", ""]
        if rep.kind == "graph":
            out += [f"*{GRAPH_NOTE}*", "", "| budgets | verdict | length |", "|---|---|---:|"]
            out += [f"| {combination_text(v.vector)} | **{v.status}** | {len(v.trace) if v.trace else ''} |"
                    for v in rep.vectors]
            for v in rep.vectors:
                if v.trace is not None and traces != "none":
                    out += ["", f"### Budgets {combination_text(v.vector)}", ""] + _trace(v.trace)
            continue
        out += [_cell(rep.summary), ""]
        if rep.modes:
            out += ["| combination | breaking action | length | meaning | closed by |", "|---|---|---:|---|---|"]
            out += [f"| {combination_text(m.vector)} | `{m.kind}` | {len(m.trace)} | {_cell(m.meaning)} | "
                    f"{_cell(closed_text(m.closed_by))} |" for m in rep.modes]
        if rep.status == "violated":
            out += ["", "Holds with: " + ("; ".join(f"`{change_text(c)}`" for c in rep.holds_with)
                                           or "none of the sets of changes tried")]
        if traces == "all":
            for c in rep.combinations:
                out += ["", f"### Shortest with {combination_text(c.vector)}", ""] + _trace(c.trace)
        if traces != "none":
            for m in rep.modes:
                out += ["", f"### {m.kind} with {combination_text(m.vector)}", "", _cell(m.meaning), ""]
                out += _trace(m.trace)
    return "\n".join(out) + "\n"


def _html_trace(trace: Any, title: str) -> list[str]:
    """A trace as in a check report: its sequence diagram, then one collapsible step per action."""
    from .html import _steps
    from .sequence import diagram, svg
    return [f"<div class='diagram'>{svg(diagram(trace, witness=False), f'sequence diagram of {title}')}</div>",
            *_steps(trace)]


def render_html(report: Any, name: str, config_text: str, traces: str) -> str:
    from .html import STYLE
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           f"<title>rmqcheck faults report: {escape(name)}</title>", f"<style>{STYLE}</style></head><body>",
           f"<h1>rmqcheck faults report: {escape(name)}</h1>",
           f"<p>Written by rmqcheck {escape(version())}. Knobs that differ from the 4.4 defaults: "
           f"{escape(config_text)}.</p>", f"<p><b>{escape(summary_line(report))}</b></p>"]
    for rep in report.properties:
        out.append(f"<h2><code>{escape(rep.name)}</code>: <span class='{rep.status}'>{rep.status}</span></h2>")
        if rep.kind == "graph":
            out += [f"<p><i>{escape(GRAPH_NOTE)}</i></p>", "<table><tr><th>budgets</th><th>verdict</th>"
                    "<th>length</th></tr>"]
            out += [f"<tr><td>{escape(combination_text(v.vector))}</td><td class='{v.status}'>{v.status}</td>"
                    f"<td class='num'>{len(v.trace) if v.trace else ''}</td></tr>" for v in rep.vectors]
            out.append("</table>")
            for v in rep.vectors:
                if v.trace is not None and traces != "none":
                    title = f"Budgets {combination_text(v.vector)}"
                    out += [f"<h3>{escape(title)}</h3>"] + _html_trace(v.trace, title)
            continue
        out.append(f"<p>{escape(rep.summary)}</p>")
        if rep.modes:
            out.append("<table><tr><th>combination</th><th>breaking action</th><th>length</th><th>meaning</th>"
                       "<th>closed by</th></tr>")
            out += [f"<tr><td>{escape(combination_text(m.vector))}</td><td><code>{escape(m.kind)}</code></td>"
                    f"<td class='num'>{len(m.trace)}</td><td>{escape(m.meaning)}</td>"
                    f"<td>{escape(closed_text(m.closed_by))}</td></tr>" for m in rep.modes]
            out.append("</table>")
        if rep.status == "violated":
            holds = "; ".join(change_text(c) for c in rep.holds_with) or "none of the sets of changes tried"
            out.append(f"<p>Holds with: {escape(holds)}</p>")
        if traces == "all":
            for c in rep.combinations:
                title = f"Shortest with {combination_text(c.vector)}"
                out += [f"<h3>{escape(title)}</h3>"] + _html_trace(c.trace, title)
        if traces != "none":
            for m in rep.modes:
                title = f"{m.kind} with {combination_text(m.vector)}"
                out += [f"<h3>{escape(title)}</h3>", f"<p>{escape(m.meaning)}</p>"] + _html_trace(m.trace, title)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def faults_report(path: str | Path, report: Any, name: str, config_text: str) -> str:
    """The Markdown or HTML report (by ``path``'s extension), with every trace."""
    from .document import report_format
    render = render_html if report_format(path) == "html" else render_markdown
    return render(report, name, config_text, "all")
