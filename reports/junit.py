"""The invariant gate's verdicts as JUnit XML (``rmqcheck gate --junit PATH``), for CI test reports.

One ``<testsuite>`` per baseline configuration, one ``<testcase>`` per property of it (classname
``rmqcheck.gate.<configuration>``), named with the verdict the baseline expects: ``replicas_agree (violated
in the baseline)``, so a green case of an expected violation reads as what it is, and its ``<system-out>`` says
"violated, as in the baseline" with the counterexample. A verdict that differs from the baseline is a
``<failure>`` whose message reads ``expected holds, got violated`` with why (the violated condition), and
whose text is the new trace, step by step, as ``rmqcheck check`` prints it; a configuration whose
exploration failed (a model error) gives every one of its test cases an ``<error>``.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from explore.result import ERROR, CheckResult, PropertyResult, Trace

from .bounds import bounds_text
from .console import fmt_value
from .files import write_text_atomic


def trace_text(trace: Trace) -> str:
    """A trace as plain text: one line per step, then one indented line per changed field."""
    lines = []
    for step in trace.steps:
        head = f"{step.index:>3}  {step.action}" + (f"  -> {step.outcome}" if step.outcome else "")
        lines.append(head)
        if step.index:
            lines += [f"       {field}: {fmt_value(before)} -> {fmt_value(after)}"
                      for field, (before, after) in step.changes.items()]
    return "\n".join(lines)


def failure_text(prop: PropertyResult | None, result: CheckResult) -> str:
    """What a flipped verdict's failure says beyond its message: the new trace, or why there is none."""
    if prop is None:
        return "the property is no longer checked in this configuration"
    if prop.trace is not None:
        what = "counterexample" if prop.status == "violated" else "witness"
        return f"new {what}, {len(prop.trace)} steps:\n{trace_text(prop.trace)}"
    return (f"no trace: {prop.name} is now {prop.status} over {result.stats.distinct_states:,} states"
            + (f" ({prop.note})" if prop.note else ""))


def why(prop: PropertyResult | None, result: CheckResult) -> str:
    """The one-line reason a property is violated (its explanation's summary), "" when there is none."""
    if prop is None or prop.trace is None:
        return ""
    from invariants.explain import explain_result
    explanation = explain_result(prop, result.config or {})
    return explanation.to_dict().get("summary", "") if explanation is not None else ""


def as_expected_text(prop: PropertyResult, result: CheckResult) -> str:
    """What a case whose verdict matches the baseline says: the verdict "as in the baseline", and its
    trace (counterexample or witness) when it has one."""
    text = f"{prop.status}, as in the baseline"
    reason = why(prop, result) if prop.status == "violated" else ""
    if reason:
        text += f": {reason}"
    if prop.trace is not None:
        what = "counterexample" if prop.status == "violated" else "witness"
        text += f"\n{what}, {len(prop.trace)} steps:\n{trace_text(prop.trace)}"
    return text


def gate_junit(runs: list[tuple[Any, CheckResult]]) -> ET.Element:
    """``runs``: (baseline entry, its result) per configuration, in baseline order."""
    root = ET.Element("testsuites", name="rmqcheck gate")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    for entry, result in runs:
        got = {p.name: p for p in result.properties}
        suite = ET.SubElement(root, "testsuite", name=entry.name, time=f"{result.stats.seconds:.3f}")
        version = (result.config or {}).get("rocketmq_version")
        if result.bounds or version:   # what the verdicts rest on, as check and faults state it
            props = ET.SubElement(suite, "properties")
        if version:   # the RocketMQ release checked
            ET.SubElement(props, "property", name="rocketmq_version", value=str(version))
        if result.bounds:
            ET.SubElement(props, "property", name="bounds", value=bounds_text(result.bounds))
            for key, value in result.bounds.items():
                if key != "budgets":
                    ET.SubElement(props, "property", name=key, value=str(value))
            for key, value in result.bounds["budgets"].items():
                ET.SubElement(props, "property", name=f"budget.{key}", value=str(value))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        for name, expected in entry.expect.items():
            case = ET.SubElement(suite, "testcase", classname=f"rmqcheck.gate.{entry.name}",
                                 name=f"{name} ({expected} in the baseline)")
            counts["tests"] += 1
            prop = got.get(name)
            if result.outcome == ERROR and result.error is not None:
                err = ET.SubElement(case, "error", type="ModelError",
                                    message=f"model error in action {result.error.action}: {result.error.message}")
                err.text = trace_text(result.error.trace) if result.error.trace is not None else ""
                counts["errors"] += 1
            elif prop is None or prop.status != expected:
                status = prop.status if prop is not None else "missing"
                reason = why(prop, result) if status == "violated" else ""
                failure = ET.SubElement(case, "failure", type="VerdictChanged",
                                        message=f"expected {expected}, got {status}" + (f": {reason}" if reason else ""))
                failure.text = failure_text(prop, result)
                counts["failures"] += 1
            else:
                ET.SubElement(case, "system-out").text = as_expected_text(prop, result)
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        for k in totals:
            totals[k] += counts[k]
        seconds += result.stats.seconds
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{seconds:.3f}")
    return root


def write_gate_junit(path: str | Path, runs: list[tuple[Any, CheckResult]]) -> None:
    root = gate_junit(runs)
    ET.indent(root)
    write_text_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")
