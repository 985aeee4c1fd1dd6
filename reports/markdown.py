"""The Markdown trace report: plain tables that read well as text and render on any forge.

Each trace has its explanation (for a violation), a Mermaid ``sequenceDiagram`` block (drawn by forges that
render Mermaid, readable as text elsewhere) and the table of its steps.
"""
from __future__ import annotations

from explore.result import S_VIOLATED, PropertyResult, Trace

from .document import (ReportSection, coverage_rows, defaults_of, explanation, never_enabled_text, stats_rows,
                       terminal_title, trace_title, traced, value_text, when)
from .json_report import version
from .sequence import diagram, loop_label, mermaid


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else _cell(text)


def _trace(trace: Trace) -> list[str]:
    lines = ["| # | action | outcome | changed fields (before → after) |", "|---:|---|---|---|"]
    for step in trace.steps:
        if step.index == 0:
            changes = "initial state (see above)"
        else:
            changes = "<br>".join(f"{_code(field)}: {_cell(value_text(before))} → **{_cell(value_text(after))}**"
                                  for field, (before, after) in step.changes.items()) or "(no field changed)"
        lines.append(f"| {step.index} | {_code(step.action)} | {_cell(step.outcome)} | {changes} |")
    return lines


def _explanation(p: PropertyResult, s: ReportSection) -> list[str]:
    e = explanation(p, s.result)
    if e is None:
        return []
    out = ["**Why it is violated:**", ""]
    out += [f"- {'✗' if not c.holds else '✓'} {_cell(c.text)}" for c in e.conditions]
    changed = ", ".join(f"`{f}` {when(i)}" for f, i in e.last_changed.items())
    return out + ["", f"Deciding fields last changed: {changed}.", ""]


def _diagram(trace: Trace, witness: bool, loop_start: int | None = None) -> list[str]:
    return ["```mermaid", mermaid(diagram(trace, witness, loop_start)), "```", ""]


def _section(s: ReportSection, heading: str) -> list[str]:
    r = s.result
    out = [f"{heading} Configuration `{s.name}`", "",
           f"Knobs that differ from {defaults_of(r.config)}: {s.config_text}", "",
           f"Outcome: **{r.outcome}**" + (f" ({r.incomplete_reason})" if r.incomplete_reason else "")]
    # the verdicts first, then every knob, the statistics and the coverage
    out += ["", f"{heading}# Verdicts", "", "| property | kind | verdict | trace steps | meaning |",
            "|---|---|---|---:|---|"]
    for p in r.properties:
        steps = str(len(p.trace)) if p.trace is not None else ""
        meaning = p.summary + (f" ({p.note})" if p.note else "")
        out.append(f"| `{p.name}` | {p.kind} | **{p.status}** | {steps} | {_cell(meaning)} |")
    out += ["", "<details><summary>every knob</summary>", "", "| knob | value |", "|---|---|"]
    out += [f"| `{k}` | {_cell(value_text(v))} |" for k, v in r.config.items()]
    out += ["", "</details>", "", f"{heading}# Statistics", "", "| | |", "|---|---|"]
    out += [f"| {k} | {_cell(v)} |" for k, v in stats_rows(r)]
    out += _coverage(r, heading)
    props = traced(r)
    if props or r.terminal_trace is not None:
        first = (props[0].trace if props else r.terminal_trace).steps[0].view
        out += ["", f"{heading}# Traces", "",
                "Each trace starts from the INIT state below; each row is one action, its outcome, and only the "
                "fields it changed.", "", "<details><summary>initial state</summary>", "",
                "| field | value |", "|---|---|"]
        out += [f"| `{k}` | {_cell(value_text(v))} |" for k, v in first.items()]
        out += ["", "</details>"]
        for p in props:
            out += ["", f"{heading}## {_cell(trace_title(p))}", "", _cell(p.summary), ""]
            if p.note:
                out += [f"*{_cell(p.note)}*", ""]
            out += _explanation(p, s) + _diagram(p.trace, p.status != S_VIOLATED, p.loop_start) + _trace(p.trace)
            if p.loop_start is not None:
                out += ["", f"↻ {_cell(loop_label(diagram(p.trace, loop_start=p.loop_start)))}"]
        if r.terminal_trace is not None:
            out += ["", f"{heading}## {_cell(terminal_title(r))}", "",
                    "The shortest path to a state where no action is enabled (the smallest such state at its "
                    "depth).", ""] + _diagram(r.terminal_trace, True) + _trace(r.terminal_trace)
    if r.error is not None and r.error.trace is not None:
        out += ["", f"{heading}# Path to the model error", "", _cell(r.error.message), ""] + _trace(r.error.trace)
    return out


def _coverage(r, heading: str) -> list[str]:
    """Per action kind, the transitions it produced and the new states among them."""
    if not r.stats.coverage:
        return []
    out = ["", f"{heading}# Coverage", "", "| action kind | transitions | new states |", "|---|---:|---:|"]
    out += [f"| `{kind}` | {t:,} | {n:,} |" for kind, t, n in coverage_rows(r)]
    never = never_enabled_text(r)
    return out + (["", f"**{never}**"] if never else [])


def render_markdown(sections: list[ReportSection], title: str, command: str = "") -> str:
    lines = [f"# {title}", "", f"Written by rmqcheck {version()}. Traces are shortest (breadth-first) unless "
             "a note says otherwise.", ""]
    if command:
        lines += ["Reproduce this run with:", "", "```sh", command, "```", ""]
    heading = "##"
    for s in sections:
        lines += _section(s, heading) + [""]
    return "\n".join(lines)
