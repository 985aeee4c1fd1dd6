"""The report's "Reproduce this run with" line repeats the run's options, not its output files: pasting it
must not overwrite the report it was copied from."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_driver import TINY, invoke  # noqa: E402


def test_the_reproduce_line_has_no_output_flags(tmp_path):
    report, data = tmp_path / "r.md", tmp_path / "r.json"
    result = invoke("check", *TINY, "--property", "replicas_agree", "--json", str(data), "--report", str(report),
                    "--itf", str(tmp_path / "itf"), "--quiet")
    assert result.exit_code == 0, result.stderr
    text = report.read_text()
    line = text[text.index("Reproduce this run with:"):].split("```sh\n", 1)[1].split("\n", 1)[0]
    assert line == ("rmqcheck check --set messages=1 --set max_master_crashes=0 --set max_master_power_losses=0 "
                    "--property replicas_agree --quiet")
