"""The explorer's endpoints without a browser (Starlette's TestClient), on the ``default`` preset: each one's
answer against the model and the engine, and every kind of bad input answered with a message and an HTTP
error code, never a traceback."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from explorer_fixtures import PROPERTY, client, counterexample, session  # noqa: E402

from rmqcheck.explorer.session import MAX_PATH, join_path  # noqa: E402


@pytest.fixture(scope="module")
def api():
    with client() as c:
        yield c


def path_query(labels) -> dict[str, str]:
    return {"path": join_path(labels)}


def refused(response, status: int, *words: str) -> str:
    """The response is a JSON error with ``status`` naming ``words``, and no traceback."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert "Traceback" not in response.text and 'File "' not in response.text
    for word in words:
        assert word in message, (word, message)
    return message


# -- the page and its files ------------------------------------------------------------------------------------
def test_the_page_and_its_files_are_served_and_load_nothing_from_the_network(api):
    page = api.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    files = {url: api.get(url) for url in re.findall(r'<(?:link|script) [^>]*(?:href|src)="(/[^"]*)"', page.text)}
    assert set(files) == {"/static/explorer.css", "/sequence.css", "/static/explorer.js"}
    for url, response in files.items():
        assert response.status_code == 200, url
        assert not re.search(r"https?://", response.text), url   # no CDN, no font, no script from elsewhere
    assert not re.search(r"https?://", page.text)


def test_model_describes_configuration_actors_and_properties_from_the_model(api):
    d = api.get("/api/model").json()
    s = session()
    assert d["config"] == s.config.as_dict()
    assert [p["name"] for p in d["properties"]] == [p.name for p in s.properties]
    initial_view = s.model.view(s.model.initial()[0])
    # every field of the model's view, once, under the actor its name starts with, in the view's order
    assert [f for a in d["actors"] for f in a["fields"]] == list(initial_view)
    assert all(f.startswith(a["actor"] + ".") for a in d["actors"] for f in a["fields"])
    assert {"producer", "master", "slave1", "nameserver", "consumer1"} <= {a["actor"] for a in d["actors"]}
    assert d["traces"] == []


# -- a path: the state, the enabled actions, the properties -----------------------------------------------------
def test_the_counterexample_path_shows_the_engines_states_and_the_violation(api):
    trace = counterexample()
    labels = trace.actions
    assert len(labels) == 5
    d = api.get("/api/path", params=path_query(labels)).json()
    assert d["path"] == labels and d["query"] == join_path(labels)
    assert [s["action"] for s in d["steps"]] == ["INIT", *labels]
    # each step's state is the one the engine's trace reached, and its changes are the engine's too
    assert [s["state"] for s in d["steps"]] == [s.view for s in trace.steps]
    assert [s["changes"] for s in d["steps"]] == [s.changes for s in trace.steps]
    last = trace.steps[-1]
    shown = {f["name"]: f for g in d["state"] for f in g["fields"]}
    assert {n: f["value"] for n, f in shown.items()} == last.view
    assert {n for n, f in shown.items() if f["changed"]} == set(last.changes) != set()
    props = {p["name"]: p for p in d["properties"]}
    assert props[PROPERTY]["value"] == "violated"
    why = props[PROPERTY]["why"]
    assert why["summary"] and any(not c["holds"] for c in why["conditions"])
    # one step before, the property still held (the engine's trace is a shortest one)
    before = api.get("/api/properties", params=path_query(labels[:-1])).json()["properties"]
    assert {p["name"]: p["value"] for p in before}[PROPERTY] == "holds"
    assert d["sequence"].startswith("<svg class='sequence'") and d["sequence"].count("class='step'") == 5


def test_enabled_actions_are_the_models_with_their_outcomes(api):
    s = session()
    trace = counterexample()
    for i in range(len(trace.steps)):
        d = api.get("/api/actions", params=path_query(trace.actions[:i])).json()
        enabled = s.model.enabled(trace.steps[i].state)
        assert [a["label"] for a in d["enabled"]] == [str(a) for a, _, _ in enabled]
        assert [a["outcome"] for a in d["enabled"]] == [s.model.describe_outcome(f) for _, _, f in enabled]
        assert [a["actor"] for a in d["enabled"]] == [a.actor for a, _, _ in enabled]
    first = {a["label"]: a for a in api.get("/api/actions").json()["enabled"]}
    assert first["SendMessage()"]["outcome"] == "SEND_OK"
    assert "master.commitlog" in first["SendMessage()"]["changes"]


def test_state_and_properties_endpoints_agree_with_the_whole_answer(api):
    labels = counterexample().actions[:3]
    whole = api.get("/api/path", params=path_query(labels)).json()
    assert api.get("/api/state", params=path_query(labels)).json() == {"path": labels, "state": whole["state"]}
    assert api.get("/api/properties", params=path_query(labels)).json() == {"path": labels,
                                                                            "properties": whole["properties"]}


def test_a_sometimes_property_read_on_transitions_is_witnessed_by_the_step_that_witnesses_it(api):
    name = "master_recovers"
    trace = counterexample(name)
    values = [{p["name"]: p["value"] for p in api.get("/api/properties", params=path_query(trace.actions[:i]))
               .json()["properties"]}[name] for i in range(len(trace.steps))]
    assert values == ["not-witnessed"] * (len(trace.steps) - 1) + ["witnessed"]


def test_step_takes_one_action_and_spaces_in_labels_do_not_matter(api):
    labels = counterexample().actions
    d = api.post("/api/step", json={"path": join_path(labels[:2]), "action": labels[2]}).json()
    assert d["path"] == labels[:3]
    spaced = api.get("/api/path", params={"path": " ; ".join(labels[:3])}).json()
    assert spaced["steps"] == d["steps"]
    assert api.post("/api/step", json={"action": "SendMessage()"}).json()["path"] == ["SendMessage()"]


