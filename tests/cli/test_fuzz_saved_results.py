"""A seeded fuzz test of hostile saved results (issue 45, items 3 and 11): results that ``check``,
``simulate`` and ``faults`` wrote, in both model modes, made hostile by generated edits - a verdict or a
trace changed, the file's identity changed (tool, version, command, model, mode), keys dropped, values of
the wrong type, huge or deeply nested values, bytes that are not UTF-8 - and read back by ``report``,
``replay`` and ``explore --trace``.

Every case must give a documented exit code (0-3), bad input as one line under 300 characters, no
traceback, the file read byte for byte as before, and no output written but from an exit 0. Where the edit
is one a reader can detect without exploring (an identity, a verdict that its own trace contradicts, a
trace that does not replay), ``report`` and ``explore --trace`` must refuse it (exit 2): an edited verdict is
never rendered."""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from cli_driver import SAVED_RUNS, invoke

SEED = 45
CASES = 150

RUNS = SAVED_RUNS


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> dict[str, dict]:
    where = tmp_path_factory.mktemp("fuzz-saved")
    out = {}
    for name, args in RUNS.items():
        path = where / f"{name}.json"
        r = invoke(*args, "--json", str(path), "--quiet")
        assert r.exit_code in (0, 1, 3), r.stderr
        out[name] = json.loads(path.read_text())
    return out


def traced(data: dict) -> list[dict]:
    """Every object of the result that holds a trace (a property, a mode, a combination, a budget vector)."""
    found = []
    for p in data.get("properties", []):
        if p.get("kind") == "graph":   # its trace shows a verdict only exploring confirms (replay re-explores)
            continue
        for holder in [p, *p.get("modes", []), *p.get("combinations", []), *p.get("vectors", [])]:
            if isinstance(holder.get("trace"), list) and len(holder["trace"]) > 1:
                found.append(holder)
    return found


def _identity(rng, data):
    key, value = rng.choice([("tool", "tlc"), ("tool", None), ("tool", "t" * 100_000), ("version", "99.0"),
                             ("version", 1),
                             ("command", "bench"), ("command", ["check"]), ("model", "rocketmq-9"),
                             ("model", "rocketmq-5.3.3-controller"), ("model", "rocketmq-4.4")])
    if key == "model" and value == ("rocketmq-5.3.3-controller" if data["config"].get("mode") else "rocketmq-4.4"):
        value = "rocketmq-0"   # the result's own model: no edit
    data[key] = value
    return "identity"


def _mode(rng, data):
    data["config"]["mode"] = rng.choice(["5.9", "", 5, None, "4.4" if data["config"].get("mode") else "controller"])
    return "identity"


def _cut_trace(rng, data):
    holder = rng.choice(traced(data))
    holder["trace"] = holder["trace"][:-1]
    return "trace"


def _swap_steps(rng, data):
    holder = rng.choice(traced(data))
    steps = holder["trace"]
    i = rng.randrange(1, len(steps))
    j = rng.randrange(1, len(steps))
    steps[i]["action"], steps[j]["action"] = steps[j]["action"], "Nonsense()" if i == j else steps[i]["action"]
    return "trace" if i != j or True else "shape"


def _state_field(rng, data):
    holder = rng.choice(traced(data))
    step = rng.choice(holder["trace"])
    field = rng.choice(sorted(step["state"]))
    step["state"][field] = rng.choice([None, -1, 10 ** 30, "x", [999], True])
    return "trace"


def _status(rng, data):
    candidates = [p for p in data.get("properties", []) if "trace" in p]
    if not candidates:
        return _cut_trace(rng, data)
    p = rng.choice(candidates)
    p["status"] = rng.choice(["holds", "unreached", "unknown", "maybe", "", 1, None])
    return "verdict"


def _drop_key(rng, data):
    target = rng.choice([data, *data.get("properties", [])[:3]])
    if target:
        target.pop(rng.choice(sorted(target)), None)
    return "shape"


def _retype(rng, data):
    target = rng.choice([data, data.get("stats") or {}, *(data.get("properties") or [])[:3]])
    if target:
        key = rng.choice(sorted(target))
        target[key] = rng.choice([None, 1, "s", [], {}, 1e308, -1, "é" * 300])
    return "shape"


def _deep(rng, data):
    value: object = 0
    for _ in range(rng.choice([70, 500])):
        value = [value]
    data[rng.choice(["config", "stats", "extra"])] = value
    return "shape"


EDITS = [_identity, _mode, _cut_trace, _swap_steps, _state_field, _status, _drop_key, _retype, _deep]
#: the edits a reader detects without exploring: it must refuse them (report and explore --trace)
DETECTED = {"identity", "trace", "verdict"}


def cases() -> list[tuple[int, str, str]]:
    rng = random.Random(SEED)
    readers = ["report", "replay", "explore"]
    return [(i, rng.choice(list(RUNS)), rng.choice(readers)) for i in range(CASES)]


@pytest.mark.parametrize("i, run, reader", cases())
def test_a_hostile_saved_result_is_refused_or_read_never_rendered_as_edited(originals, tmp_path, monkeypatch,
                                                                           i, run, reader):
    rng = random.Random(SEED * 1000 + i)
    data = copy.deepcopy(originals[run])
    edit = rng.choice([e for e in EDITS if e not in (_cut_trace, _swap_steps, _state_field) or traced(data)])
    kind = edit(rng, data)
    path = tmp_path / f"{run}.json"
    raw = json.dumps(data).encode() if rng.random() > 0.05 else json.dumps(data).encode()[:-7] + b"\xff\xfe}"
    path.write_bytes(raw)
    out = tmp_path / "out.md"
    if reader == "report":
        r = invoke("report", str(path), "--report", str(out))
    elif reader == "replay":
        r = invoke("replay", str(path), "--max-states", "20000")
    else:
        import rmqcheck.explorer.command as command
        monkeypatch.setattr(command, "serve", lambda *a, **k: None)   # loading is what is tested, not serving
        r = invoke("explore", "--trace", str(path))
    assert path.read_bytes() == raw, "the input changed"
    assert r.exit_code in (0, 1, 2, 3), (r.exit_code, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    if r.exit_code == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rmqcheck: error: ") and len(lines[0]) < 300, r.stderr
    assert out.exists() == (reader == "report" and r.exit_code == 0)
    if kind in DETECTED and reader in ("report", "explore") and not run.startswith("simulate"):
        assert r.exit_code == 2, (edit.__name__, r.stdout[-500:])
    if run.startswith("simulate") and reader == "report":
        assert r.exit_code == 2   # a random-walk result is never rendered as verdicts
