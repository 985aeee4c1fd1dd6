"""The HTML report puts the verdicts first: before the contents, the statistics and the coverage."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_driver import SMALL, invoke  # noqa: E402


def test_the_verdicts_come_before_the_contents_and_the_statistics(tmp_path):
    report = tmp_path / "r.html"
    result = invoke("check", *SMALL, "--report", str(report), "--quiet")
    assert result.exit_code == 1, result.stderr
    page = report.read_text()
    verdicts = page.index("id='cfg-0-verdicts'") if "id='cfg-0-verdicts'" in page else page.index(">Verdicts</h3>")
    assert "Outcome: <span class='violated'>violated</span>" in page[:verdicts]
    for later in ("<nav class='toc'>", ">Statistics</h3>", "<summary>every knob</summary>", ">Coverage"):
        assert verdicts < page.index(later), later


def test_the_markdown_report_puts_the_verdicts_first_too(tmp_path):
    report = tmp_path / "r.md"
    invoke("check", *SMALL, "--report", str(report), "--quiet")
    page = report.read_text()
    assert page.index("# Verdicts") < page.index("# Statistics") < page.index("# Traces")
    assert "Outcome: **violated**" in page[:page.index("# Verdicts")]