# -- bad input ------------------------------------------------------------------------------------------------
def test_an_unknown_action_label_in_a_url_is_a_clear_400(api):
    refused(api.get("/api/path", params={"path": "SendMessage();Bogus(x=1)"}), 400, "step 2", "Bogus(x=1)",
            "not an action of this configuration")
    refused(api.get("/api/path", params={"path": "Pull(consumer=7, queue=0)"}), 400, "step 1")


def test_an_action_not_enabled_is_a_400_that_lists_what_is_enabled(api):
    message = refused(api.get("/api/path", params={"path": "Consume(consumer=1,queue=0)"}), 400, "step 1",
                      "not enabled", "enabled there:")
    assert "SendMessage()" in message
    refused(api.post("/api/step", json={"path": "", "action": "MasterRestart()"}), 400, "not enabled")


def test_a_path_too_long_is_refused(api):
    refused(api.get("/api/path", params={"path": ";".join(["SendMessage()"] * (MAX_PATH + 1))}), 400,
            f"at most {MAX_PATH}")


@pytest.mark.parametrize("body, headers, words", [
    ("{}", {"content-type": "text/plain"}, ("as JSON",)),
    ("{not json", {"content-type": "application/json"}, ("not JSON",)),
    ("[1, 2]", {"content-type": "application/json"}, ("JSON object",)),
    ('{"path": ""}', {"content-type": "application/json"}, ("'action'",)),
    ('{"action": 3}', {"content-type": "application/json"}, ("'action'",)),
    ('{"path": 5, "action": "SendMessage()"}', {"content-type": "application/json"}, ("'path'",)),
])
def test_a_malformed_step_request_is_a_400(api, body, headers, words):
    refused(api.post("/api/step", content=body, headers=headers), 400, *words)


def test_a_body_too_large_is_a_413(api):
    from rmqcheck.explorer.server import MAX_BODY
    refused(api.post("/api/trace", content=b" " * (MAX_BODY + 1), headers={"content-type": "application/json"}),
            413, "larger than")


def test_unknown_addresses_and_methods_are_http_errors_not_tracebacks(api):
    assert api.get("/api/nothing").status_code == 404
    assert api.get("/api/step").status_code == 405
    assert api.get("/static/nothing.js").status_code == 404


def test_a_request_naming_another_host_is_refused():
    """A page of another site that rebinds its name to 127.0.0.1 sends its own name as Host: refused."""
    with client() as c:
        response = c.get("/api/model", headers={"host": "attacker.example:8737"})
        assert response.status_code == 400
        assert c.get("/api/model", headers={"host": "localhost:8737"}).status_code == 200


# -- shortest path to a property --------------------------------------------------------------------------------
def wait_for(c, search_id: int, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        d = c.get(f"/api/search/{search_id}").json()
        if d["state"] != "running":
            return d
        time.sleep(0.05)
    raise AssertionError(f"search {search_id} still running after {seconds} s")


def test_shortest_path_runs_the_check_and_returns_its_counterexample():
    with client() as c:
        started = c.post("/api/search", json={"property": PROPERTY})
        assert started.status_code == 202 and started.json()["state"] == "running"
        done = wait_for(c, started.json()["id"])
        assert done["state"] == "done" and done["status"] == "violated"
        assert done["path"] == counterexample().actions
        assert "5 steps" in done["message"] and done["progress"]["distinct"] > 0


def test_a_second_search_while_one_runs_is_a_409():
    """The graph property needs the whole graph (about 4 s here): the second search comes while it runs."""
    with client() as c:
        first = c.post("/api/search", json={"property": "replication_can_catch_up"}).json()
        refused(c.post("/api/search", json={"property": PROPERTY}), 409, "still running", "replication_can_catch_up")
        done = wait_for(c, first["id"])
        assert done["state"] == "done" and done["status"] == "violated"
        end = c.get("/api/properties", params=path_query(done["path"])).json()["properties"]
        assert {p["name"]: p["value"] for p in end}["replication_can_catch_up"] == "goal-fails"
        assert c.post("/api/search", json={"property": PROPERTY}).status_code == 202   # free again


def test_a_search_that_finds_no_path_says_why():
    """``max_depth=3``: the check of a property violated only deeper ends incomplete, with no path."""
    from explore.local import Limits
    with client(Limits(max_depth=3)) as c:
        done = wait_for(c, c.post("/api/search", json={"property": "replication_can_catch_up"}).json()["id"])
        assert done["state"] == "done" and done["path"] is None and done["status"] == "unknown"
        assert "no path" in done["message"] and "depth" in done["message"]


def test_bad_searches_are_refused(api):
    refused(api.post("/api/search", json={"property": "no_such_property"}), 400, "unknown property",
            "acked_message_never_lost")
    refused(api.post("/api/search", json={}), 400, "'property'")
    refused(api.get("/api/search/999"), 404, "no search")
    refused(api.get("/api/search/abc"), 404, "no search")


def test_a_bug_is_a_500_with_a_message_not_a_traceback(monkeypatch):
    """An exception inside the explorer (here a model whose kernel fails) answers JSON naming it; the
    traceback goes to the server's log only."""
    from explore.local import Limits
    from rmqcheck.explorer.server import Explorer, app
    from rmqcheck.explorer.session import Session
    from starlette.testclient import TestClient

    broken = Session(session().config)
    monkeypatch.setattr(broken.model, "enabled", lambda state: 1 / 0)
    with TestClient(app(Explorer(broken, Limits())), base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as c:
        refused(c.get("/api/actions"), 500, "internal error", "ZeroDivisionError")
        assert c.get("/api/state").status_code == 200   # what does not need the broken part still answers
