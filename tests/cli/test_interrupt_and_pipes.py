"""Real processes: Ctrl-C (SIGINT) and SIGTERM stop a run within about a second with the outcome a limit
would give (1 when something was already violated, else 3, never 130), print the verdicts so far and
write every requested file; a console that goes away still gets the files written."""
from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import threading
import time

import pytest

from cli_driver import TINY_ALWAYS

#: a space of about 14 million states with a graph property: minutes of work, never finished here
LONG_RUN = ("check", "--preset", "bench")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["COLUMNS"] = "200"
    return env


def start_and_wait_for_progress(args, cwd, timeout=600.0):
    """Start ``rmqcheck ARGS`` with stderr on a pseudo-terminal (so the progress bar is drawn) and return
    once the bar shows exploration under way: a signal then reaches a running exploration, not the
    kernel compilation."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rmqcheck", *args], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, cwd=cwd, env=_env())
    os.close(slave)
    seen = bytearray()
    progress = threading.Event()

    def drain():   # keep reading, or the child blocks on a full terminal buffer
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen.extend(chunk)
            if b"states/s" in seen:
                progress.set()

    threading.Thread(target=drain, daemon=True).start()
    if not progress.wait(timeout):
        proc.kill()
        pytest.fail(f"no progress within {timeout} s: {bytes(seen[-500:])!r}")
    time.sleep(1.0)
    return proc, seen


@pytest.mark.parametrize("sig, name", [(signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")])
def test_a_signal_stops_the_run_like_a_limit_and_keeps_the_files(tmp_path, sig, name):
    proc, seen = start_and_wait_for_progress(LONG_RUN + ("--json", "r.json", "--report", "r.md"), tmp_path)
    t0 = time.monotonic()
    proc.send_signal(sig)
    stdout, _ = proc.communicate(timeout=120)
    took = time.monotonic() - t0
    text = stdout.decode()
    assert proc.returncode in (1, 3), (proc.returncode, text, bytes(seen[-2000:]))
    assert took < 15, took   # about a second on a quiet machine; generous for a shared one
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["incomplete_reason"] == f"interrupted ({name})"
    assert data["outcome"] == ("violated" if proc.returncode == 1 else "incomplete")
    assert f"interrupted ({name})" in text and "properties" in text
    assert f"interrupted ({name})" in (tmp_path / "r.md").read_text()
    assert "Traceback" not in seen.decode(errors="replace")
    assert sorted(os.listdir(tmp_path)) == ["r.json", "r.md"]   # no temporary file left


def test_a_closed_console_still_gets_the_files_written(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "rmqcheck", "check", *TINY_ALWAYS, "--json", "r.json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=_env())
    proc.stdout.close()   # the reader goes away at once, like `| head -0`
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr
    assert json.loads((tmp_path / "r.json").read_text())["outcome"] == "passed"


def test_json_to_dev_stdout_owns_standard_output(tmp_path):
    """/dev/stdout is a pipe here: written directly (never renamed over), the console report on stderr."""
    p = subprocess.run([sys.executable, "-m", "rmqcheck", "check", *TINY_ALWAYS, "--json", "/dev/stdout"],
                       capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["outcome"] == "passed"
    assert "PASSED" in p.stderr and os.listdir(tmp_path) == []
