"""``rmqcheck report FILE.json --report OUT``: a saved result renders the same report again, without
exploring; a file that is not a result is bad input."""
from __future__ import annotations

import json

import pytest

from cli_driver import SMALL, assert_bad_input, invoke


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_a_saved_result_renders_the_report_it_was_written_with(tmp_path, suffix):
    saved, first, again = tmp_path / "default.json", tmp_path / f"first{suffix}", tmp_path / f"again{suffix}"
    assert invoke("check", *SMALL, "--json", str(saved), "--report", str(first), "--quiet").exit_code == 1
    result = invoke("report", str(saved), "--report", str(again))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"wrote {again}"

    def without_command(text):   # the re-rendered report has no command line to reproduce (no run happened)
        lines = text.splitlines()
        keep, skip = [], 0
        for line in lines:
            if "states/s" in line:   # the JSON keeps the rate to 0.1 state/s: its last digit may round apart
                continue
            if "Reproduce this run with" in line:
                skip = 5 if suffix == ".md" else 0
                continue
            if skip:
                skip -= 1
                continue
            keep.append(line)
        return keep

    assert without_command(again.read_text()) == without_command(first.read_text())
    rate = json.loads(saved.read_text())["stats"]["states_per_second"]
    assert f"{rate:,.0f}" in again.read_text()


def test_report_refuses_what_is_not_a_result(tmp_path, no_exploration):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"config": {}, "properties": []}))
    assert_bad_input(invoke("report", str(bad), "--report", str(tmp_path / "r.html")), "bad.json", "not a result of rmqcheck")
    bad.write_text("{")
    assert_bad_input(invoke("report", str(bad), "--report", str(tmp_path / "r.html")), "not valid JSON")
    assert_bad_input(invoke("report", str(bad), "--report", str(bad)), "--report")
    assert_bad_input(invoke("report", str(bad), "--report", str(tmp_path / "r.txt")), "--report")
