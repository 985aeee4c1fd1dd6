"""One run per work directory: a stale lock is taken over by one run only, and a run whose lock is taken
stops writing at its next level commit.

Before the takeover was made atomic (read the holder, see a dead pid, unlink, create), two processes racing
on a stale lock both held it in 16 of 200 trials, and two ``--resume`` runs then shared one directory."""
from __future__ import annotations

import json
import multiprocessing
import os
import socket
import subprocess
from pathlib import Path

import pytest

from explore import explore
from invariants import PROPERTIES as ALL_PROPERTIES
from model import Config, RocketMQModel
from rmqcheck.exit_codes import EXIT_FOR_OUTCOME
from spark_explore import engine as spark_engine
from spark_explore.engine import explore_on_spark
from spark_explore.errors import SparkUnavailable
from spark_explore.ownership import LOCK, WorkDirLock

from spark_compare import MASTER

TRIALS = 200


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _contend(root: str, barrier, results, release) -> None:
    """One racer: wait for the other, try the lock, say whether it is held, hold it until released."""
    barrier.wait()
    try:
        lock = WorkDirLock(Path(root)).acquire()
    except SparkUnavailable:
        results.put("refused")
        return
    results.put("held")
    release.wait()
    lock.release()


def test_two_processes_racing_on_a_stale_lock_never_both_hold_it(tmp_path):
    ctx = multiprocessing.get_context("fork")
    stale = json.dumps({"pid": _dead_pid(), "host": socket.gethostname(), "started": 0, "token": "dead"})
    outcomes = []
    for trial in range(TRIALS):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        (root / LOCK).write_text(stale)
        barrier, results, release = ctx.Barrier(2), ctx.Queue(), ctx.Event()
        racers = [ctx.Process(target=_contend, args=(str(root), barrier, results, release)) for _ in range(2)]
        for p in racers:
            p.start()
        got = sorted(results.get(timeout=60) for _ in racers)
        release.set()
        for p in racers:
            p.join(timeout=60)
        outcomes.append(got)
        assert not (root / LOCK).exists()   # the holder released it
    assert all(got == ["held", "refused"] for got in outcomes), \
        f"{sum(got == ['held', 'held'] for got in outcomes)} of {TRIALS} trials had two holders"


def test_the_fence_refuses_a_lock_that_was_taken(tmp_path):
    from spark_explore.errors import WorkDirLost
    lock = WorkDirLock(tmp_path).acquire()
    lock.check()
    (tmp_path / LOCK).write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": 0, "token": "other"}))
    with pytest.raises(WorkDirLost, match="taken from this run .*pid 1 on host elsewhere"):
        lock.check()
    lock.release()
    assert json.loads((tmp_path / LOCK).read_text())["token"] == "other"   # never removes another's lock


# holds, so the run is exhaustive when nothing stops it: 351 states, depth 13
CONFIG = dict(messages=1, max_master_crashes=0, max_master_power_losses=0)
PROPERTIES = ALL_PROPERTIES.select(["acked_message_never_lost"])


@pytest.mark.timeout(600)
def test_a_run_whose_lock_is_taken_stops_at_its_next_commit(tmp_path, monkeypatch):
    """After step 4, another run takes the lock (as a second process would after judging this run dead):
    this run commits nothing more, removes nothing, and ends incomplete (exit 3) with one line."""
    work = tmp_path / "w"
    real_step = spark_engine.run_level_step
    taken: dict = {}

    def step_then_take(sc, job, file_first, expand):
        out = real_step(sc, job, file_first, expand)
        if job.level == 4 and not taken:
            (work / LOCK).unlink()
            (work / LOCK).write_text(json.dumps({"pid": os.getpid(), "host": "other-host", "started": 0,
                                                 "token": "thief"}))
            taken["meta"] = (work / "meta.json").read_bytes()
            taken["shuffle"] = sorted(p.name for p in (work / "shuffle").rglob("*.bin"))
        return out

    monkeypatch.setattr(spark_engine, "run_level_step", step_then_take)
    result = explore_on_spark(RocketMQModel(Config(**CONFIG)), PROPERTIES, master=MASTER, partitions=4,
                              work_dir=str(work), driver_threshold=0)
    assert taken, "the lock was never taken"
    assert result.outcome == "incomplete" and EXIT_FOR_OUTCOME[result.outcome] == 3
    reason = result.incomplete_reason
    assert "\n" not in reason and "Traceback" not in reason, reason
    assert "was taken from this run (rmqcheck pid" in reason and "on host other-host" in reason, reason
    assert "stopped at level 3" in reason, reason
    assert result.stats.distinct_states < explore(RocketMQModel(Config(**CONFIG)), PROPERTIES).stats.distinct_states
    # nothing written or removed after the takeover: meta.json, the exchange and the thief's lock
    assert (work / "meta.json").read_bytes() == taken["meta"]
    assert sorted(p.name for p in (work / "shuffle").rglob("*.bin")) == taken["shuffle"]
    assert json.loads((work / LOCK).read_text())["token"] == "thief"


def test_without_flock_a_stale_lock_is_left_for_the_user(tmp_path, monkeypatch):
    """A filesystem without flock (NFS without its lock service): no unguarded takeover, the refusal says
    how to clear the lock by hand."""
    import errno
    import fcntl

    def no_locks(*args):
        raise OSError(errno.ENOLCK, "No locks available")

    (tmp_path / LOCK).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname(), "started": 0}))
    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(SparkUnavailable, match=r"in use by rmqcheck pid .*remove .*\.rmqcheck\.lock"):
        WorkDirLock(tmp_path).acquire()
    assert (tmp_path / LOCK).exists()


def test_release_never_removes_a_lock_another_run_took(tmp_path):
    """Release checks and removes under the takeover lock, and only this run's own lock file."""
    mine = WorkDirLock(tmp_path).acquire()
    other = {"pid": os.getpid(), "host": socket.gethostname(), "started": 0, "token": "another-run"}
    (tmp_path / LOCK).write_text(json.dumps(other))     # taken meanwhile (removed by hand, then taken)
    mine.release()
    assert json.loads((tmp_path / LOCK).read_text())["token"] == "another-run"
    again = WorkDirLock(tmp_path / "fresh")
    (tmp_path / "fresh").mkdir()
    again.acquire().release()
    assert not (tmp_path / "fresh" / LOCK).exists()


def test_a_lock_file_unreadable_for_a_moment_is_not_a_lost_lock(tmp_path, monkeypatch):
    """A shared filesystem's transient error (EIO, ESTALE) while the fence reads the lock is read again; a
    lock that stays unreadable, or is gone, is lost."""
    from spark_explore import ownership
    from spark_explore.errors import WorkDirLost

    monkeypatch.setattr(ownership.time, "sleep", lambda s: None)
    lock = WorkDirLock(tmp_path).acquire()
    real = WorkDirLock._holder
    failures = {"left": 2}

    def flaky(self):
        if failures["left"] > 0:
            failures["left"] -= 1
            return None                  # what _holder answers when the read fails
        return real(self)

    monkeypatch.setattr(WorkDirLock, "_holder", flaky)
    monkeypatch.setattr(WorkDirLock, "_unreadable", lambda self: failures["left"] >= 0)
    lock.check()                         # two failed reads, then the token: still held
    assert lock.held and not lock.lost
    failures["left"] = 10                # unreadable for longer than the retries: lost
    with pytest.raises(WorkDirLost):
        lock.check()
