"""The ``faults --report`` document, Markdown or HTML: what an operator reads top to bottom.

At the top the bounds the answers rest on, the availability the configuration gives, the next bound and
the decision table; then a contents list; then one section per property: its minimal combinations and
failure modes in tables whose rows link to their traces, what closes each mode (and what closes it only at
a cost), the sets it holds with, what changes at the next bound. Every trace is an article of its own with
an id, a link back to its table, why its last state breaks the property, a sequence diagram and its steps.
Wide tables and diagrams scroll inside their own box, so the page never scrolls sideways on a phone.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, Callable

from .faults import (HOLDS_WITHIN, PER_VECTOR, bounds_text, change_text, row_cell_text, closed_text, combination_text,
                     costs_text, explanation_of, grown_text, holds_with_text, next_bound_header, setting_text,
                     summary_line, table_title, vector_note)
from .document import defaults_of
from .json_report import version


@dataclass
class TraceItem:
    """One trace of the report: where it lives (``id``), what it is, and the table row that links to it."""

    id: str
    title: str
    trace: Any
    prop: str
    back: str          # the id of the table it is listed in
    meaning: str = ""
    grown: dict[str, Any] | None = None   # the next bound's counts, for a trace of the next bound
    loop_start: int | None = None   # an eventually property's lasso: the step its cycle repeats from


def property_id(name: str) -> str:
    return f"p-{name}"


def trace_items(report: Any, rep: Any) -> list[TraceItem]:
    """Every trace of one property, in the order of the document, each with its id."""
    pid = property_id(rep.name)
    if rep.kind in PER_VECTOR:
        return [TraceItem(f"{pid}-v{i + 1}", f"{rep.name} with budgets {combination_text(v.vector)}", v.trace,
                          rep.name, pid, loop_start=getattr(v, "loop_start", None))
                for i, v in enumerate(rep.vectors) if v.trace is not None]
    out = [TraceItem(f"{pid}-m{i + 1}", f"{rep.name}: {m.kind} with {combination_text(m.vector)}", m.trace,
                     rep.name, pid, m.meaning) for i, m in enumerate(rep.modes)]
    out += [TraceItem(f"{pid}-c{i + 1}", f"{rep.name}: shortest with {combination_text(c.vector)}", c.trace,
                      rep.name, pid) for i, c in enumerate(rep.combinations)]
    nb = rep.at_next_bound
    if nb is not None:
        grown = report.next_bound.get("bounds")
        where = grown_text(report.next_bound)
        out += [TraceItem(f"{pid}-nm{i + 1}", f"{rep.name} {where}: {m.kind} with {combination_text(m.vector)}",
                          m.trace, rep.name, pid, m.meaning, grown) for i, m in enumerate(nb.modes)]
        out += [TraceItem(f"{pid}-nc{i + 1}", f"{rep.name} {where}: shortest with {combination_text(c.vector)}",
                          c.trace, rep.name, pid, "", grown) for i, c in enumerate(nb.combinations)]
    return out


# -- HTML ------------------------------------------------------------------------------------------------
FAULTS_STYLE = """
.wide table { margin: 0; }
.wide { margin: 0.5em 0 1em; }
td a.trace-link { white-space: nowrap; }
a.back { font-size: 0.9em; }
.facts th { white-space: nowrap; }
.facts td { overflow-wrap: anywhere; }   /* a witness name is one long word: wrap it, not the page */
.costly { color: #8a4b00; }
@media (max-width: 600px) {
  /* on a phone each row of a wide table becomes a card: its cells one under another, each with its header */
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr:first-child { display: none; }
  table.cards tr { border: 1px solid #ccc; margin: 0 0 0.6em; }
  table.cards td { border: none; border-top: 1px solid #eee; }
  table.cards td::before { content: attr(data-label); display: block; font-size: 0.8em; color: #666; }
  table.cards td:empty { display: none; }
}
"""


def _code(text: str) -> str:
    """What a user types: kept whole where it fits, allowed to break after ``_``, ``=`` or ``,`` on a phone."""
    return f"<code>{escape(text).replace('_', '_<wbr>').replace(',', ',<wbr>')}</code>"


def _link(target: str, text: str) -> str:
    return f"<a class='trace-link' href='#{target}'>{escape(text)}</a>"


def _html_trace(report: Any, item: TraceItem) -> list[str]:
    from .html import _name, _steps
    from .sequence import diagram, svg
    # a title starts with a property name of up to 33 characters: it may break after its underscores
    out = [f"<article class='trace' id='{item.id}'>", f"<h4>{_name(item.title)} ({len(item.trace)} steps)</h4>",
           f"<p><a class='back' href='#{item.back}'>&uarr; back to {_name(item.prop)}</a></p>"]
    if item.meaning:
        out.append(f"<p>{escape(item.meaning)}</p>")
    e = explanation_of(report, item.prop, item.trace, item.grown)
    if e is not None:
        from .document import when
        out += ["<div class='explanation'><b>Why it breaks:</b>", "<ul>"]
        out += [f"<li class='{'holds' if c.holds else 'failed'}'>{'&#x2713;' if c.holds else '&#x2717;'} "
                f"{escape(c.text)}</li>" for c in e.conditions]
        changed = ", ".join(f"<code>{escape(f)}</code> {when(i)}" for f, i in e.last_changed.items())
        out += ["</ul>", f"<p>Deciding fields last changed: {changed}.</p>", "</div>"]
    d = diagram(item.trace, witness=False, loop_start=item.loop_start)
    if item.loop_start is not None:
        from .sequence import loop_label
        out.append(f"<p class='loop'>&#x21bb; {escape(loop_label(d))}</p>")
    out += ["<p class='scroll-hint'>The diagram is wider than the screen: swipe it sideways for every process.</p>",
            f"<div class='diagram'>{svg(d, f'sequence diagram of {item.title}')}</div>",
            *_steps(item.trace), "</article>"]
    return out


def _html_table(headers: list[str], rows: list[list[str]], numeric: tuple[int, ...] = (),
                labels: list[str] | None = None) -> list[str]:
    """A table; with ``labels`` (the headers as plain text) its rows become cards on a narrow screen."""
    cards = " class='cards'" if labels else ""
    out = [f"<div class='wide'><table{cards}>", "<tr>" + "".join(f"<th>{h}</th>" for h in headers) + "</tr>"]
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            label = f" data-label='{escape(labels[i])}'" if labels else ""
            cells.append(f"<td class='num'{label}>{c}</td>" if i in numeric else f"<td{label}>{c}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table></div>")
    return out


def _html_decision_table(report: Any) -> list[str]:
    names = list(report.table[0].cells)
    rows = []
    for row in report.table:
        cells = []
        for n in names:
            text = escape(row_cell_text(report, row, n))
            cells.append(f"<span class='holds'>{text}</span>" if row.cells[n] == [] and n not in row.moves else text)
        rows.append([_code(setting_text(row.setting)), *cells])
    return ["<h2 id='table'>Decision table</h2>",
            f"<p>What breaks each guarantee {table_title(report)}, the rest of the configuration as given, within "
            f"{escape(bounds_text(report.bounds))}: the smallest failure combinations, or "
            f"&ldquo;{HOLDS_WITHIN}&rdquo;.</p>",
            *_html_table(["setting", *[_code(n) for n in names]], rows, labels=["setting", *names])]


def _html_property(report: Any, rep: Any, items: list[TraceItem]) -> list[str]:
    pid = property_id(rep.name)
    out = [f"<section id='{pid}'>", f"<h2>{_code(rep.name)}: <span class='{rep.status}'>{rep.status}</span></h2>",
           f"<p>{escape(rep.summary)}</p>"]
    if rep.kind in PER_VECTOR:
        out.append(f"<p><i>{escape(vector_note(rep))}</i></p>")
        rows = [[escape(combination_text(v.vector)), f"<span class='{v.status}'>{v.status}</span>",
                 _link(f"{pid}-v{i + 1}", f"{len(v.trace)} steps") if v.trace is not None else ""]
                for i, v in enumerate(rep.vectors)]
        return out + _html_table(["budgets", "verdict", "trace"], rows) + ["</section>"]
    if rep.combinations:
        links = "; ".join(f"{escape(combination_text(c.vector))} ({_link(f'{pid}-c{i + 1}', f'{len(c.trace)} steps')})"
                          for i, c in enumerate(rep.combinations))
        out.append(f"<p>Minimal combinations of failures that break it: {links}.</p>")
    if rep.modes:
        rows = [[_link(f"{pid}-m{i + 1}", m.kind), escape(combination_text(m.vector)), str(len(m.trace)),
                 escape(m.meaning), escape(closed_text(m.closed_by)),
                 f"<span class='costly'>{escape(costs_text(m.closed_at_a_cost))}</span>" if m.closed_at_a_cost else ""]
                for i, m in enumerate(rep.modes)]
        headers = ["breaking action", "combination", "steps", "meaning", "closed by", "closed only at a cost"]
        out += _html_table(headers, rows, numeric=(2,), labels=headers)
    if rep.status == "violated":
        out.append(f"<p><b>Holds with</b>, within the same bounds: {escape(holds_with_text(report, rep))}</p>")
        for c in rep.holds_at_a_cost:
            out.append(f"<p class='costly'>Holds only at a cost with {escape(change_text(c.change))} "
                       f"(cost: {escape('; '.join(c.costs))})</p>")
    nb = rep.at_next_bound
    if nb is not None:
        from .faults import next_bound_text
        links = [_link(i.id, i.title.split(": ", 1)[-1]) for i in items if i.grown is not None]
        out.append(f"<p><b>At the next bound</b>: {escape(next_bound_text(report, rep).split(': ', 1)[1])}"
                   + (f" &mdash; traces: {', '.join(links)}" if links else "") + "</p>")
    out.append("</section>")
    return out


def render_html(report: Any, name: str, config_text: str) -> str:
    from .html import STYLE
    props = report.properties
    items = {rep.name: trace_items(report, rep) for rep in props}
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>rmqcheck faults report: {escape(name)}</title>", f"<style>{STYLE}{FAULTS_STYLE}</style></head><body>",
           f"<h1>rmqcheck faults report: {escape(name)}</h1>",
           f"<p>Written by rmqcheck {escape(version())}. Knobs that differ from {defaults_of(report.config)}: "
           f"{_code(config_text)}.</p>", "<div class='wide'><table class='facts'>"]
    facts = [("bounds", bounds_text(report.bounds)),
             ("availability", ", ".join(report.reached) or "none (no SEND_OK and no delivery is ever reached)")]
    if report.next_bound:
        facts.append(("next bound", next_bound_header(report.next_bound)))
    facts.append(("outcome", summary_line(report)))
    out += [f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts] + ["</table></div>"]
    out += ["<nav class='toc'><h2>Contents</h2><ol>"]
    if report.table:
        out.append("<li><a href='#table'>Decision table</a></li>")
    for rep in props:
        sub = "".join(f"<li><a href='#{i.id}'>{escape(i.title.split(': ', 1)[-1])}</a></li>" for i in items[rep.name])
        out.append(f"<li><a href='#{property_id(rep.name)}'>{_code(rep.name)}</a>: "
                   f"<span class='{rep.status}'>{rep.status}</span>" + (f"<ol>{sub}</ol>" if sub else "") + "</li>")
    out.append("</ol></nav>")
    if report.table:
        out += _html_decision_table(report)
    for rep in props:
        out += _html_property(report, rep, items[rep.name])
        for item in items[rep.name]:
            out += _html_trace(report, item)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# -- Markdown --------------------------------------------------------------------------------------------
def render_markdown(report: Any, name: str, config_text: str) -> str:
    from .markdown import _cell, _diagram, _trace
    props = report.properties
    items = {rep.name: trace_items(report, rep) for rep in props}
    link: Callable[[str, str], str] = lambda target, text: f"[{_cell(text)}](#{target})"   # noqa: E731
    out = [f"# rmqcheck faults report: {name}", "", f"Written by rmqcheck {version()}. Knobs that differ from "
           f"{defaults_of(report.config)}: `{config_text}`.", "",
           f"- **bounds**: {bounds_text(report.bounds)}",
           f"- **availability**: {', '.join(report.reached) or 'none'}"]
    if report.next_bound:
        out.append(f"- **next bound**: {_cell(next_bound_header(report.next_bound))}")
    out += [f"- **outcome**: {_cell(summary_line(report))}", "", "## Contents", ""]
    if report.table:
        out.append("- [Decision table](#table)")
    for rep in props:
        out.append(f"- {link(property_id(rep.name), rep.name)}: {rep.status}")
        out += [f"  - {link(i.id, i.title.split(': ', 1)[-1])}" for i in items[rep.name]]
    if report.table:
        names = list(report.table[0].cells)
        out += ["", "<a id='table'></a>", "", "## Decision table", "",
                f"Within {bounds_text(report.bounds)}, the rest of the configuration as given.", "",
                "| setting | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
        out += [f"| `{setting_text(r.setting)}` | " + " | ".join(_cell(row_cell_text(report, r, n)) for n in names)
                + " |" for r in report.table]
    for rep in props:
        pid = property_id(rep.name)
        out += ["", f"<a id='{pid}'></a>", "", f"## `{rep.name}`: {rep.status}", "", _cell(rep.summary), ""]
        if rep.kind in PER_VECTOR:
            out += [f"*{vector_note(rep)}*", "", "| budgets | verdict | trace |", "|---|---|---|"]
            out += [f"| {combination_text(v.vector)} | **{v.status}** | "
                    f"{link(f'{pid}-v{i + 1}', f'{len(v.trace)} steps') if v.trace is not None else ''} |"
                    for i, v in enumerate(rep.vectors)]
        else:
            if rep.combinations:
                out.append("Minimal combinations: " + "; ".join(
                    f"{combination_text(c.vector)} ({link(f'{pid}-c{i + 1}', f'{len(c.trace)} steps')})"
                    for i, c in enumerate(rep.combinations)))
                out.append("")
            if rep.modes:
                out += ["| breaking action | combination | steps | meaning | closed by | closed only at a cost |",
                        "|---|---|---:|---|---|---|"]
                out += [f"| {link(f'{pid}-m{i + 1}', m.kind)} | {combination_text(m.vector)} | {len(m.trace)} | "
                        f"{_cell(m.meaning)} | {_cell(closed_text(m.closed_by))} | {_cell(costs_text(m.closed_at_a_cost))} |"
                        for i, m in enumerate(rep.modes)]
            if rep.status == "violated":
                out += ["", f"**Holds with**, within the same bounds: {_cell(holds_with_text(report, rep))}"]
                out += [f"- holds only at a cost with `{change_text(c.change)}` (cost: {'; '.join(c.costs)})"
                        for c in rep.holds_at_a_cost]
            if rep.at_next_bound is not None:
                from .faults import next_bound_text
                out += ["", f"**At the next bound**: {_cell(next_bound_text(report, rep).split(': ', 1)[1])}"]
        for item in items[rep.name]:
            out += ["", f"<a id='{item.id}'></a>", "", f"### {item.title} ({len(item.trace)} steps)", "",
                    f"[back to {rep.name}](#{pid})", ""]
            if item.meaning:
                out += [_cell(item.meaning), ""]
            e = explanation_of(report, item.prop, item.trace, item.grown)
            if e is not None:
                from .document import when
                out += ["**Why it breaks:**", ""] + [f"- {'✗' if not c.holds else '✓'} {_cell(c.text)}"
                                                     for c in e.conditions]
                out += ["", "Deciding fields last changed: " + ", ".join(f"`{f}` {when(i)}"
                                                                        for f, i in e.last_changed.items()) + ".", ""]
            if item.loop_start is not None:
                from .sequence import diagram, loop_label
                out += [f"↻ {_cell(loop_label(diagram(item.trace, loop_start=item.loop_start)))}", ""]
            out += _diagram(item.trace, False, item.loop_start) + _trace(item.trace)
    return "\n".join(out) + "\n"


__all__ = ["render_html", "render_markdown", "trace_items"]
