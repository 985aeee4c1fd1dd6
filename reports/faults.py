"""``rmqcheck faults`` output: the console tables, the Markdown/HTML report and the JSON of model-scope.md
("Failure modes").

The report object comes from :mod:`explore.fault_search`; here it is only rendered. ``traces`` is
``--traces``: ``violated`` shows every mode's trace (and every violating budget vector's), ``all`` also
the trace of every minimal combination, ``none`` only the tables. JSON always carries every trace.
"""
from __future__ import annotations

import contextlib
import json
import time
from html import escape
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from rich.console import Console
from rich.markup import escape as escape_markup
from rich.table import Table
from rich.text import Text

from explore.faults import COMBINATION_KEYS, Vector, combination

from .console import NameTable, WholeNames, explanation_table, human_bytes, trace_table
from .bounds import bounds_text, grown_text, kind_words
from .json_report import TOOL, trace_to_list, version

GRAPH_NOTE = ("not monotone in the budgets (a slave that is down counts as caught up), so one verdict per "
              "budget vector")
#: the kinds with one verdict per budget vector; an eventually property's note
PER_VECTOR = ("graph", "eventually")
EVENTUALLY_NOTE = ("liveness is not monotone in the budgets (more failures reach other states, from which the "
                   "goal may or may not follow), so one verdict per budget vector")


def vector_note(rep: Any) -> str:
    return EVENTUALLY_NOTE if rep.kind == "eventually" else GRAPH_NOTE


def combination_text(vector: Sequence[int]) -> str:
    """``(1, 1, 0, 0, 0, 0)`` -> ``1 master crash + 1 master power loss`` (the kinds of the vector's mode; a
    plain tuple: 4.4's); the zero vector: no failure."""
    keys = vector.keys() if isinstance(vector, Vector) else COMBINATION_KEYS
    parts = [f"{c} {kind_words(k)[c != 1]}" for k, c in zip(keys, vector) if c]
    return " + ".join(parts) if parts else "no failure"


#: how a change of RocketMQ's code (``"code_change": true``, explore/fault_profiles.py) is labelled
CODE_CHANGE = "code change: no RocketMQ release has it"


def typed_text(change: dict[str, Any]) -> str:
    """``flush_disk_type=SYNC_FLUSH``: the change as a user types it (``--set``, ``--rocketmq-version``)."""
    if "upgrade" in change:
        return f"--rocketmq-version {change['upgrade']}"
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in change.items()
                     if k != "code_change")


def change_text(change: dict[str, Any]) -> str:
    """The change as typed; an upgrade and a code change say what they are (an operator sets neither)."""
    if "upgrade" in change:
        return f"upgrade to RocketMQ {change['upgrade']}"
    return f"{typed_text(change)} ({CODE_CHANGE})" if change.get("code_change") else typed_text(change)


def closed_text(changes: list[dict[str, Any]]) -> str:
    """The settings an operator can set first, then the upgrades, then the code changes."""
    ordered = sorted(changes, key=lambda c: (bool(c.get("code_change")), "upgrade" in c))
    return "; ".join(change_text(c) for c in ordered) if changes else "(no single change)"


def cost_text(costly: Any) -> str:
    """``slaves=0 (cost: no SEND_OK is ever given; removes the slave)``."""
    return f"{change_text(costly.change)} (cost: {'; '.join(costly.costs)})"


def costs_text(costly: list[Any]) -> str:
    return " | ".join(cost_text(c) for c in costly)


def holds_with_text(report: Any, rep: Any) -> str:
    """The sets a violated property holds with, or, when none, whether every set was tried."""
    if rep.holds_with:
        return "; ".join(f"{{{change_text(c)}}}" for c in rep.holds_with)
    if report.stopped or report.sets_tried < report.sets_total:
        return (f"none of the {report.sets_tried} sets tried (not every set: {report.sets_total} exist; "
                f"the search stopped: {report.stopped or 'interrupted'})")
    return f"no set of the setting changes (all {report.sets_total} tried)"


