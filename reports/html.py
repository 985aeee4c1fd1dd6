"""The HTML trace report: one self-contained page (inline style, no script, no external resource)."""
from __future__ import annotations

from html import escape

from explore.result import Trace

from .document import ReportSection, stats_rows, trace_title, traced, value_text
from .json_report import version

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
code { font-family: ui-monospace, monospace; }
td.num { text-align: right; }
.violated, .unreached { color: #b00020; font-weight: bold; }
.holds, .reached { color: #1b7f2a; font-weight: bold; }
.unknown { color: #a06000; font-weight: bold; }
.outcome { color: #7a2a8a; font-style: italic; }
.field { color: #006080; }
mark { background: #fff2a8; font-weight: bold; }
"""


def _trace(trace: Trace) -> list[str]:
    out = ["<table class='trace'>", "<tr><th>#</th><th>action</th><th>outcome</th>"
           "<th>changed fields (before &rarr; after)</th></tr>"]
    for step in trace.steps:
        if step.index == 0:
            changes = "<i>initial state (see above)</i>"
        else:
            changes = "<br>".join(
                f"<code class='field'>{escape(field)}</code>: {escape(value_text(before))} &rarr; "
                f"<mark>{escape(value_text(after))}</mark>" for field, (before, after) in step.changes.items())
        out.append(f"<tr><td class='num'>{step.index}</td><td><code>{escape(step.action)}</code></td>"
                   f"<td class='outcome'>{escape(step.outcome)}</td><td>{changes}</td></tr>")
    out.append("</table>")
    return out


def _kv_table(rows: list[tuple[str, str]], code_keys: bool = False) -> list[str]:
    out = ["<table>"]
    for k, v in rows:
        key = f"<code>{escape(k)}</code>" if code_keys else escape(k)
        out.append(f"<tr><th>{key}</th><td>{escape(v)}</td></tr>")
    out.append("</table>")
    return out


def _section(s: ReportSection) -> list[str]:
    r = s.result
    out = [f"<section><h2>Configuration <code>{escape(s.name)}</code></h2>",
           f"<p>Knobs that differ from the 4.4 defaults: {escape(s.config_text)}</p>",
           "<details><summary>every knob</summary>"]
    out += _kv_table([(k, value_text(v)) for k, v in r.config.items()], code_keys=True)
    out += ["</details>", "<h3>Statistics</h3>"] + _kv_table(stats_rows(r))
    out += ["<h3>Verdicts</h3>", "<table><tr><th>property</th><th>kind</th><th>verdict</th>"
            "<th>trace steps</th><th>meaning</th></tr>"]
    for p in r.properties:
        steps = str(len(p.trace)) if p.trace is not None else ""
        meaning = escape(p.summary) + (f" <i>({escape(p.note)})</i>" if p.note else "")
        out.append(f"<tr><td><code>{escape(p.name)}</code></td><td>{escape(p.kind)}</td>"
                   f"<td class='{escape(p.status)}'>{escape(p.status)}</td><td class='num'>{steps}</td>"
                   f"<td>{meaning}</td></tr>")
    out.append("</table>")
    props = traced(r)
    if props:
        out += ["<h3>Traces</h3>", "<p>Each trace starts from the INIT state below; each row is one action, its "
                "outcome, and only the fields it changed (new values highlighted).</p>",
                "<details><summary>initial state</summary>"]
        out += _kv_table([(k, value_text(v)) for k, v in props[0].trace.steps[0].view.items()], code_keys=True)
        out.append("</details>")
        for p in props:
            out += [f"<h4 class='{escape(p.status)}'>{escape(trace_title(p))}</h4>", f"<p>{escape(p.summary)}</p>"]
            if p.note:
                out.append(f"<p><i>{escape(p.note)}</i></p>")
            out += _trace(p.trace)
    if r.error is not None and r.error.trace is not None:
        out += ["<h3>Path to the model error</h3>", f"<p>{escape(r.error.message)}</p>"] + _trace(r.error.trace)
    out.append("</section>")
    return out


def render_html(sections: list[ReportSection], title: str) -> str:
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>", f"<title>{escape(title)}</title>",
           f"<style>{STYLE}</style></head><body>", f"<h1>{escape(title)}</h1>",
           f"<p>Written by rmqcheck {escape(version())}. Traces are shortest (breadth-first) unless a note says "
           "otherwise.</p>"]
    for s in sections:
        out += _section(s)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
