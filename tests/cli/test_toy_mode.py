"""A third model mode registered from the tests only (tests/toymode/: its own package and one registry entry)
runs through every command that takes a mode: check, faults, gate, report, replay and the explorer's server
(the Spark engine: tests/spark/test_toy_mode_on_spark.py). Nothing in the commands names it: what they know
of it they ask the registry (model/modes.py). Each answer is compared with the local engine's exploration
of the toy, or with what the toy is built to show (an acknowledged write lost by a crash unless the ack
waits for the backup or the crash keeps the log)."""
from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

import explore.fairness  # imported before the toy is registered: its failures must count all the same
from cli_driver import assert_bad_input, invoke
from tests.toymode import NAME, toy_mode  # noqa: F401 - the fixture registers the toy mode

pytestmark = pytest.mark.usefixtures("toy_mode")


@pytest.fixture(scope="module")
def explored():
    """The toy's default preset explored by the local engine directly, every property."""
    from explore import explore
    from tests.toymode.config import preset
    from tests.toymode.model import ToyModel
    from tests.toymode.properties import PROPERTIES

    return explore(ToyModel(preset(NAME)), PROPERTIES)


@pytest.fixture(scope="module")
def check_run(tmp_path_factory):
    """``rmqcheck check --mode toy`` with every output: its result, JSON, reports and console."""
    out = tmp_path_factory.mktemp("toy-check")
    r = invoke("check", "--mode", NAME, "--json", str(out / "c.json"), "--report", str(out / "c.html"),
               "--itf", str(out / "itf"))
    return r, out


def _json(path) -> dict:
    return json.loads(path.read_text())


def test_the_toy_mode_exists_only_while_registered():
    from model.modes import MODES
    import tests.toymode as toy

    assert MODES[NAME] is toy.MODE
    toy.unregister()
    try:
        assert_bad_input(invoke("check", "--mode", NAME), f"unknown mode '{NAME}'", "4.4", "controller")
    finally:
        toy.register()


def test_its_generated_modules_are_current():
    """``python -m tests.toymode.declare`` writes the dispatch and the checks from the declarations."""
    from tests.toymode.declare import ACTIONS, CHECKS

    assert ACTIONS.dispatch_source() == ACTIONS.dispatch_path.read_text()
    assert CHECKS.checks_source() == CHECKS.checks_path.read_text()


def test_check_gives_the_engines_verdicts_counts_and_traces(check_run, explored):
    r, out = check_run
    assert r.exit_code == 1, r.stderr
    d = _json(out / "c.json")
    assert d["model"] == "toy-log" and d["config"]["mode"] == NAME
    assert {p["name"]: p["status"] for p in d["properties"]} == explored.verdicts()
    assert (d["stats"]["distinct_states"], d["stats"]["transitions"], d["stats"]["depth"]) == \
        (explored.stats.distinct_states, explored.stats.transitions, explored.stats.depth)
    lost = next(p for p in d["properties"] if p["name"] == "acked_write_kept")
    assert [s["action"] for s in lost["trace"]] == ["INIT", "Write()", "Crash()"]
    assert lost["explanation"]["summary"].startswith("the client was told ok for 1 write(s)")
    # the console: the toy's bounds in words, its explanation, its coverage per action kind
    assert "2 messages; at most 1 crash" in r.stdout
    assert "(set by Crash() at step 2)" in r.stdout
    assert all(kind in r.stdout for kind in ("Write", "Copy", "Crash"))


def test_check_writes_reports_and_itf_for_the_toy(check_run):
    _, out = check_run
    html = (out / "c.html").read_text()
    assert "acked_write_kept" in html and "the toy mode&#x27;s defaults (RocketMQ 1.0.0)" in html \
        or "the toy mode's defaults (RocketMQ 1.0.0)" in html
    assert "5.3.3" not in html
    itf = _json(out / "itf" / "acked_write_kept.itf.json")
    assert itf["#meta"]["config"]["mode"] == NAME
    assert [s["#meta"]["action"] for s in itf["states"]] == ["INIT", "Write()", "Crash()"]