def next_bound_header(nb: dict[str, Any]) -> str:
    if nb.get("skipped"):
        return f"not settled {grown_text(nb)}: {nb['skipped']}"
    return (f"{grown_text(nb)} ({bounds_text(nb['bounds'])}): {nb['distinct_states']:,} states, "
            f"{nb['seconds']:.2f} s")


def next_bound_text(report: Any, rep: Any) -> str:
    """``at the next bound, with 2 messages: violated; new: 2 master power losses suffice (11 steps)``."""
    nb = rep.at_next_bound
    head = f"at the next bound, {grown_text(report.next_bound)}: {nb.status}"
    if nb.same:
        return head + "; the same minimal combinations and modes"
    parts = [f"{combination_text(c.vector)} suffice{'s' if sum(c.vector) == 1 else ''} ({len(c.trace)} steps)"
             for c in nb.combinations]
    parts += [f"new mode {m.kind} with {combination_text(m.vector)} ({len(m.trace)} steps)" for m in nb.modes]
    parts += [f"{combination_text(v)} no longer minimal" for v in nb.gone_combinations]
    parts += [f"mode {k} with {combination_text(v)} gone" for k, v in nb.gone_modes]
    return head + "; " + "; ".join(parts)


# -- console ---------------------------------------------------------------------------------------------
class FaultsProgress:
    """Progress of ``faults`` per phase, on stderr: the exhaustive explorations draw a progress bar that
    is removed when they end (``exploring``); a sweep prints one line per finished exploration with the
    phase, ``[k/N]``, the configuration, the time elapsed and an estimate of the time left (``sweep``)."""

    def __init__(self, console: Console, bar: bool) -> None:
        self.console, self.bar = console, bar

    @contextlib.contextmanager
    def exploring(self, text: str) -> Iterator[Any]:
        self.console.print(f"faults: {text}", highlight=False)
        if not self.bar:
            yield None
            return
        from .console import ProgressBar
        with ProgressBar(self.console, label=text.split(":")[0]) as bar:   # transient: gone when it ends
            yield bar

    def sweep(self, phase: str, labels: list[str]) -> Callable[[int, Any], None]:
        started, total, done = time.monotonic(), len(labels), [0]
        self.console.print(f"faults: {phase}: {total} exploration(s)", highlight=False)

        def finished(i: int, _result: Any) -> None:
            done[0] += 1
            spent = time.monotonic() - started
            left = spent / done[0] * (total - done[0])
            step = phase.split(":")[0]
            self.console.print(f"faults: {step} [{done[0]}/{total}] {labels[i]} ({spent:.0f} s elapsed, "
                               f"about {left:.0f} s left)", highlight=False, markup=False)
        return finished


def modes_table(rep: Any) -> NameTable:
    """One row per mode; what users type (the action kind, the changes) is never cut: where the width
    cannot hold a row whole, each mode is stacked as its kind, then ``header: value`` lines."""
    rows = []
    for m in rep.modes:
        rows.append((m.kind, combination_text(m.vector), str(len(m.trace)), m.meaning, closed_text(m.closed_by),
                     costs_text(m.closed_at_a_cost)))
    return NameTable("", ("breaking action", "combination", "steps", "meaning", "closed by", "closed only at a cost"),
                     rows, name_columns=(0, 4), justify={2: "right"})


def vectors_table(rep: Any) -> NameTable:
    rows = []
    for v in rep.vectors:
        style = {"holds": "green", "violated": "bold red"}.get(v.status, "yellow")
        rows.append((combination_text(v.vector), Text(v.status, style=style),
                     str(len(v.trace)) if v.trace is not None else ""))
    return NameTable(vector_note(rep), ("budgets", "verdict", "steps"), rows, justify={2: "right"})


SETTING_KNOBS = ("broker_role", "flush_disk_type")
HOLDS_WITHIN = "holds within the bounds"


def setting_text(setting: dict[str, Any]) -> str:
    """``SYNC_MASTER + ASYNC_FLUSH``: a 4.4 durability setting as its values are typed; another mode's row as
    its changes (``all_ack_in_sync_state_set=true, min_in_sync_replicas=2``)."""
    if set(setting) == set(SETTING_KNOBS):
        return " + ".join(str(setting[k]) for k in SETTING_KNOBS)
    return change_text(setting)


