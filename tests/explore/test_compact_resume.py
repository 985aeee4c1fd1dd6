"""The compact visited set's levels on disk (explore/compact_dir.py): a run stopped at a level boundary, inside
a level (state limit, Ctrl-C's stop request, a killed process) and resumed from its ``--work-dir`` gives
exactly what a run never stopped gives (states, transitions, depth, levels, verdicts, shortest traces,
coverage), on one thread and on two; a directory of another run, a foreign or damaged one is refused in one
line and never touched."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explore import stop
from explore.compact_dir import CHECKPOINT, MARKER, WorkDirRefused
from explore.local import LocalExplorer
from explore.run_control import Limits
from invariants.base import ALWAYS, EVENTUALLY, GRAPH
from model.modes import get_mode
from tests.explore.test_compact import ROUNDS, signature
from tests.tooling.pinned import load, model_of

ROOT = Path(__file__).resolve().parents[2]
#: small pinned configurations of both modes (one and two words a state, five in the controller mode)
CONFIGS = ["failures-slave", "two-consumers-one-restart", "ctl-no-failures", "ctl-namesrv-failures"]


def safety(entry, only_always=False):
    props = get_mode(entry.mode_name).properties().without([GRAPH, EVENTUALLY])
    if only_always:   # every property an always one: states violating them all are left unexpanded
        props = props.only([p for p in props if p.kind == ALWAYS])
    return props


def explorer(entry, props, threads=1, **kw):
    return LocalExplorer(model_of(entry), props, visited="compact", **(ROUNDS if threads == 2 else {}), **kw)


def whole(entry, props):
    return explorer(entry, props, threads=1).run()


def stop_inside_level(monkeypatch, level):
    """Ctrl-C's stop request (explore.stop) made once level ``level`` has started expanding."""
    real = LocalExplorer.report

    def report(self, lv, lo, hi):
        real(self, lv, lo, hi)
        if lv >= level:
            monkeypatch.setattr(stop, "requested", lambda: "interrupted (SIGINT)")
    monkeypatch.setattr(LocalExplorer, "report", report)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("how", ["boundary", "state-limit", "ctrl-c"])
