"""Driving the command line: in-process through click's CliRunner, and as a real subprocess.

Imported by the CLI and report tests as ``cli_driver`` (a unique module name on pytest's path)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rmqcheck.cli import cli

#: a tiny configuration (351 states): every always property holds in it
TINY = ("--set", "messages=1", "--set", "max_master_crashes=0", "--set", "max_master_power_losses=0")
TINY_ALWAYS = TINY + tuple(a for p in ("acked_message_never_lost", "consumed_message_never_lost", "replicas_agree",
                                       "committed_offset_never_regresses", "no_message_skipped")
                           for a in ("--property", p))
#: a small configuration (7,470 states) with violations and witnesses
SMALL = ("--set", "messages=1", "--set", "max_master_crashes=0")

#: runs whose --json results the saved-result tests read back: check and faults of both modes, a simulation
SAVED_RUNS = {
    "check-4.4": ("check", "--preset", "default", "--set", "messages=1", "--set", "max_master_crashes=0"),
    "check-controller": ("check", "--preset", "controller", "--set", "messages=1"),
    "faults-4.4": ("faults", "--preset", "default", "--set", "messages=1", "--set", "max_master_crashes=0",
                   "--set", "max_consumer_restarts=0", "--grow", "none"),
    "faults-controller": ("faults", "--preset", "controller", "--set", "messages=1", "--grow", "none"),
    "simulate-4.4": ("simulate", "--set", "messages=1", "--walks", "5", "--seed", "3"),
}


def invoke(*args: str):
    """Run ``rmqcheck ARGS`` in-process; stdout and stderr are captured apart."""
    return CliRunner().invoke(cli, list(args), prog_name="rmqcheck", catch_exceptions=False)


def run_rmqcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m rmqcheck ARGS`` as a real process (no terminal: no progress bar)."""
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "rmqcheck", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def assert_bad_input(result, *words: str) -> None:
    """Exit 2, exactly one line on stderr naming ``words``, no traceback, nothing on stdout."""
    stderr = result.stderr
    assert result.exit_code == 2 if hasattr(result, "exit_code") else result.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("rmqcheck: error: ")
    assert "Traceback" not in stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert result.stdout.strip() == "", result.stdout