def cell_text(cell: Any, why: str = "") -> str:
    """A decision-table cell: the smallest failure combinations that break the property, or that it holds."""
    if cell is None:
        return f"not settled ({why})" if why else "not settled"
    if not cell:
        return HOLDS_WITHIN
    return "; ".join(combination_text(v) for v in cell)


def row_cell_text(report: Any, row: Any, name: str) -> str:
    """A row's cell, and where its verdict moves at the next bound (``faults --grow``), what it is there."""
    text = cell_text(row.cells[name], row.why)
    moved = getattr(row, "moves", {}).get(name)
    return f"{text}; {moved} {grown_text(report.next_bound)}" if moved else text


def table_title(report: Any) -> str:
    """``per durability setting``: what the decision table's rows are, by the report's model mode."""
    from model.modes import get_mode, mode_name_of
    return get_mode(mode_name_of(report.config)).faults().table_title


def decision_table(report: Any) -> WholeNames:
    """Durability settings down, always properties across; where the width would cut a name, per setting
    ``property: cell`` lines."""
    names = list(report.table[0].cells) if report.table else []
    title = f"what breaks each guarantee, {table_title(report)} (within {bounds_text(report.bounds)})"
    t = Table(title=title, title_justify="left", show_lines=True)
    t.add_column("setting", style="bold", no_wrap=True)
    for name in names:
        t.add_column(name)
    rows = []
    for row in report.table:
        label = setting_text(row.setting)
        if "message_acked" in report.reached and "message_acked" not in row.reached and row.cells:
            label += " (never acks)"
        cells = [Text(row_cell_text(report, row, n), style="green" if row.cells[n] == [] and n not in row.moves
                      else "") for n in names]
        t.add_row(label, *cells)
        rows.append((label, *cells))
    stacked = NameTable(title, ("setting", *names), rows)
    return WholeNames(t, set(names) | {r[0] for r in rows}, stacked)


def render_console(out: Console, report: Any, config_text: str, traces: str) -> None:
    out.print(f"[bold]rmqcheck faults[/bold]: {escape_markup(config_text)}")
    if report.bounds:
        out.print(f"[bold]bounds[/bold]: {bounds_text(report.bounds)}")
    if report.table:
        out.print(decision_table(report))
    if report.stats is not None:
        s = report.stats
        on = "" if report.engine == "local" else f" on the {report.engine} engine"
        out.print(f"one exhaustive exploration with the full budgets{on}: {s.distinct_states:,} states, "
                  f"{s.transitions:,} transitions, depth {s.depth}, {s.seconds:.2f} s"
                  + (f", peak RSS {human_bytes(s.peak_rss_bytes)}" if s.peak_rss_bytes else "")
                  + (f" ({s.bytes_per_state:,.0f} bytes a state added)" if s.bytes_per_state else "")
                  + (f", {human_bytes(s.disk_bytes)} on disk" if s.disk_bytes else ""))
    if report.next_bound:
        out.print(f"[bold]next bound[/bold]: {next_bound_header(report.next_bound)}")
    if report.reached or report.stats is not None:
        reached = ", ".join(report.reached) or "none"
        out.print(f"availability reached (a closing change must keep it): {reached}")
    for rep in report.properties:
        out.print()
        out.print(_status_line(rep))
        if rep.kind in PER_VECTOR:
            out.print(vectors_table(rep))
            if traces != "none":
                for v in rep.vectors:
                    if v.trace is not None:
                        _print_trace(out, report, rep.name, v.trace, f"{rep.name} with budgets {combination_text(v.vector)}",
                                     getattr(v, "loop_start", None))
            continue
        if rep.modes:
            out.print(modes_table(rep))
        if rep.at_next_bound is not None:
            out.print(next_bound_text(report, rep))
        if rep.status == "violated":
            out.print(f"holds with, within the same bounds: {holds_with_text(report, rep)}")
            for c in rep.holds_at_a_cost:
                out.print(f"holds only at a cost with {{{change_text(c.change)}}} (cost: {'; '.join(c.costs)})")
        if traces == "all":
            for c in rep.combinations:
                _print_trace(out, report, rep.name, c.trace, f"{rep.name}: shortest with {combination_text(c.vector)}")
        if traces in ("all", "violated"):
            for m in rep.modes:
                _print_trace(out, report, rep.name, m.trace, f"{rep.name}: {m.kind} with {combination_text(m.vector)}")
    out.print()
    out.print(summary_line(report))