@pytest.mark.parametrize("name", CONFIGS)
def test_a_stopped_run_resumed_answers_as_a_run_never_stopped(name, how, threads, tmp_path, monkeypatch):
    entry = load()[name]
    props = safety(entry)
    base = whole(entry, props)
    levels = base.stats.levels
    k = max(1, len(levels) // 2)
    wd = str(tmp_path / "wd")
    if how == "boundary":
        first = explorer(entry, props, threads, limits=Limits(max_depth=k), work_dir=wd).run()
    elif how == "state-limit":   # inside level k: the level is forgotten, the checkpoint is level k - 1's
        first = explorer(entry, props, threads, limits=Limits(max_states=sum(levels[:k]) + levels[k] // 2),
                         work_dir=wd).run()
    else:
        with monkeypatch.context() as m:
            stop_inside_level(m, k)
            first = explorer(entry, props, threads, work_dir=wd).run()
    assert first.outcome in ("incomplete", "violated") and first.incomplete_reason
    assert "--resume" in first.incomplete_reason and wd in first.incomplete_reason
    assert first.stats.distinct_states < base.stats.distinct_states
    saved = json.loads((tmp_path / "wd" / CHECKPOINT).read_text())["level"]
    # a stop request is seen after a chunk (one thread: a small level is one chunk, so the run stops at its
    # end) or a round (two threads: inside the level)
    assert saved == {"boundary": k, "state-limit": k - 1}[how] if how != "ctrl-c" else saved in (k, k + 1)
    # resumed on the other thread count: the same answers
    resumed = explorer(entry, props, 3 - threads, work_dir=wd, resume=True).run()
    assert signature(resumed) == signature(base)
    assert resumed.stats.visited == "compact"
    # the finished run's directory resumes to the same result again, kept (a given directory)
    again = explorer(entry, props, threads, work_dir=wd, resume=True).run()
    assert signature(again) == signature(base)
    assert (tmp_path / "wd" / MARKER).is_file()


@pytest.mark.parametrize("threads", [1, 2])
def test_resume_with_leaf_marks_in_the_level_files(threads, tmp_path):
    # only always properties: the leaf rule is on, each level's leaf marks go to its .leaf file
    entry = load()["release-sss-union-while-synchronizing"]
    props = safety(entry, only_always=True)
    base = whole(entry, props)
    first = explorer(entry, props, threads, limits=Limits(max_depth=base.stats.depth - 3),
                     work_dir=str(tmp_path / "wd"))
    r = first.run()
    assert first.leaves and r.incomplete_reason
    assert (tmp_path / "wd" / "levels" / "level-1.leaf").is_file()
    resumed = explorer(entry, props, threads, work_dir=str(tmp_path / "wd"), resume=True).run()
    assert signature(resumed) == signature(base)


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    entry = load()["ctl-namesrv-1"]
    props = safety(entry)
    wd = tmp_path / "wd"
    code = ("import sys; from explore.local import LocalExplorer; from tests.explore.test_compact_resume import *; "
            f"e = load()[{entry.name!r}]; LocalExplorer(model_of(e), safety(e), visited='compact', "
            f"work_dir={str(wd)!r}).run()")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:   # killed once a few levels are done
            try:
                if json.loads((wd / CHECKPOINT).read_text())["level"] >= 8:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert (wd / CHECKPOINT).exists()
    resumed = LocalExplorer(model_of(entry), props, visited="compact", work_dir=str(wd), resume=True).run()
    assert signature(resumed) == signature(whole(entry, props))


def test_the_default_directory_is_temporary_and_a_given_one_is_kept(tmp_path):
    entry = load()["failures-slave"]
    props = safety(entry)
    ex = explorer(entry, props)
    r = ex.run()
    assert not ex.levels.root.exists() and ex.levels.root.name.startswith("rmqcheck-links-")
    words = model_of(entry).words
    # the links (6 bytes a state) and every level's states (their words, and a page-alignment pad each)
    assert 6 * r.stats.distinct_states + 8 * words * r.stats.distinct_states <= r.stats.disk_bytes
    assert r.stats.disk_bytes <= (6 + 8 * words) * r.stats.distinct_states + (1 << 16) * len(r.stats.levels)
    kept = explorer(entry, props, work_dir=str(tmp_path / "new" / "wd")).run()
    assert sorted(os.listdir(tmp_path / "new" / "wd")) == [MARKER, "checkpoint.json", "levels", "parent.i32",
                                                          "via.i16"]
    assert signature(kept) == signature(r)
    # a fresh run (no --resume) in the directory starts afresh, over its own files
    again = explorer(entry, props, work_dir=str(tmp_path / "new" / "wd")).run()
    assert signature(again) == signature(r)


def test_resume_refuses_another_configuration_or_property_selection(tmp_path):
    entry, other = load()["failures-slave"], load()["reference-master-power-loss"]
    props = safety(entry)
    wd = str(tmp_path / "wd")
    explorer(entry, props, limits=Limits(max_depth=3), work_dir=wd).run()
    before = sorted((p.name, p.stat().st_size) for p in (tmp_path / "wd").rglob("*"))
    with pytest.raises(WorkDirRefused, match="another configuration or property selection"):
        explorer(other, safety(other), work_dir=wd, resume=True).run()
    with pytest.raises(WorkDirRefused, match="another configuration or property selection"):
        explorer(entry, props.only([next(iter(props))]), work_dir=wd, resume=True).run()
    assert sorted((p.name, p.stat().st_size) for p in (tmp_path / "wd").rglob("*")) == before


def test_a_foreign_or_damaged_directory_is_refused_and_left_alone(tmp_path):
    entry = load()["failures-slave"]
    props = safety(entry)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(WorkDirRefused, match="not an rmqcheck --compact work directory"):
        explorer(entry, props, work_dir=str(mine)).run()
    assert os.listdir(mine) == ["notes.txt"]
    spark = tmp_path / "spark"
    spark.mkdir()
    (spark / ".rmqcheck-workdir").write_text("{}")
    with pytest.raises(WorkDirRefused, match="Spark engine work directory"):
        explorer(entry, props, work_dir=str(spark)).run()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(WorkDirRefused, match="not a directory"):
        explorer(entry, props, work_dir=str(a_file)).run()
    with pytest.raises(WorkDirRefused, match="no checkpoint.json"):
        explorer(entry, props, work_dir=str(tmp_path / "empty"), resume=True).run()
    wd = tmp_path / "wd"
    explorer(entry, props, limits=Limits(max_depth=3), work_dir=str(wd)).run()
    (wd / "levels" / "level-2.rows").write_bytes(b"")
    with pytest.raises(WorkDirRefused, match="level-2.rows is missing or not the size"):
        explorer(entry, props, work_dir=str(wd), resume=True).run()
    cp = json.loads((wd / CHECKPOINT).read_text())
    cp["counters"]["count"] += 1
    (wd / CHECKPOINT).write_text(json.dumps(cp))
    with pytest.raises(WorkDirRefused, match="does not match its checksum"):
        explorer(entry, props, work_dir=str(wd), resume=True).run()


def test_a_work_dir_needs_the_compact_set(tmp_path):
    entry = load()["failures-slave"]
    with pytest.raises(WorkDirRefused, match="add --compact"):
        LocalExplorer(model_of(entry), safety(entry), work_dir=str(tmp_path / "wd"))
    with pytest.raises(WorkDirRefused, match="--resume needs --work-dir"):
        LocalExplorer(model_of(entry), safety(entry), visited="compact", resume=True)
    # a graph or eventually property is decided over a graph on disk that a work directory does not keep
    props = get_mode(entry.mode_name).properties()
    with pytest.raises(WorkDirRefused, match="acked_message_eventually_consumed.* not keep for --resume"):
        LocalExplorer(model_of(entry), props, visited="compact", work_dir=str(tmp_path / "wd")).run()
    assert not (tmp_path / "wd").exists() or not any((tmp_path / "wd").iterdir())


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "rmqcheck", "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_the_cli_resumes_and_refuses_in_one_line(tmp_path):
    wd = str(tmp_path / "wd")
    config = ["--preset", "default", "--set", "max_master_power_losses=0", "--set", "max_master_crashes=0",
              "--property", "acked_message_never_lost", "--compact", "--quiet"]
    common = config + ["--work-dir", wd]
    first = cli(*common, "--max-depth", "8", "--json", str(tmp_path / "a.json"))
    assert first.returncode == 3, first.stderr
    done = cli(*common, "--resume", "--json", str(tmp_path / "b.json"))
    assert done.returncode == 0, done.stderr
    whole_ = cli(*config, "--json", str(tmp_path / "c.json"))
    b, c = (json.loads((tmp_path / n).read_text()) for n in ("b.json", "c.json"))
    assert b["stats"]["distinct_states"] == c["stats"]["distinct_states"]
    assert b["stats"]["transitions"] == c["stats"]["transitions"] and b["stats"]["levels"] == c["stats"]["levels"]
    assert [p["status"] for p in b["properties"]] == [p["status"] for p in c["properties"]]
    assert whole_.returncode == done.returncode
    other = cli(*config, "--set", "messages=1", "--work-dir", wd, "--resume")
    assert other.returncode == 2 and "another configuration" in other.stderr
    assert len(other.stderr.strip().splitlines()) == 1
    exact = cli("--preset", "default", "--work-dir", wd)
    assert exact.returncode == 2 and "add --compact" in exact.stderr
