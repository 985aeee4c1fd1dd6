"""Names users type: never truncated at any width, suggested when misspelt; help never waits for numba."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from invariants import PROPERTIES
from model import KNOBS, PRESETS
from rmqcheck.compile_notice import NOTICE
from rmqcheck.suggest import closest, with_suggestion

from cli_driver import SMALL, assert_bad_input, invoke, run_rmqcheck

NAMES = list(PRESETS) + [k.key for k in KNOBS] + PROPERTIES.names()


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("width", [40, 80, 200])
def test_list_piped_keeps_every_name_whole(width):
    r = _run("-m", "rmqcheck", "list", env={"COLUMNS": str(width)})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines if not line.startswith("kinds:")) <= width
    for name in NAMES:
        assert any(re.search(rf"(^|[^\w-]){re.escape(name)}($|[^\w-])", line) for line in lines), (width, name)
    # every knob's allowed values and meaning are still there, not cut to nothing
    assert "ASYNC_MASTER" in r.stdout and "CommitLog#handleHA" in r.stdout.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("width", [40, 80, 200])
def test_check_properties_table_keeps_names_whole(monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    r = invoke("check", *SMALL, "--max-states", "200")
    lines = r.stdout.splitlines()
    for name in PROPERTIES.names():
        assert any(name in line for line in lines), (width, name)


def test_narrow_name_table_stacks_rows_instead_of_cutting_names():
    from rich.console import Console
    from reports.console import NameTable

    rows = [("which_broker_when_consume_slowly", "0..2", "a long meaning " * 5)]
    for width in (40, 80, 200):
        console = Console(width=width, record=True, file=open(os.devnull, "w"))
        console.print(NameTable("knobs", ("knob", "allowed", "meaning"), rows))
        text = console.export_text()
        assert "which_broker_when_consume_slowly" in text, (width, text)
    assert "allowed:" in text or "┃ allowed" in text


@pytest.mark.parametrize("args, wrong, right", [
    (("check", "--preset", "sync_master"), "sync_master", "sync-master"),
    (("check", "--preset", "defualt"), "defualt", "default"),
    (("check", "--set", "mesages=1"), "mesages", "messages"),
    (("check", "--property", "replica_agree"), "replica_agree", "replicas_agree"),
    (("matrix", "--property", "acked_mesage_never_lost"), "acked_mesage_never_lost", "acked_message_never_lost"),
    (("chek",), "chek", "check"),
    (("simlate",), "simlate", "simulate"),
])
def test_unknown_names_get_a_suggestion(args, wrong, right):
    r = invoke(*args)
    assert_bad_input(r, f"'{wrong}'", f"did you mean '{right}'?")


def test_no_suggestion_when_nothing_is_close():
    r = invoke("check", "--preset", "qqqqqq")
    assert_bad_input(r, "unknown preset 'qqqqqq'", "known presets")
    assert "did you mean" not in r.stderr


def test_suggestion_for_an_action_kind_and_a_baseline_name():
    msg = with_suggestion("t.json, property p, step 2: 'MasterPowerLos()' is not an action of this configuration")
    assert "did you mean 'MasterPowerLoss'?" in msg
    assert closest("SYNC-MASTER", ["sync-master", "default"]) == "sync-master"
    assert closest("x", ["sync-master"]) is None
    # a message naming no unknown name is left alone
    assert with_suggestion("--max-states 0: must be > 0") == "--max-states 0: must be > 0"


def _imported_modules(*args: str) -> set[str]:
    r = _run("-X", "importtime", "-m", "rmqcheck", *args)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("args", [("--help",), ("check", "--help"), ("--version",), ("matrix", "--help"),
                                  ("simulate", "--help"), ("gate", "--help"), ("replay", "--help")])
def test_help_and_version_load_neither_numba_nor_the_model(args):
    modules = _imported_modules(*args)
    assert "click" in modules  # the probe sees imports at all
    assert not {"numba", "model", "model.successors", "explore.local", "explore.kernel"} & modules


def test_schema_command_loads_no_kernel():
    modules = _imported_modules("schema")
    assert "numba" not in modules and "model" not in modules


def test_cold_cache_prints_a_notice_before_compiling(tmp_path):
    """On a terminal, with an empty cache directory, the notice comes before any compilation finishes
    (the process is stopped as soon as it appears: the test does not wait for the compile)."""
    env = {**os.environ, "RMQCHECK_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("COLUMNS", None)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rmqcheck", "list"], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while NOTICE.encode()[:40] not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
            elif proc.poll() is not None:
                break
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert NOTICE.encode()[:40] in seen, seen[-500:]
    assert b"presets" not in seen.split(NOTICE.encode()[:40])[0]   # before any output of the command


def test_warm_cache_prints_no_notice():
    r = run_rmqcheck("list")
    assert r.returncode == 0 and "compiling" not in r.stderr


def test_matrix_keeps_configuration_and_property_names_whole():
    from rich.console import Console
    from reports.console import matrix_table
    from reports.document import ReportSection
    from explore.result import CheckResult, PropertyResult, Stats

    props = [PropertyResult(n, "always", "holds") for n in PROPERTIES.names()]
    sections = [ReportSection(name, "", CheckResult("local", "passed", Stats(distinct_states=7), props))
                for name in ("default", "read-from-slave", "all-switches", "sync-master", "sync-flush", "sync-all")]
    for width in (40, 80, 200):
        console = Console(width=width, record=True, file=open(os.devnull, "w"))
        console.print(matrix_table(sections))
        text = console.export_text()
        assert max(len(line) for line in text.splitlines()) <= width
        for name in [s.name for s in sections] + PROPERTIES.names():
            assert name in text, (width, name)
        if width == 200:
            assert "┃ property" in text          # the table itself where it fits
        else:
            assert "read-from-slave\n" in text and "replicas_agree: holds" in re.sub(" +", " ", text)
