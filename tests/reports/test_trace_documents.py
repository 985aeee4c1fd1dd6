"""Markdown and HTML trace reports: self-contained, with the config, stats, verdicts and every trace."""
from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, invoke  # noqa: E402


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    d = tmp_path_factory.mktemp("reports")
    r = invoke("check", *SMALL, "--json", str(d / "r.json"), "--report", str(d / "r.md"), "--quiet")
    assert r.exit_code == 1, r.output
    invoke("check", *SMALL, "--report", str(d / "r.html"), "--quiet")
    return json.loads((d / "r.json").read_text()), (d / "r.md").read_text(), (d / "r.html").read_text()


def traces(result: dict) -> list[dict]:
    return [p for p in result["properties"] if "trace" in p]


def test_small_config_has_both_violations_and_witnesses(reports):
    result, _, _ = reports
    statuses = {p["status"] for p in traces(result)}
    assert statuses == {"violated", "reached"}


def test_markdown_report_has_every_trace(reports):
    result, md, _ = reports
    assert md.startswith("# rmqcheck report")
    assert "messages=1, max_master_crashes=0" in md
    assert "| distinct states | 7,470 |" in md   # 7,362 before the pending-correction / orphan-consumption change
    for p in result["properties"]:
        assert f"| `{p['name']}` | {p['kind']} | **{p['status']}** |" in md
    for p in traces(result):
        what = "counterexample" if p["status"] == "violated" else "witness"
        section = md.split(f"{p['name']}: {p['status']} ({what}, {len(p['trace']) - 1} steps)")[1]
        rows = [line for line in section.splitlines() if line.startswith("| ")][1:len(p["trace"]) + 1]
        for step, row in zip(p["trace"], rows):
            assert row.startswith(f"| {step['step']} | `{step['action']}` |"), row
            for field, (before, after) in step["changes"].items():
                assert f"`{field}`" in row, (field, row)


def test_html_report_is_self_contained_and_has_every_trace(reports):
    result, _, page = reports
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for forbidden in ("<script", "<link", "src=", "http://", "https://", "@import", "url("):
        assert forbidden not in page
    for p in traces(result):
        article = page.split(f"<article class='trace' id='c0-{p['name']}'>")[1].split("</article>")[0]
        what = "counterexample" if p["status"] == "violated" else "witness"
        assert html.escape(f"{p['name']}: {p['status']} ({what}, {len(p['trace']) - 1} steps)") in article
        assert article.count("<svg class='sequence'") == 1
        steps = article.split("<details class='step'>")[1:]
        assert len(steps) == len(p["trace"])
        for step, block in zip(p["trace"], steps):
            summary, full = block.split("</summary>")
            assert f"<span class='num'>{step['step']}</span><code class='action'>{html.escape(step['action'])}</code>" \
                in summary
            for field, (before, after) in step["changes"].items():   # changed fields: always shown
                assert f"<code class='field'>{field_html(field)}</code>" in summary
                assert "<mark>" in summary
            for field in step["state"]:                               # the full state: on demand
                assert f"<code>{field_html(field)}</code>" in full


def field_html(name: str) -> str:
    return html.escape(name).replace("_", "_<wbr>").replace(".", ".<wbr>")


def test_matrix_report_has_a_section_per_configuration(tmp_path):
    md = tmp_path / "m.md"
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--report", str(md), "--quiet")
    assert r.exit_code == 1
    text = md.read_text()
    assert "## Configuration `default`" in text and "## Configuration `sync-master`" in text
    assert "broker_role=SYNC_MASTER" in text