def _print_trace(out: Console, report: Any, name: str, trace: Any, title: str, loop_start: int | None = None) -> None:
    """A trace as ``check`` prints it: the steps (an eventually property's lasso marked from ``loop_start``),
    then why its last state breaks the property."""
    out.print(trace_table(trace, f"{title} ({len(trace)} steps)", loop_start))
    e = explanation_of(report, name, trace)
    if e is not None:
        out.print(explanation_table(e))


def explanation_of(report: Any, name: str, trace: Any, grown: dict[str, Any] | None = None) -> Any:
    """Why ``trace``'s last state breaks ``name`` (invariants/explain.py), under the report's configuration
    (with the counts of ``grown`` for a trace of the next bound)."""
    from invariants.explain import explain, explainers, model_for
    from model.modes import get_mode, mode_name_of
    if not report.config:
        return None
    mode = get_mode(mode_name_of(report.config))   # every mode explains its own properties
    if name not in explainers(mode.name).conditions:
        return None
    counts = {k: v for k, v in (grown or {}).items() if k != "budgets"}
    cfg = mode.from_mapping({k: v for k, v in {**report.config, **counts}.items() if k != "mode"})
    return explain(name, trace, model_for(cfg))


def _status_line(rep: Any) -> str:
    """The property's name and status, once, with its minimal combinations."""
    head = f"[bold]{rep.name}[/bold]: {rep.status}"
    if rep.kind in PER_VECTOR or not rep.combinations:
        return f"{head} ({escape_markup(rep.summary)})"
    combos = "; ".join(f"{combination_text(c.vector)} ({len(c.trace)} steps)" for c in rep.combinations)
    return f"{head}; minimal combinations: {combos}"


def summary_line(report: Any) -> str:
    modes = sum(len(getattr(r, "modes", [])) for r in report.properties)
    where = "Spark task slot(s)" if report.sweep_engine == "spark" else "job(s)"
    text = f"{report.outcome}: {modes} failure mode(s)"
    if report.bounds:
        text += f" within {bounds_text(report.bounds)}"
    text += f"; sweep: {report.configurations} configuration(s) on {report.jobs} {where}"
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
    from model.modes import MODES, mode_name_of

    model = MODES[mode_name_of(report.config)].model_name() if report.config else ""
    d: dict[str, Any] = {"tool": TOOL, "version": version(), "command": "faults", "model": model,
                         "config": report.config,
                         "engine": report.engine, "outcome": report.outcome,
                         "properties": [_property_dict(report, r) for r in report.properties],
                         "bounds": report.bounds,
                         **({"next_bound": report.next_bound} if report.next_bound else {}),
                         **({"table": _table_dict(report)} if report.table else {}),
                         "availability": {"reached": list(report.reached)},
                         "sweep": {"configurations": report.configurations, "jobs": report.jobs,
                                   "engine": report.sweep_engine, "stopped": report.stopped,
                                   "unsettled": report.unsettled, "sets_tried": report.sets_tried,
                                   "sets_total": report.sets_total}}
    if report.stats is not None:
        s = report.stats
        d["stats"] = {"distinct_states": s.distinct_states, "transitions": s.transitions, "depth": s.depth,
                      "seconds": round(s.seconds, 6), "peak_rss_bytes": s.peak_rss_bytes,
                      "bytes_per_state": s.bytes_per_state, "disk_bytes": s.disk_bytes}
    if report.fairness is not None:   # the eventually properties' verdicts were decided under it
        d["fairness"] = {"mode": report.fairness.mode, "unfair": list(report.fairness.unfair)}
    if report.incomplete_reason:
        d["incomplete_reason"] = report.incomplete_reason
    if report.error:
        d["error"] = {"message": report.error}
    return d