def test_the_toy_settings_close_the_loss(explored):
    """What the toy is built to show: either setting keeps acknowledged writes."""
    for setting in ("sync_ack=true", "crash_keeps_log=true"):
        r = invoke("check", "--mode", NAME, "--set", setting, "--property", "acked_write_kept", "--quiet")
        assert r.exit_code == 0 and r.stdout.startswith("passed"), (setting, r.stdout)
    assert explored.property("acked_write_kept").status == "violated"


def test_its_failures_are_never_fair_and_unfair_takes_its_kinds(tmp_path):
    """The eventually property with ``Copy`` unfair: the run may stay after a write for ever, since the
    toy's failure ``Crash`` (which would bring the primary back to the backup's copy) is never fair either:
    the registry's failures are read when a check runs, not when the engine was imported."""
    out = tmp_path / "l.json"
    r = invoke("check", "--mode", NAME, "--set", "messages=1", "--property", "write_reaches_backup",
               "--unfair", "Copy", "--json", str(out), "--quiet")
    assert r.exit_code == 1, r.stderr
    prop = _json(out)["properties"][0]
    assert prop["status"] == "violated" and prop["loop_start"] == 1
    assert [s["action"] for s in prop["trace"]] == ["INIT", "Write()"]
    assert "Crash" in explore.fairness.failures()
    assert invoke("check", "--mode", NAME, "--set", "messages=1", "--property", "write_reaches_backup",
                  "--quiet").exit_code == 0
    assert invoke("replay", str(out)).exit_code == 0
    assert_bad_input(invoke("check", "--mode", NAME, "--unfair", "MasterRestart"), "--unfair MasterRestart",
                     "Copy, Crash, Write")


def test_bad_input_names_the_toys_own_names():
    assert_bad_input(invoke("check", "--mode", NAME, "--property", "replicas_agree"),
                     "unknown property 'replicas_agree' in mode toy", "acked_write_kept")
    assert_bad_input(invoke("check", "--mode", NAME, "--set", "sync_ak=true"), "did you mean 'sync_ack'")
    assert_bad_input(invoke("check", "--mode", NAME, "--set", "slaves=1"), "belongs to mode 4.4, not to mode toy")
    r = invoke("check", "--mode", NAME, "--set", "syncAck=true", "--property", "acked_write_kept", "--quiet")
    assert r.exit_code == 0   # its knob's RocketMQ-style alias


def test_config_writes_a_file_that_check_reads_back(tmp_path):
    r = invoke("config", "--mode", NAME, "--set", "sync_ack=true")
    assert r.exit_code == 0 and 'mode = "toy"' in r.stdout and "sync_ack = true" in r.stdout
    (tmp_path / "toy.toml").write_text(r.stdout)
    r = invoke("check", "--config", str(tmp_path / "toy.toml"), "--property", "acked_write_kept", "--quiet")
    assert r.exit_code == 0 and r.stdout.startswith("passed")


def test_report_and_replay_read_the_toys_check_result(check_run, tmp_path):
    _, out = check_run
    r = invoke("report", str(out / "c.json"), "--report", str(tmp_path / "r.md"))
    assert r.exit_code == 0, r.stderr
    md = (tmp_path / "r.md").read_text()
    assert "acked_write_kept" in md and "the toy mode's defaults (RocketMQ 1.0.0)" in md
    assert "the client was told ok for 1 write(s)" in md
    r = invoke("replay", str(out / "c.json"))
    assert r.exit_code == 0, r.stderr
    assert "acked_write_kept: recorded violated; exploration agrees" in r.stdout
    # a trace edited to claim another state is refused at its step
    d = _json(out / "c.json")
    lost = next(p for p in d["properties"] if p["name"] == "acked_write_kept")
    lost["trace"][2]["state"]["primary.log"] = 1
    (tmp_path / "edited.json").write_text(json.dumps(d))
    assert_bad_input(invoke("replay", str(tmp_path / "edited.json")), "step 2", "primary.log")


