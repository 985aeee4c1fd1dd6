"""The explorer page in a real headless Chromium (Debian's ``chromium``; ``.ci/run`` installs it), driven over
its DevTools protocol with real mouse clicks, at a desktop (1400 px) and a phone (400 px) width.

On the ``default`` preset: take the 5 steps of the engine's shortest counterexample of
``committed_offset_never_regresses`` by clicking, check every state shown against ``rmqcheck replay``'s
replay of the same trace file, go back, open that state's URL in a fresh page load, open a URL with an
unknown action label (a message, HTTP 400), load a trace file with a liveness cycle, and ask for the
shortest path to a property. The page never scrolls sideways, and logs no error. Screenshots are written
to ``RMQCHECK_SCREENSHOTS`` when set (to look at them), else to the test's temporary directory.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "reports"))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from chromium import Browser, find_browser  # noqa: E402
from cli_driver import invoke  # noqa: E402
from explorer_fixtures import PROPERTY, served, session  # noqa: E402

BROWSER = find_browser()
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium found (install Debian's 'chromium' package, as .ci/run does, or set "
                            "RMQCHECK_CHROMIUM) to check the explorer page in a real browser")

WIDTHS = (1400, 400)

#: the page's state panel as {field: value text}, and the fields it marks as changed
SHOWN_STATE = """
Object.fromEntries([...document.querySelectorAll('#state tr[data-field]')].map(tr =>
  [tr.dataset.field, tr.querySelector('td.value').firstChild.textContent]))
"""
CHANGED = "[...document.querySelectorAll('#state tr.changed')].map(tr => tr.dataset.field)"
CURRENT_STEP = "(document.querySelector('#path tr.current') || {dataset: {}}).dataset.step"


def text(value) -> str:
    """A value as the page writes it."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(text(x) for x in value) + "]"
    return str(value)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The engine's counterexample as a ``check --json`` file, its steps as ``rmqcheck replay`` replays them,
    and the same file with a liveness cycle marked (``loop_start``, as lasso traces carry it)."""
    d = tmp_path_factory.mktemp("browser")
    invoke("check", "--preset", "default", "--property", PROPERTY, "--json", str(d / "check.json"), "--quiet")
    replayed = invoke("replay", str(d / "check.json"))
    assert replayed.exit_code == 0, replayed.stdout   # the file replays and its verdict is confirmed
    from rmqcheck.replay import replay_steps

    data = json.loads((d / "check.json").read_text())
    trace, _ = replay_steps(session().model, data["properties"][0]["trace"], "check.json")
    data["properties"][0]["loop_start"] = 3
    (d / "lasso.json").write_text(json.dumps(data))
    return {"dir": d, "trace": trace, "lasso": d / "lasso.json"}


@pytest.fixture(scope="module")
def server():
    with served("--preset", "default") as (url, _):
        yield url


@pytest.fixture(scope="module")
def browser():
    b = Browser(BROWSER)
    yield b
    b.close()


def shots_dir(tmp_path: Path) -> Path:
    d = Path(os.environ.get("RMQCHECK_SCREENSHOTS") or tmp_path)
    d.mkdir(parents=True, exist_ok=True)
    return d


def wait(b: Browser, expression: str, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = b.evaluate(expression)
        if value:
            return value
        time.sleep(0.05)
    shown = b.evaluate("[document.getElementById('error').textContent, location.href]")
    raise AssertionError(f"still false after {seconds} s: {expression}; the page shows {shown}, "
                         f"logged {b.errors()}")


def click(b: Browser, selector: str) -> None:
    """A real left click (mouse pressed and released) in the middle of the element ``selector`` matches."""
    x, y = b.evaluate(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
        e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
    for kind in ("mousePressed", "mouseReleased"):
        b.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})


def at_step(b: Browser, n: int) -> None:
    wait(b, f"{CURRENT_STEP} === '{n}'")


def fits(b: Browser) -> None:
    assert b.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        b.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


def screenshot(b: Browser, path: Path) -> None:
    """The whole page from its top (a page scrolled down draws its sticky header mid-picture)."""
    b.evaluate("window.scrollTo(0, 0)")
    b.screenshot(str(path))


def assert_shows(b: Browser, step) -> None:
    """The page shows ``step``'s state, the fields its action changed highlighted."""
    assert b.evaluate(SHOWN_STATE) == {name: text(value) for name, value in step.view.items()}
    assert sorted(b.evaluate(CHANGED)) == sorted(step.changes if step.index else [])


