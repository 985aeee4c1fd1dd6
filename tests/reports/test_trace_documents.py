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
    for forbidden in ("<script", "<link", "src=", "http://", "https://"):
        assert forbidden not in page
    for p in traces(result):
        what = "counterexample" if p["status"] == "violated" else "witness"
        title = html.escape(f"{p['name']}: {p['status']} ({what}, {len(p['trace']) - 1} steps)")
        section = page.split(title)[1].split("</table>")[0]
        rows = section.split("<tr>")[2:]
        assert len(rows) == len(p["trace"])
        for step, row in zip(p["trace"], rows):
            assert f"<code>{html.escape(step['action'])}</code>" in row
            for field, (before, after) in step["changes"].items():
                assert f"<code class='field'>{html.escape(field)}</code>" in row
                assert "<mark>" in row


def test_matrix_report_has_a_section_per_configuration(tmp_path):
    md = tmp_path / "m.md"
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--report", str(md), "--quiet")
    assert r.exit_code == 1
    text = md.read_text()
    assert "## Configuration `default`" in text and "## Configuration `sync-master`" in text
    assert "broker_role=SYNC_MASTER" in text