def test_faults_finds_the_crash_and_what_closes_it(tmp_path):
    out = tmp_path / "f.json"
    r = invoke("faults", "--mode", NAME, "--jobs", "1", "--json", str(out), "--report", str(tmp_path / "f.html"),
               "--quiet")
    assert r.exit_code == 1, r.stderr
    d = _json(out)
    lost = next(p for p in d["properties"] if p["name"] == "acked_write_kept")
    (mode,) = lost["modes"]
    assert mode["breaking_action"] == "Crash" and mode["combination"] == {"crashes": 1}
    assert mode["meaning"].startswith("Crash: the primary crashes")
    assert {json.dumps(c, sort_keys=True) for c in mode["closed_by"]} == \
        {'{"sync_ack": true}', '{"crash_keeps_log": true}'}
    assert d["bounds"] == {"messages": 2, "budgets": {"crashes": 1}}
    r = invoke("report", str(out), "--report", str(tmp_path / "f.md"))
    assert r.exit_code == 0, r.stderr
    md = (tmp_path / "f.md").read_text()
    assert "| Crash: the primary crashes; primary.log 1 -> 0 | sync_ack=true; crash_keeps_log=true |" in md
    r = invoke("replay", str(out))
    assert r.exit_code == 0, r.stderr
    assert "mode 1 (Crash): 2 steps replayed" in r.stdout


def test_worker_processes_know_the_toy_mode(tmp_path):
    """A sweep on two processes (spawned: a fresh interpreter) gives the answers of one: the workers adopt the
    registry of the process that started them, the toy mode included."""
    def faults(jobs: str) -> dict:
        out = tmp_path / f"f{jobs}.json"
        r = invoke("faults", "--mode", NAME, "--jobs", jobs, "--json", str(out), "--quiet")
        assert r.exit_code == 1, r.stderr
        d = _json(out)
        for key in ("seconds", "peak_rss_bytes", "bytes_per_state"):   # the process's, not the model's
            d["stats"].pop(key, None)
        d["next_bound"].pop("seconds")
        d["sweep"].pop("jobs")
        return d

    assert faults("2") == faults("1")
    r = invoke("matrix", "--preset", "toy", "--preset", "toy-sync", "--jobs", "2", "--json", str(tmp_path / "m.json"),
               "--quiet")
    assert r.exit_code == 1, r.stderr
    runs = _json(tmp_path / "m.json")["configurations"]
    assert [(run["name"], run["outcome"]) for run in runs] == [("toy", "violated"), ("toy-sync", "passed")]


def test_gate_records_and_then_holds_the_toys_verdicts(tmp_path, explored):
    baseline = tmp_path / "baseline.toml"
    baseline.write_text('[[configuration]]\nname = "toy"\npreset = "toy"\n\n'
                        '[[configuration]]\nname = "toy-sync"\nmode = "toy"\npreset = "toy-sync"\n')
    r = invoke("gate", "--baseline", str(baseline), "--update")
    assert r.exit_code == 0, r.stderr
    import tomllib
    expect = {c["name"]: c["expect"] for c in tomllib.loads(baseline.read_text())["configuration"]}
    assert expect["toy"] == explored.verdicts()
    assert expect["toy-sync"]["acked_write_kept"] == "holds"
    assert invoke("gate", "--baseline", str(baseline)).exit_code == 0
    baseline.write_text(baseline.read_text().replace('acked_write_kept = "holds"', 'acked_write_kept = "violated"'))
    r = invoke("gate", "--baseline", str(baseline))
    assert r.exit_code == 1 and "acked_write_kept" in r.stdout