@pytest.mark.parametrize("width", WIDTHS)
def test_explore_a_counterexample_by_clicking(browser, server, files, width, tmp_path):
    b, trace, shots = browser, files["trace"], shots_dir(tmp_path)
    b.events.clear()
    b.open(server, width)
    at_step(b, 0)
    assert b.evaluate("window.innerWidth") == width
    assert_shows(b, trace.steps[0])
    # the 5 steps, one click each, each state as rmqcheck replay replays it
    for step in trace.steps[1:]:
        click(b, f"#actions button[data-label='{step.action}']")
        at_step(b, step.index)
        assert_shows(b, step)
        fits(b)
    assert b.evaluate(f"document.querySelector(\"#properties [data-property='{PROPERTY}']\").className") \
        == "prop violated"
    assert b.evaluate("document.querySelectorAll('#diagram svg.sequence g.step').length") == 5
    # watch two fields: a column each in the path, one value per step, in the URL too
    for field in ("master.up", "consumer1.q0.offset"):
        click(b, f"#state tr[data-field='{field}'] input.watch")
    wait(b, "document.querySelectorAll('#path thead th').length === 6")
    column = "[...document.querySelectorAll('#path tbody tr')].map(r => r.cells[{}].textContent)"
    for i, field in enumerate(("master.up", "consumer1.q0.offset")):
        assert b.evaluate(column.format(4 + i)) == [text(s.view[field]) for s in trace.steps]
    assert b.evaluate("new URLSearchParams(location.search).get('watch')") == "master.up,consumer1.q0.offset"
    screenshot(b, shots / f"explorer-counterexample-{width}.png")
    # back one step: the state before the crash, and its URL
    click(b, "#back")
    at_step(b, 4)
    assert_shows(b, trace.steps[4])
    url = b.evaluate("location.href")
    assert url.count(";") == 3 and "MasterCrash" not in url
    # that URL in a fresh page load shows the same state; forward then retakes the step
    b.open(url, width)
    at_step(b, 4)
    assert_shows(b, trace.steps[4])
    assert b.errors() == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_bad_url_says_why_and_answers_400(browser, server, width):
    b = browser
    b.events.clear()
    b.open(server + "?path=SendMessage();Bogus(x=1)", width)
    message = wait(b, "!document.getElementById('error').hidden && document.getElementById('error').textContent")
    assert "step 2" in message and "Bogus(x=1)" in message and "not an action" in message
    at_step(b, 0)   # the initial state shown instead
    status = b.call("Runtime.evaluate", {"expression": "fetch('/api/path?path=Bogus(x=1)').then(r => r.status)",
                                         "awaitPromise": True, "returnByValue": True})["result"]["value"]
    assert status == 400
    fits(b)


@pytest.mark.parametrize("width", WIDTHS)
def test_load_a_trace_with_a_cycle_and_step_through_it(browser, server, files, width, tmp_path):
    b, trace = browser, files["trace"]
    b.events.clear()
    b.open(server, width)
    at_step(b, 0)
    document = b.call("DOM.getDocument")["root"]["nodeId"]
    node = b.call("DOM.querySelector", {"nodeId": document, "selector": "#trace-file"})["nodeId"]
    b.call("DOM.setFileInputFiles", {"nodeId": node, "files": [str(files["lasso"])]})
    wait(b, "document.getElementById('trace-status').textContent.startsWith('lasso.json: 1 trace,')")
    at_step(b, 0)
    # the whole trace is listed ahead, its cycle marked from step 3 on, the next step's button marked
    assert b.evaluate("document.querySelectorAll('#path tbody tr').length") == len(trace.steps)
    assert b.evaluate("[...document.querySelectorAll('#path tr.loop')].map(r => r.dataset.step)") == \
        [str(i) for i in range(3, len(trace.steps))]
    assert "cycle" in b.evaluate("document.querySelector('#trace-info .loop-note').textContent")
    assert b.evaluate("document.querySelector('#actions button.next').dataset.label") == trace.steps[1].action
    for step in trace.steps[1:]:
        click(b, "#forward")
        at_step(b, step.index)
    assert_shows(b, trace.steps[-1])
    assert b.evaluate("document.getElementById('forward').disabled") is True
    fits(b)
    screenshot(b, shots_dir(tmp_path) / f"explorer-trace-{width}.png")
    assert b.errors() == []


@pytest.mark.parametrize("width", WIDTHS)
def test_shortest_path_to_a_property(browser, server, files, width, tmp_path):
    b, trace = browser, files["trace"]
    b.events.clear()
    b.open(server, width)
    at_step(b, 0)
    b.evaluate(f"document.getElementById('search-property').value = '{PROPERTY}'")
    click(b, "#search")
    message = wait(b, "document.getElementById('search-status').dataset.state === 'done' && "
                      "document.getElementById('search-status').textContent", 60)
    assert "shortest counterexample, 5 steps" in message
    at_step(b, 5)
    assert_shows(b, trace.steps[-1])
    assert b.evaluate("new URLSearchParams(location.search).get('path')") == \
        ";".join(s.action.replace(" ", "") for s in trace.steps[1:])
    fits(b)
    screenshot(b, shots_dir(tmp_path) / f"explorer-shortest-{width}.png")
    assert b.errors() == []


#: a few steps of the controller mode: broker 1 registers, is elected master of epoch 1, stores message 1
CONTROLLER_STEPS = ("RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "SendMessage(broker=1)")


@pytest.fixture(scope="module")
def controller_server():
    with served("--preset", "controller") as (url, _):
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_controller_mode_by_clicking(browser, controller_server, width, tmp_path):
    """The same page on the controller mode: its actors, its actions and its properties, from that model."""
    from explorer_fixtures import controller_session

    from explore.trace import replay

    s = controller_session()
    actions = [s.action_index(label, i) for i, label in enumerate(CONTROLLER_STEPS, start=1)]
    trace = replay(s.model, s.model.initial()[0], actions)
    b = browser
    b.events.clear()
    b.open(controller_server, width)
    at_step(b, 0)
    assert b.evaluate("[...document.querySelectorAll('#state .actor-box h3')].map(h => h.textContent)") == \
        ["controller", "producer", "consumer", "budget", "broker1", "broker2"]
    for step in trace.steps[1:]:
        click(b, f"#actions button[data-label='{step.action}']")
        at_step(b, step.index)
        assert_shows(b, step)
        fits(b)
    assert b.evaluate("document.querySelector(\"#properties [data-property='one_master_per_epoch']\").className") \
        == "prop holds"
    screenshot(b, shots_dir(tmp_path) / f"explorer-controller-{width}.png")
    assert b.errors() == []
