"""A stop request (what the first Ctrl-C or SIGTERM makes) in the commands that run several explorations:
``matrix`` finishes its table with the rest as incomplete and writes its files, ``gate`` stops with exit
3 and writes nothing, ``simulate`` ends its walks as incomplete."""
from __future__ import annotations

import json

from cli_driver import TINY, TINY_ALWAYS, invoke
from explore import stop


def request_stop_after_first_run(monkeypatch, module: str) -> None:
    import rmqcheck.engines as engines
    real = engines.run_check

    def run_then_interrupt(*a, **k):
        out = real(*a, **k)
        stop.request("interrupted (SIGINT)")
        return out

    monkeypatch.setattr(f"{module}.run_check", run_then_interrupt)


def test_matrix_after_a_signal_marks_the_rest_incomplete_and_writes_its_files(tmp_path, monkeypatch):
    request_stop_after_first_run(monkeypatch, "rmqcheck.matrix")
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *TINY_ALWAYS, "--json", str(tmp_path / "m.json"), "--report", str(tmp_path / "m.md"), "--quiet")
    assert r.exit_code == 3, r.output
    data = json.loads((tmp_path / "m.json").read_text())
    first, second = data["configurations"]
    assert first["outcome"] == "passed"
    assert second["outcome"] == "incomplete" and second["incomplete_reason"] == "interrupted (SIGINT)"
    assert (tmp_path / "m.md").exists()


def test_gate_after_a_signal_compares_nothing_and_does_not_update(tmp_path, monkeypatch):
    baseline = tmp_path / "b.toml"
    text = ('[[configuration]]\nname = "tiny"\nproperties = ["replicas_agree"]\n[configuration.set]\n'
            "messages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n")
    baseline.write_text(text)
    request_stop_after_first_run(monkeypatch, "rmqcheck.gate")
    r = invoke("gate", "--baseline", str(baseline), "--update", "--quiet")
    assert r.exit_code == 3, r.output
    assert "interrupted (SIGINT); the gate stops here" in r.stdout
    assert baseline.read_text() == text


def test_simulate_stops_between_walks(monkeypatch):
    stop.request("interrupted (SIGTERM)")   # as if the signal came before the first walk
    monkeypatch.setattr(stop, "clear", lambda: None)   # keep the request past the command's entry
    r = invoke("simulate", *TINY, "--walks", "50", "--quiet")
    monkeypatch.undo()
    stop.clear()
    assert r.exit_code == 3, r.output
    assert "interrupted (SIGTERM) after 0 walks" in r.stdout


def _interrupt_faults_in_its_sweep(tmp_path, jobs: int):
    """``faults`` in a subprocess, sent one SIGINT (to its own pid only) once a sweep has started."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "f.json"
    err = tmp_path / "err.txt"
    p = subprocess.Popen([sys.executable, "-m", "rmqcheck", "faults", "--preset", "default", "--set", "messages=1",
                          "--jobs", str(jobs), "--json", str(out)], stdout=subprocess.DEVNULL,
                         stderr=open(err, "w"), start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while "step 2 [" not in err.read_text() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.poll() is None, "faults ended before its first sweep"
        os.kill(p.pid, signal.SIGINT)
        assert p.wait(timeout=60) == 3
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    return json.loads(out.read_text()), err.read_text()


def test_the_first_ctrl_c_stops_the_whole_faults_search(tmp_path):
    """Issue 45, item 9: with one job the first Ctrl-C ended only the running exploration and the sweep went
    on (outcome violated, every closing step run); now it stops the search, writing what is complete."""
    data, err = _interrupt_faults_in_its_sweep(tmp_path, jobs=1)
    assert data["outcome"] == "incomplete" and "interrupted" in data["incomplete_reason"]
    assert "step 3" not in err and "step 4" not in err   # no closing search after the interruption
    assert data["sweep"]["configurations"] < 16   # step 2 has 16 explorations; it stopped within them


def test_the_first_ctrl_c_stops_a_sweep_on_worker_processes(tmp_path):
    data, err = _interrupt_faults_in_its_sweep(tmp_path, jobs=2)
    assert data["outcome"] == "incomplete" and "step 3" not in err