# -- the explorer: its server started and stopped here ----------------------------------------------------
@pytest.fixture
def served(monkeypatch, check_run):
    """``rmqcheck explore --trace c.json --port 0`` (the toy check's result: its configuration and traces) in a
    thread of this process, where the toy is registered: yields the URL once it listens, then stops its
    server."""
    import uvicorn

    servers = []

    class Recorded(uvicorn.Server):
        def __init__(self, config):
            super().__init__(config)
            servers.append(self)

    monkeypatch.setattr(uvicorn, "Server", Recorded)
    result = {}
    trace = str(check_run[1] / "c.json")
    thread = threading.Thread(target=lambda: result.update(r=invoke("explore", "--trace", trace, "--port", "0")),
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not (servers and servers[0].started) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert servers and servers[0].started, result
    port = servers[0].servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        servers[0].should_exit = True
        thread.join(30)
    assert not thread.is_alive()
    assert result["r"].exit_code == 0 and f"rmqcheck explore: http://127.0.0.1:{port}/" in result["r"].stdout


def _call(url: str, body: dict | None = None) -> tuple[int, dict]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"} if data else {})
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_explorer_serves_the_toy(served, check_run):
    status, model = _call(served + "api/model")
    assert status == 200 and model["model"] == "toy-log" and model["bounds"] == "2 messages; at most 1 crash"
    assert {t["name"]: t["path"] for t in model["traces"]}["acked_write_kept"] == ["Write()", "Crash()"]
    assert [p["name"] for p in model["properties"]] == ["acked_write_kept", "backup_has_copy", "write_reaches_backup"]
    status, page = _call(served + "api/path?path=Write();Crash()")
    assert status == 200
    values = {p["name"]: p for p in page["properties"]}
    assert values["acked_write_kept"]["value"] == "violated"
    assert values["acked_write_kept"]["why"]["last_changed"] == {"client.acked": 1, "primary.log": 2}
    assert [a["label"] for a in page["enabled"]] == ["Write()"]   # nothing to copy, the one crash used
    status, page = _call(served + "api/step", {"path": "Write()", "action": "Copy()"})
    assert status == 200 and page["path"] == ["Write()", "Copy()"]
    status, refused = _call(served + "api/step", {"path": "", "action": "Copy()"})
    assert status == 400 and "enabled there: Write(), Crash()" in refused["error"]
    status, search = _call(served + "api/search", {"property": "acked_write_kept"})
    assert status == 202
    for _ in range(600):
        status, search = _call(served + f"api/search/{search['id']}")
        if search["state"] == "done":
            break
        time.sleep(0.1)
    assert search["status"] == "violated" and search["path"] == ["Write()", "Crash()"]
    _, out = check_run
    status, loaded = _call(served + "api/trace", {"name": "c.json", "text": (out / "c.json").read_text()})
    assert status == 200
    assert {t["name"]: t["path"] for t in loaded["traces"]}["acked_write_kept"] == ["Write()", "Crash()"]


def test_the_toys_traces_are_drawn_by_its_registered_drawings(check_run):
    """The toy registers its Drawings (``drawings_path``): its report's diagram has its three lifelines and
    the write as an arrow from its declaration, not a note per step; and the drawing table covers each of
    its declared actions once."""
    from reports.sequence import Mark, Message, diagram
    from explore.trace import replay
    from model.modes import get_mode

    mode = get_mode(NAME)
    drawings = mode.drawings()
    assert {d.name for d in drawings.declarations()} == set(drawings.declared()) | set(drawings.drawn)
    model = mode.model(mode.preset("toy"))
    index = {str(a): i for i, a in enumerate(model.actions())}
    trace = replay(model, model.initial_states()[0], [index["Write()"], index["Crash()"]])
    d = diagram(trace)
    assert d.actors == ["client", "primary", "backup"]
    assert [r.events for r in d.rows] == [[Message("client", "primary", "write")], [Mark("primary", "crash")]]
    html = (check_run[1] / "c.html").read_text()
    assert "client" in html and "backup" in html
