"""The exchange between two Spark steps is read from its manifest, never from a directory listing.

Each test damages the exchange files a live run's step just wrote (in the driver, right after the step
returns, before the next step reads them): all files of one level deleted, one file of a later level
deleted, one truncated, one added. The run must end incomplete (exit 3) naming the damaged file, or give
exactly the local engine's result; never another result. Before the manifest, a deleted file read as
"no successors" (a passed verdict over 28 of 37,018 states) and an added one as more successors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from explore import explore
from invariants import PROPERTIES as ALL_PROPERTIES
from model import Config, RocketMQModel
from rmqcheck.exit_codes import EXIT_FOR_OUTCOME
from spark_explore import engine as spark_engine
from spark_explore.engine import explore_on_spark

from spark_compare import MASTER, assert_same_exploration

# holds, so every run is exhaustive: 351 states, depth 13
CONFIG = dict(messages=1, max_master_crashes=0, max_master_power_losses=0)
PROPERTIES = ALL_PROPERTIES.select(["acked_message_never_lost"])


def _model():
    return RocketMQModel(Config(**CONFIG))


@pytest.fixture(scope="module")
def local_result():
    return explore(_model(), PROPERTIES)


def _shuffle(root: Path, level: int) -> list[Path]:
    return sorted((root / "shuffle" / f"level={level}").glob("to-*-from-*.bin"))


def _delete_all(files: list[Path]) -> list[Path]:
    for f in files:
        f.unlink()
    return files


def _delete_one(files: list[Path]) -> list[Path]:
    files[-1].unlink()
    return files[-1:]


def _truncate(files: list[Path]) -> list[Path]:
    f = max(files, key=lambda f: f.stat().st_size)
    f.write_bytes(f.read_bytes()[:-16])
    return [f]


def _add(files: list[Path]) -> list[Path]:
    """A copy of one partition's file, as if another partition had sent it too (another partition's
    states: filed there, they would be counted twice)."""
    src = files[0]
    to, sender = src.name.split("-")[1], src.name.split("-")[3].split(".")[0]
    taken = {f.name for f in files}
    for other in range(100):
        name = f"to-{(int(to) + 1) % 4:05d}-from-{other:05d}.bin"
        if name not in taken:
            break
    extra = src.with_name(name)
    extra.write_bytes(src.read_bytes())
    return [extra]


DAMAGE = {"delete-all-of-level-2": (2, _delete_all), "delete-one-of-level-6": (6, _delete_one),
          "truncate-one-of-level-4": (4, _truncate), "add-one-to-level-3": (3, _add)}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_exchange_is_never_a_different_result(tmp_path, monkeypatch, local_result, case):
    level, damage = DAMAGE[case]
    real_step = spark_engine.run_level_step
    damaged: list[Path] = []

    written: list[str] = []
    recorded: list[dict] = []

    def step_then_damage(sc, job, file_first, expand):
        out = real_step(sc, job, file_first, expand)
        if expand and job.level == level:
            written.extend(f.name for f in _shuffle(tmp_path / "w", level))
            damaged.extend(damage(_shuffle(tmp_path / "w", level)))
        if job.level == level + 1:   # meta.json now names the exchange of ``level``, as it was written
            recorded.append(json.loads((tmp_path / "w" / "meta.json").read_text()))
        return out

    monkeypatch.setattr(spark_engine, "run_level_step", step_then_damage)
    result = explore_on_spark(_model(), PROPERTIES, master=MASTER, partitions=4,
                              work_dir=str(tmp_path / "w"), driver_threshold=0)
    assert damaged, "the damage was never done"
    if case.startswith("add"):   # a file nobody listed is not read: the exact result
        assert_same_exploration(local_result, result)
        assert recorded[0]["exchange_level"] == level
        assert sorted(f["name"] for f in recorded[0]["exchange"]) == written
        done = json.loads((tmp_path / "w" / "meta.json").read_text())
        assert (done["exchange_level"], done["exchange"]) == (-1, [])   # removed at the end
        return
    assert result.outcome == "incomplete" and EXIT_FOR_OUTCOME[result.outcome] == 3, result.incomplete_reason
    reason = result.incomplete_reason
    assert "\n" not in reason and "Traceback" not in reason, reason
    assert f"ExchangeFileError: exchange file {tmp_path / 'w'}" in reason, reason
    assert any(f.name in reason for f in damaged), reason
    assert "--resume" in reason and "Spark's log" in reason, reason


def test_a_partition_number_of_six_digits_is_read_whole():
    """``--partitions`` goes up to 2**20: from partition 100,000 on, the name's number has six digits, and
    reading five of them sent partition 100,000's files to partition 10,000."""
    from spark_explore.layout import bucket_owner, bucket_path
    for q in (0, 7, 99_999, 100_000, 123_456, (1 << 20) - 1):
        assert bucket_owner(bucket_path("/w", 3, q, 4).name) == q


def test_a_file_of_another_partition_in_a_manifest_is_refused(tmp_path):
    from spark_explore.errors import ExchangeFileError
    from spark_explore.level_job import read_buckets
    from spark_explore.workdir import LevelFile
    with pytest.raises(ExchangeFileError, match="not for partition 2"):
        read_buckets(tmp_path, 1, 2, 1, (LevelFile("to-00003-from-00000.bin", 0, 0, ""),))