def _traced(report: Any, name: str, trace: Any, grown: dict[str, Any] | None = None) -> dict[str, Any]:
    """``trace`` and, where the property has an explainer, its ``explanation`` as ``check --json`` has it
    (``grown``: the trace is one of the next bound, whose counts these bounds give)."""
    d: dict[str, Any] = {"trace": trace_to_list(trace)}
    e = explanation_of(report, name, trace, grown)
    if e is not None:
        d["explanation"] = e.to_dict()
    return d


def _property_dict(report: Any, rep: Any) -> dict[str, Any]:
    if rep.kind in PER_VECTOR:
        return {"name": rep.name, "kind": rep.kind, "status": rep.status, "note": vector_note(rep),
                "vectors": [{"budgets": combination(v.vector), "status": v.status,
                             **(_traced(report, rep.name, v.trace) if v.trace is not None else {}),
                             **({"loop_start": v.loop_start} if getattr(v, "loop_start", None) is not None else {})}
                            for v in rep.vectors]}
    return {"name": rep.name, "kind": "always", "status": rep.status,
            "combinations": [{"combination": combination(c.vector), "length": len(c.trace),
                              **_traced(report, rep.name, c.trace)} for c in rep.combinations],
            "modes": [{"combination": combination(m.vector), "breaking_action": m.kind, "length": len(m.trace),
                       "meaning": m.meaning, **_traced(report, rep.name, m.trace), "closed_by": m.closed_by,
                       "closed_at_a_cost": [_costly(c) for c in m.closed_at_a_cost]}
                      for m in rep.modes],
            "holds_with": rep.holds_with,
            "holds_at_a_cost": [_costly(c) for c in rep.holds_at_a_cost],
            **({"at_next_bound": _next_bound_dict(report, rep)} if rep.at_next_bound is not None else {})}


def _table_dict(report: Any) -> list[dict[str, Any]]:
    """Per durability setting: per property ``holds`` / ``violated`` / ``unknown`` and the minimal
    combinations that break it."""
    out = []
    for row in report.table:
        cells = {}
        for name, cell in row.cells.items():
            status = "unknown" if cell is None else ("violated" if cell else "holds")
            cells[name] = {"status": status, "combinations": [combination(v) for v in cell or []],
                           **({"at_next_bound": row.moves[name]} if name in row.moves else {})}
        out.append({"setting": row.setting, "properties": cells, "availability": {"reached": list(row.reached)},
                    **({"unsettled": row.why} if row.why else {})})
    return out


def _next_bound_dict(report: Any, rep: Any) -> dict[str, Any]:
    nb = rep.at_next_bound
    return {"grow": report.next_bound["grow"], "bounds": report.next_bound["bounds"], "status": nb.status,
            "same": nb.same,
            "combinations": [{"combination": combination(c.vector), "length": len(c.trace),
                              **_traced(report, rep.name, c.trace, report.next_bound["bounds"])}
                             for c in nb.combinations],
            "modes": [{"combination": combination(m.vector), "breaking_action": m.kind, "length": len(m.trace),
                       "meaning": m.meaning, **_traced(report, rep.name, m.trace, report.next_bound["bounds"])}
                      for m in nb.modes],
            "gone_combinations": [combination(v) for v in nb.gone_combinations],
            "gone_modes": [{"breaking_action": k, "combination": combination(v)} for k, v in nb.gone_modes]}


def _costly(c: Any) -> dict[str, Any]:
    return {"change": c.change, "costs": list(c.costs)}


def faults_json(report: Any, name: str = "") -> str:
    """``name``: how reports title the configuration (``rmqcheck report`` titles its document so again)."""
    return json.dumps({**report_to_dict(report), **({"name": name} if name else {})}, indent=2) + "\n"


def faults_report(path: str | Path, report: Any, name: str, config_text: str) -> str:
    """The Markdown or HTML report (by ``path``'s extension), with every trace (reports/faults_document.py)."""
    from .document import report_format
    from .faults_document import render_html, render_markdown
    render = render_html if report_format(path) == "html" else render_markdown
    return render(report, name, config_text)
