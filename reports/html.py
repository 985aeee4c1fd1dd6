"""The HTML trace report: one self-contained page (inline style and SVG, no script, no external resource).

Built to be read, on a desktop or a phone: a header with the command that reproduces the run and the
rmqcheck version, a table of contents, for several configurations the matrix of verdicts, then per
configuration its verdicts (each linking to its trace) and its traces. A trace shows why it ends in a
violation (invariants/explain.py), a message-sequence diagram (reports/sequence.py), and one collapsible
``<details>`` per step: the action, its outcome and the changed fields always shown, the full state on
demand. Wide content (tables, diagrams) scrolls inside its own box, so the page never scrolls sideways.
"""
from __future__ import annotations

from html import escape
from typing import Any

from explore.result import S_VIOLATED, ModelError, PropertyResult, Trace

from .document import (ReportSection, anchor, coverage_rows, defaults_of, explanation, never_enabled_text,
                       stats_rows, terminal_title, trace_title, traced, value_text, when)
from .json_report import version
from .sequence import SVG_STYLE, diagram, loop_label, svg

STYLE = """
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0 auto; padding: 1em 2em; max-width: 82em; color: #222;
       line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #dde; padding-bottom: 0.2em; margin-top: 2em; }
a { color: #0b5cad; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.92em; }
pre.command { background: #f6f8fa; border: 1px solid #dde; padding: 0.6em; white-space: pre-wrap;
              overflow-wrap: anywhere; }
.wide { overflow-x: auto; max-width: 100%; }
td.num { text-align: right; }
code.name { white-space: nowrap; font-weight: bold; }
.meaning { color: #444; font-size: 0.92em; }
.kind { font-style: italic; }
td.violated a, td.unreached a, td.holds a, td.reached a { color: inherit; }
.violated, .unreached { color: #b00020; font-weight: bold; }
.holds, .reached { color: #1b7f2a; font-weight: bold; }
.unknown { color: #a06000; font-weight: bold; }
.outcome { color: #7a2a8a; font-style: italic; }
.field { color: #006080; }
mark { background: #fff2a8; font-weight: bold; }
nav.toc ol { padding-left: 1.4em; } nav.toc li { margin: 0.15em 0; }
article.trace { border: 1px solid #dde; border-radius: 6px; padding: 0.2em 1em 1em; margin: 1.2em 0; }
article.trace h4 { margin: 0.6em 0; font-size: 1.1em; }
.explanation { background: #fff5f5; border-left: 4px solid #b00020; padding: 0.5em 0.9em; margin: 0.6em 0; }
.explanation ul { margin: 0.3em 0; padding-left: 0; list-style: none; }
.explanation li { padding-left: 1.2em; text-indent: -1.2em; margin: 0.2em 0; }
.explanation li.failed { color: #8a0018; }
.explanation li.holds { color: #555; }
.diagram { overflow-x: auto; margin: 0.6em 0; border: 1px solid #eee; }
.scroll-hint { display: none; color: #666; font-size: 0.85em; margin: 0.3em 0 0; }
details.step { border-top: 1px solid #eee; padding: 0.3em 0; }
details.step > summary { cursor: pointer; }
details.step .change { display: block; margin-left: 2.2em; overflow-wrap: anywhere; }
details.step .num { display: inline-block; min-width: 1.8em; font-weight: bold; }
details.step .action { font-weight: bold; }
details.step table { margin-left: 2.2em; }
tr.changed td { background: #fff8d0; }
@media (max-width: 600px) {
  body { padding: 0.5em 0.7em; }
  th, td { padding: 0.2em 0.35em; }
  code.name { white-space: normal; }
  .scroll-hint { display: block; }
  details.step .change, details.step table { margin-left: 0.6em; }
}
""" + SVG_STYLE


def _name(text: str) -> str:
    """A property or field name that may break after an underscore or a dot on a narrow screen."""
    return escape(text).replace("_", "_<wbr>").replace(".", ".<wbr>")


