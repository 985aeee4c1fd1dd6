"""The installed entry point as a real process: exit codes, stdout/stderr, no traceback."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_driver import SMALL, TINY_ALWAYS, assert_bad_input, run_rmqcheck


def test_pass_violation_and_incomplete_exit_codes(tmp_path):
    passed = run_rmqcheck("check", *TINY_ALWAYS)
    assert passed.returncode == 0, passed.stderr
    assert "PASSED" in passed.stdout and passed.stderr == ""

    violated = run_rmqcheck("check", *SMALL, "--property", "acked_message_never_lost", "--json", "r.json",
                            cwd=tmp_path)
    assert violated.returncode == 1, violated.stderr
    assert "acked_message_never_lost: violated in 2 steps" in violated.stdout
    assert json.loads((tmp_path / "r.json").read_text())["outcome"] == "violated"

    incomplete = run_rmqcheck("check", *SMALL, "--max-states", "10", "--quiet")
    assert incomplete.returncode == 3
    assert incomplete.stdout.startswith("incomplete: ")


@pytest.mark.parametrize("args, words", [
    (("check", "--preset", "nope"), ("unknown preset",)),
    (("check", "--set", "messages=99"), ("knob 'messages'", "1..8")),
    (("check", "--nope"), ("No such option",)),
    (("frobnicate",), ("No such command",)),
    (("replay", "missing.json"), ("cannot read trace file",)),
    (("gate",), ("Missing option '--baseline'",)),
])
def test_bad_input_in_a_real_process(args, words, tmp_path):
    assert_bad_input(run_rmqcheck(*args, cwd=tmp_path), *words)
    assert list(tmp_path.iterdir()) == []


def test_console_script_is_installed():
    exe = Path(sys.executable).parent / "rmqcheck"   # the venv's script, as pip installs it
    assert exe.exists(), exe
    # as a user starts it: without the source tree on PYTHONPATH (tests/conftest.py puts it there)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and "rmqcheck" in r.stdout
