"""Same configuration, same answer: counts, levels, verdicts and every trace, state by state - across
runs, across chunk sizes (the order states are expanded in within a level) and across processes."""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explore import explore
from invariants import PROPERTIES
from model import Config, RocketMQModel

ROOT = Path(__file__).resolve().parents[2]
# > 65 536 / 2 states: the visited-set table is rebuilt mid-run, and levels span many chunks
BIG = dict(messages=2, max_master_crashes=0)


def fingerprint(r) -> dict:
    return {
        "outcome": r.outcome,
        "counts": [r.stats.distinct_states, r.stats.transitions, r.stats.depth],
        "levels": r.stats.levels,
        "properties": [[p.name, p.status, [[s.action, list(s.state)] for s in p.trace.steps] if p.trace else None]
                       for p in r.properties],
    }


def model(**knobs) -> RocketMQModel:
    return RocketMQModel(Config.from_mapping(knobs))


@functools.lru_cache(maxsize=None)
def big_run() -> dict:
    return fingerprint(explore(model(**BIG), PROPERTIES))


def test_two_runs_give_identical_results():
    assert fingerprint(explore(model(**BIG), PROPERTIES)) == big_run()
    # was [122870, 559922, 30] before the pending-correction / orphan-consumption model change, then
    # [125378, 573357, 30] before the ConsumeDropped / two-correction-slot change (droppedInFlight)
    assert big_run()["counts"] == [127544, 588550, 30]


@pytest.mark.parametrize("chunk", [1, 300])
def test_chunk_size_does_not_change_counts_or_traces(chunk):
    assert fingerprint(explore(model(**BIG), PROPERTIES, chunk=chunk)) == big_run()


def test_a_fresh_model_object_gives_identical_results():
    assert fingerprint(explore(model(messages=1), PROPERTIES)) == fingerprint(explore(model(messages=1), PROPERTIES))


SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from test_determinism import fingerprint
from explore import explore
from invariants import PROPERTIES
from model import Config, RocketMQModel
r = explore(RocketMQModel(Config.from_mapping({knobs!r})), PROPERTIES)
print(json.dumps(fingerprint(r)))
"""


def test_another_process_with_another_hash_seed_gives_identical_results():
    knobs = dict(messages=1)
    code = SCRIPT.format(tests=str(Path(__file__).parent), knobs=knobs)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300, check=True)
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    ours = json.loads(json.dumps(fingerprint(explore(model(**knobs), PROPERTIES))))
    assert theirs == ours