def _kv_table(rows: list[tuple[str, str]], code_keys: bool = False, changed: frozenset[str] = frozenset()) -> str:
    out = ["<div class='wide'><table>"]
    for k, v in rows:
        key = f"<code>{_name(k)}</code>" if code_keys else escape(k)
        cls = " class='changed'" if k in changed else ""
        out.append(f"<tr{cls}><th>{key}</th><td>{escape(v)}</td></tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _change(field: str, before: Any, after: Any) -> str:
    return (f"<span class='change'><code class='field'>{_name(field)}</code>: {escape(value_text(before))} "
            f"&rarr; <mark>{escape(value_text(after))}</mark></span>")


def _steps(trace: Trace) -> list[str]:
    """One ``<details>`` per step: the summary shows the action, outcome and changed fields; opening it shows
    the full state after the step."""
    out = ["<div class='steps'>"]
    for step in trace.steps:
        outcome = f" <span class='outcome'>{escape(step.outcome)}</span>" if step.outcome else ""
        if step.index == 0:
            changes = "<span class='change'><i>the initial state (open for every field)</i></span>"
        else:
            changes = "".join(_change(f, b, a) for f, (b, a) in step.changes.items()) or \
                "<span class='change'><i>no field changed</i></span>"
        out.append(f"<details class='step'><summary><span class='num'>{step.index}</span>"
                   f"<code class='action'>{escape(step.action)}</code>{outcome}{changes}</summary>")
        out.append(_kv_table([(k, value_text(v)) for k, v in step.view.items()], code_keys=True,
                             changed=frozenset(step.changes)))
        out.append("</details>")
    out.append("</div>")
    return out


def _explanation(p: PropertyResult, s: ReportSection) -> list[str]:
    e = explanation(p, s.result)
    if e is None:
        return []
    out = ["<div class='explanation'><b>Why it is violated:</b>", "<ul>"]
    for c in e.conditions:
        mark = "&#x2717;" if not c.holds else "&#x2713;"
        out.append(f"<li class='{'holds' if c.holds else 'failed'}'>{mark} {escape(c.text)}</li>")
    out.append("</ul>")
    changed = ", ".join(f"<code>{_name(f)}</code> {when(i)}" for f, i in e.last_changed.items())
    out += [f"<p>Deciding fields last changed: {changed}.</p>", "</div>"]
    return out


def _trace_article(p: PropertyResult, index: int, s: ReportSection) -> list[str]:
    trace = p.trace
    title = trace_title(p)
    out = [f"<article class='trace' id='{anchor(index, p.name)}'>",
           f"<h4 class='{escape(p.status)}'>{_name(title)}</h4>", f"<p>{escape(p.summary)}</p>"]
    if p.note:
        out.append(f"<p><i>{escape(p.note)}</i></p>")
    out += _explanation(p, s)
    d = diagram(trace, witness=p.status != S_VIOLATED, loop_start=p.loop_start)
    out += ["<p class='scroll-hint'>The diagram is wider than the screen: swipe it sideways for every "
            "process.</p>", f"<div class='diagram'>{svg(d, f'sequence diagram of {title}')}</div>"]
    if p.loop_start is not None:
        out.append(f"<p class='loop'>↻ {escape(loop_label(d))}</p>")
    out += _steps(trace)
    out.append("</article>")
    return out


def _terminal_article(r: Any, index: int) -> list[str]:
    title = terminal_title(r)
    return ([f"<article class='trace' id='{anchor(index, 'terminal')}'>", f"<h4>{escape(title)}</h4>",
             "<p>The shortest path to a state where no action is enabled (the smallest such state at its "
             "depth).</p>",
             f"<div class='diagram'>{svg(diagram(r.terminal_trace, witness=True), title)}</div>"]
            + _steps(r.terminal_trace) + ["</article>"])


def _coverage(r: Any, index: int) -> list[str]:
    """Per action kind, the transitions it produced and the new states among them."""
    if not r.stats.coverage:
        return []
    out = [f"<h3 id='{anchor(index, 'coverage')}'>Coverage</h3>", "<div class='wide'><table>",
           "<tr><th>action kind</th><th>transitions</th><th>new states</th></tr>"]
    for kind, transitions, new in coverage_rows(r):
        cls = " class='unknown'" if transitions == 0 else ""
        out.append(f"<tr><td><code class='name'>{escape(kind)}</code></td><td class='num'{cls}>{transitions:,}</td>"
                   f"<td class='num'>{new:,}</td></tr>")
    out.append("</table></div>")
    never = never_enabled_text(r)
    return out + ([f"<p class='unknown'>{escape(never)}</p>"] if never else [])


def _error(e: ModelError, index: int) -> list[str]:
    out = [f"<h3 id='{anchor(index, 'model-error')}'>Path to the model error</h3>", f"<p>{escape(e.message)}</p>"]
    if e.trace is not None:
        out += [f"<div class='diagram'>{svg(diagram(e.trace), 'path to the model error')}</div>"] + _steps(e.trace)
    return out


def _verdicts(s: ReportSection, index: int) -> list[str]:
    out = [f"<h3 id='{anchor(index, 'verdicts')}'>Verdicts</h3>", "<div class='wide'><table>",
           "<tr><th>property: kind, meaning</th><th>verdict</th><th>trace</th></tr>"]
    for p in s.result.properties:
        trace = (f"<a href='#{anchor(index, p.name)}'>{len(p.trace)}&nbsp;steps</a>" if p.trace is not None
                 else "")
        meaning = escape(p.summary) + (f" <i>({escape(p.note)})</i>" if p.note else "")
        out.append(f"<tr><td><code class='name'>{_name(p.name)}</code><br><span class='meaning'>"
                   f"<span class='kind'>{escape(p.kind)}</span>: {meaning}</span></td>"
                   f"<td class='{escape(p.status)}'>{escape(p.status)}</td><td class='num'>{trace}</td></tr>")
    out.append("</table></div>")
    return out


def _section_head(s: ReportSection, index: int) -> list[str]:
    """A configuration's heading, its knobs in one line, its outcome and its verdicts: what a reader
    comes for, on the first screen."""
    r = s.result
    out = [f"<section id='{anchor(index)}'><h2>Configuration <code>{escape(s.name)}</code></h2>",
           f"<p>Knobs that differ from {escape(defaults_of(r.config))}: {escape(s.config_text)}</p>",
           f"<p>Outcome: <span class='{escape(r.outcome)}'>{escape(r.outcome)}</span>"
           f"{' (' + escape(r.incomplete_reason) + ')' if r.incomplete_reason else ''}</p>"]
    return out + _verdicts(s, index)


def _section_body(s: ReportSection, index: int) -> list[str]:
    """Every knob, the statistics, the coverage and the traces, after the verdicts."""
    r = s.result
    out = ["<details><summary>every knob</summary>",
           _kv_table([(k, value_text(v)) for k, v in r.config.items()], code_keys=True),
           "</details>", f"<h3 id='{anchor(index, 'statistics')}'>Statistics</h3>", _kv_table(stats_rows(r))]
    out += _coverage(r, index)
    props = traced(r)
    if props or r.terminal_trace is not None:
        out += [f"<h3 id='{anchor(index, 'traces')}'>Traces</h3>",
                "<p>Each trace starts from the initial state (step 0). The diagram draws each step as messages "
                "between the processes (dashed: a reply; a cross: lost or refused; a red dashed lifeline: the "
                "process is down); the highlighted step ends the trace. Below it, each step shows its action, "
                "its outcome and the fields it changed; open a step for the full state after it.</p>"]
        for p in props:
            out += _trace_article(p, index, s)
        if r.terminal_trace is not None:
            out += _terminal_article(r, index)
    if r.error is not None:
        out += _error(r.error, index)
    out.append("</section>")
    return out


def _toc(sections: list[ReportSection]) -> list[str]:
    out = ["<nav class='toc'><h2>Contents</h2><ol>"]
    if len(sections) > 1:
        out.append("<li><a href='#matrix'>Verdicts per configuration</a></li>")
    for i, s in enumerate(sections):
        out.append(f"<li><a href='#{anchor(i)}'>Configuration <code>{escape(s.name)}</code></a>"
                   f" &mdash; <span class='{escape(s.result.outcome)}'>{escape(s.result.outcome)}</span><ol>")
        out.append(f"<li><a href='#{anchor(i, 'verdicts')}'>Verdicts</a></li>")
        for p in traced(s.result):
            out.append(f"<li><a href='#{anchor(i, p.name)}'>{escape(trace_title(p))}</a></li>")
        if s.result.stats.coverage:
            out.append(f"<li><a href='#{anchor(i, 'coverage')}'>Coverage</a></li>")
        if s.result.terminal_trace is not None:
            out.append(f"<li><a href='#{anchor(i, 'terminal')}'>{escape(terminal_title(s.result))}</a></li>")
        if s.result.error is not None:
            out.append(f"<li><a href='#{anchor(i, 'model-error')}'>Path to the model error</a></li>")
        out.append("</ol></li>")
    out.append("</ol></nav>")
    return out


def _matrix(sections: list[ReportSection]) -> list[str]:
    """Properties down, configurations across; each cell the verdict, linking to its trace."""
    names = list(dict.fromkeys(p.name for s in sections for p in s.result.properties))
    out = ["<h2 id='matrix'>Verdicts per configuration</h2>", "<div class='wide'><table class='matrix'>",
           "<tr><th>property</th>" + "".join(f"<th><a href='#{anchor(i)}'>{escape(s.name)}</a></th>"
                                             for i, s in enumerate(sections)) + "</tr>"]
    for name in names:
        cells = []
        for i, s in enumerate(sections):
            found = [p for p in s.result.properties if p.name == name]
            if not found:
                cells.append("<td>-</td>")
                continue
            p = found[0]
            text = escape(p.status) + (f" ({len(p.trace)})" if p.trace is not None else "")
            if p.trace is not None:
                text = f"<a href='#{anchor(i, p.name)}'>{text}</a>"
            cells.append(f"<td class='{escape(p.status)}'>{text}</td>")
        out.append(f"<tr><th><code class='name'>{_name(name)}</code></th>{''.join(cells)}</tr>")
    out.append("<tr><th>outcome</th>" + "".join(f"<td class='{escape(s.result.outcome)}'>{escape(s.result.outcome)}"
                                                 "</td>" for s in sections) + "</tr>")
    out.append("</table></div>")
    return out


def render_html(sections: list[ReportSection], title: str, command: str = "") -> str:
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{escape(title)}</title>", f"<style>{STYLE}</style></head><body>",
           f"<header><h1>{escape(title)}</h1>",
           f"<p>Written by rmqcheck {escape(version())}. Traces are shortest (breadth-first) unless a note says "
           "otherwise.</p>"]
    if command:
        out.append(f"<p>Reproduce this run with:</p><pre class='command'><code>{escape(command)}</code></pre>")
    out.append("</header>")
    # the verdicts first: one configuration's own table, or the matrix of several, then the contents
    if len(sections) == 1:
        out += _section_head(sections[0], 0) + _toc(sections) + _section_body(sections[0], 0)
    else:
        out += _matrix(sections) + _toc(sections)
        for i, s in enumerate(sections):
            out += _section_head(s, i) + _section_body(s, i)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
