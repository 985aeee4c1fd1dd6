"""A Spark work directory is never trusted blindly: its marker, its lock, and its recorded level files.

The unit tests write levels the way the driver does (pyarrow, no Spark); the end-to-end tests reproduce
the false verdicts this prevents (a concurrent run, a deleted part file, an edited meta.json, a user's own
directory) through the command line and show the refusal (exit 2, one line, nothing explored)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from spark_explore.errors import SparkUnavailable
from spark_explore.ownership import LOCK, MARKER
from spark_explore.workdir import LevelInfo, Meta, WorkDir

from spark_compare import MASTER


def _two_level_dir(path) -> WorkDir:
    """A work directory holding two driver-written levels and their meta.json, lock released."""
    wd = WorkDir(str(path))
    meta = Meta("digest", 1)
    for level, n in enumerate((1, 3)):
        keys = np.arange(10 * level, 10 * level + n, dtype=np.uint64).reshape(n, 1)
        wd.write_level(level, keys, np.zeros_like(keys), np.full(n, -1), np.zeros(n, dtype=np.uint64))
        meta.levels.append(LevelInfo(n, "driver", 0.0))
    meta.expanded_levels = 1
    wd.save_meta(meta)
    wd.close()
    return wd


def _reopen(path) -> Meta | None:
    wd = WorkDir(str(path))
    try:
        return wd.load_meta()
    finally:
        wd.close()


def test_a_directory_written_and_read_back_is_accepted(tmp_path):
    _two_level_dir(tmp_path / "w")
    meta = _reopen(tmp_path / "w")
    assert [li.size for li in meta.levels] == [1, 3]
    assert [f.rows for f in meta.levels[1].files] == [3]
    assert not (tmp_path / "w" / LOCK).exists()


def test_a_user_directory_is_neither_used_nor_cleaned(tmp_path):
    mine = tmp_path / "mine"
    (mine / "levels").mkdir(parents=True)
    (mine / "levels" / "precious.txt").write_text("keep")
    (mine / "meta.json").write_text("{}")
    with pytest.raises(SparkUnavailable, match="not an rmqcheck work directory"):
        WorkDir(str(mine))
    assert (mine / "levels" / "precious.txt").read_text() == "keep"
    assert sorted(p.name for p in mine.iterdir()) == ["levels", "meta.json"]


def test_an_empty_or_new_directory_is_claimed(tmp_path):
    (tmp_path / "empty").mkdir()
    for d in (tmp_path / "empty", tmp_path / "new" / "sub"):
        WorkDir(str(d)).close()
        assert (d / MARKER).is_file()


def test_a_second_run_is_refused_while_the_first_holds_the_lock(tmp_path):
    first = WorkDir(str(tmp_path / "w"))
    try:
        with pytest.raises(SparkUnavailable, match=f"in use by rmqcheck pid {os.getpid()} on host "
                                                   f"{socket.gethostname()}"):
            WorkDir(str(tmp_path / "w"))
    finally:
        first.close()
    WorkDir(str(tmp_path / "w")).close()   # free again once the first run is over


def test_a_stale_lock_of_a_dead_process_on_this_host_is_taken_over(tmp_path):
    d = tmp_path / "w"
    WorkDir(str(d)).close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    (d / LOCK).write_text(json.dumps({"pid": int(dead), "host": socket.gethostname(), "started": 0}))
    WorkDir(str(d)).close()
    assert not (d / LOCK).exists()


def test_a_lock_held_from_another_host_is_refused_with_how_to_clear_it(tmp_path):
    d = tmp_path / "w"
    WorkDir(str(d)).close()
    (d / LOCK).write_text(json.dumps({"pid": 1, "host": "elsewhere.example", "started": time.time()}))
    with pytest.raises(SparkUnavailable, match=r"pid 1 on host elsewhere.example.*remove .*\.rmqcheck\.lock"):
        WorkDir(str(d))


@pytest.mark.parametrize("damage", ["delete", "truncate", "garbage", "extra", "no-meta"])
def test_a_damaged_level_is_refused_naming_the_file(tmp_path, damage):
    d = tmp_path / "w"
    _two_level_dir(d)
    part = d / "levels" / "level=1" / "part-00000.parquet"
    if damage == "delete":
        part.unlink()
    elif damage == "truncate":
        part.write_bytes(part.read_bytes()[:-20])
    elif damage == "garbage":
        part.write_bytes(b"\0" * part.stat().st_size)
    elif damage == "extra":
        (part.parent / "part-00001.parquet").write_bytes(part.read_bytes())
    else:
        (d / "meta.json").unlink()
    with pytest.raises(SparkUnavailable, match="level=1|meta.json is missing") as info:
        _reopen(d)
    assert "cannot be resumed" in str(info.value)


@pytest.mark.parametrize("edit", [
    lambda m: m.update(expanded_levels=0),
    lambda m: m["levels"][1].update(size=2),
    lambda m: m.update(transitions=m["transitions"] + 1),
])
def test_an_edited_meta_json_is_refused(tmp_path, edit):
    d = tmp_path / "w"
    _two_level_dir(d)
    meta = json.loads((d / "meta.json").read_text())
    edit(meta)
    (d / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(SparkUnavailable, match="meta.json is unusable.*checksum"):
        _reopen(d)


def test_a_consistent_meta_with_inconsistent_levels_is_refused():
    meta = Meta("digest", 1, [LevelInfo(1, "driver", 0.0)], expanded_levels=3)
    with pytest.raises(ValueError, match="expanded_levels"):
        Meta.from_json(meta.to_json())


# -- end to end, through the command line -------------------------------------------------------------
CONFIG = ["--set", "messages=1", "--set", "max_master_crashes=0", "--set", "max_master_power_losses=0",
          "--property", "acked_message_never_lost", "--quiet"]    # 351 states, depth 13
SMALL = CONFIG + ["--engine", "spark", "--spark-master", MASTER, "--driver-level-limit", "0"]


def _rmqcheck(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rmqcheck", "check", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_resume_after_damage_is_refused_and_an_intact_one_finishes(tmp_path):
    work = str(tmp_path / "work")
    full = _rmqcheck(*CONFIG)
    assert full.returncode == 0 and full.stdout.startswith("passed: 351 states"), full.stderr
    part = _rmqcheck(*SMALL, "--work-dir", work, "--max-depth", "6")
    assert part.returncode == 3, part.stderr
    level = sorted((tmp_path / "work" / "levels").glob("level=*"), key=lambda p: int(p.name[6:]))[-1]
    part_file = sorted(level.glob("*.parquet"))[0]
    saved = part_file.read_bytes()
    part_file.unlink()
    refused = _rmqcheck(*SMALL, "--work-dir", work, "--resume")
    assert refused.returncode == 2 and part_file.name in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    part_file.write_bytes(saved)
    resumed = _rmqcheck(*SMALL, "--work-dir", work, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split(",")[0] == full.stdout.split(",")[0]   # "passed: N states"


def test_a_concurrent_run_on_the_same_work_dir_is_refused_at_once(tmp_path):
    work = tmp_path / "work"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from spark_explore.workdir import WorkDir\n"
        f"wd = WorkDir({str(work)!r}); print('locked', flush=True); sys.stdin.read()\n")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        t = time.monotonic()
        second = _rmqcheck(*SMALL, "--work-dir", str(work))
        assert second.returncode == 2, second.stderr
        assert f"in use by rmqcheck pid {holder.pid}" in second.stderr
        assert time.monotonic() - t < 60
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_the_command_line_refuses_a_user_directory_and_keeps_its_files(tmp_path):
    mine = tmp_path / "mine"
    (mine / "levels").mkdir(parents=True)
    (mine / "meta.json").write_text("my notes")
    r = _rmqcheck(*SMALL, "--work-dir", str(mine))
    assert r.returncode == 2 and "not an rmqcheck work directory" in r.stderr
    assert (mine / "meta.json").read_text() == "my notes" and (mine / "levels").is_dir()


def test_a_full_disk_is_one_line_naming_what_could_not_be_written(tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet as pq

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    wd = WorkDir(str(tmp_path / "w"))
    try:
        monkeypatch.setattr(pq, "write_table", full)
        keys = np.zeros((1, 1), dtype=np.uint64)
        with pytest.raises(SparkUnavailable, match="cannot write level 0 \\(No space left on device\\)"):
            wd.write_level(0, keys, keys, np.full(1, -1), np.zeros(1, dtype=np.uint64))
        monkeypatch.setattr(os, "replace", full)
        with pytest.raises(SparkUnavailable, match="cannot write meta.json"):
            wd.save_meta(Meta("digest", 1, [LevelInfo(0, "driver", 0.0)]))
        assert not list((tmp_path / "w").glob(".meta.*"))
    finally:
        wd.close()


def test_the_work_directory_layout_is_named_in_one_module():
    """Every path of the work directory is spelled in spark_explore/layout.py: no other module of the engine
    writes a directory or file name of it (levels/, visited/, edges/, graph/, shuffle/, part-Q, level=L)."""
    import re
    from pathlib import Path

    import spark_explore
    spelled = re.compile(r'/ *"(levels|visited|edges|graph|shuffle|meta.json)"|f"level=\{|f"part-\{|f"to-\{')
    root = Path(spark_explore.__file__).parent
    elsewhere = [f"{p.name}:{n}" for p in sorted(root.glob("*.py")) if p.name != "layout.py"
                 for n, line in enumerate(p.read_text().splitlines(), 1)
                 if spelled.search(line) and not line.lstrip().startswith("#")]
    assert elsewhere == []
