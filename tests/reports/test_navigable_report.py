"""The report as a document to navigate: the command that reproduces the run, contents and links, the
explanation of each violation (HTML, Markdown, JSON), the matrix table; and ``--traces`` on the console."""
from __future__ import annotations

import html
import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from explore.result import PropertyResult, Step, Trace
from invariants.explain import explain_result

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, TINY, assert_bad_input, invoke  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("navigable")
    r = invoke("check", *SMALL, "--json", str(d / "r.json"), "--report", str(d / "r.html"), "--quiet")
    assert r.exit_code == 1, r.output
    invoke("check", *SMALL, "--report", str(d / "r.md"), "--quiet")
    return d, json.loads((d / "r.json").read_text()), (d / "r.html").read_text(), (d / "r.md").read_text()


def trace_of(p: dict) -> Trace:
    return Trace([Step(s["step"], s["action"], (), s["state"], s["changes"], s.get("outcome", ""))
                  for s in p["trace"]])


def test_header_names_the_version_and_a_command_that_reproduces_the_run(run, tmp_path):
    d, result, page, _ = run
    command = html.unescape(re.search(r"<pre class='command'><code>(.*?)</code></pre>", page).group(1))
    assert command == shlex.join(["rmqcheck", "check", *SMALL, "--quiet"])   # no output file: nothing overwritten
    assert f"Written by rmqcheck {result['version']}." in page
    # running the command again gives the same verdicts (written where this test says)
    words = shlex.split(command)[2:] + ["--json", str(tmp_path / "again.json")]
    r = invoke("check", *words)
    assert r.exit_code == 1
    again = json.loads((tmp_path / "again.json").read_text())
    assert [(p["name"], p["status"]) for p in again["properties"]] == \
        [(p["name"], p["status"]) for p in result["properties"]]


def test_every_link_leads_somewhere_and_every_trace_is_linked_from_contents_and_verdicts(run):
    _, result, page, _ = run
    ids = re.findall(r" id='([^']+)'", page)
    assert len(ids) == len(set(ids))
    links = re.findall(r"href='#([^']+)'", page)
    assert links and set(links) <= set(ids)
    contents = page.split("<nav class='toc'>")[1].split("</nav>")[0]
    verdicts = page.split("<h3 id='c0-verdicts'>")[1].split("</table>")[0]
    for p in result["properties"]:
        if "trace" in p:
            assert f"href='#c0-{p['name']}'" in contents
            assert f"href='#c0-{p['name']}'>{len(p['trace']) - 1}&nbsp;steps</a>" in verdicts


def test_json_explains_each_violation_with_a_trace_and_nothing_else(run):
    _, result, _, _ = run
    explained = 0
    for p in result["properties"]:
        if p["status"] != "violated" or "trace" not in p:
            assert "explanation" not in p
            continue
        e = p["explanation"]
        assert set(e) == {"summary", "conditions", "last_changed"}
        assert any(not c["holds"] for c in e["conditions"])
        last = p["trace"][-1]["state"]
        for c in e["conditions"]:
            assert set(c) == {"text", "holds", "fields"} and all(last[f] == v for f, v in c["fields"].items())
        assert all(isinstance(step, int) and 0 <= step < len(p["trace"]) for step in e["last_changed"].values())
        # the JSON holds what the explainer computes from the trace it carries
        prop = PropertyResult(p["name"], p["kind"], p["status"], trace=trace_of(p))
        assert explain_result(prop, result["config"]).to_dict() == e
        explained += 1
    # acked_message_never_lost, consumed_message_never_lost, committed_offset_never_regresses, the graph
    # property replication_can_catch_up and the eventually properties acked_message_eventually_consumed and
    # slaves_eventually_catch_up are violated in this space
    assert explained == 6


def test_html_and_markdown_show_each_explanation_and_each_diagram(run):
    _, result, page, md = run
    for p in result["properties"]:
        if "trace" not in p:
            continue
        article = page.split(f"id='c0-{p['name']}'>")[1].split("</article>")[0]
        section = md.split(f"## {p['name']}: ")[1].split("\n#")[0]
        assert "<svg class='sequence'" in article and "```mermaid\nsequenceDiagram\n" in section
        if "explanation" in p:
            failed = [c["text"] for c in p["explanation"]["conditions"] if not c["holds"]]
            for text in failed:
                assert html.escape(text) in article and f"✗ {text}" in section
        else:
            assert "Why it is violated" not in article and "Why it is violated" not in section


def test_matrix_report_has_the_matrix_table_linking_to_each_trace(tmp_path):
    path = tmp_path / "m.html"
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--report", str(path),
               "--json", str(tmp_path / "m.json"), "--quiet")
    assert r.exit_code == 1
    page = path.read_text()
    configs = json.loads((tmp_path / "m.json").read_text())["configurations"]
    table = page.split("<table class='matrix'>")[1].split("</table>")[0]
    assert "<th><a href='#c0'>default</a></th><th><a href='#c1'>sync-master</a></th>" in table
    for i, c in enumerate(configs):
        for p in c["properties"]:
            if "trace" in p:
                assert f"<a href='#c{i}-{p['name']}'>{p['status']} ({len(p['trace']) - 1})</a>" in table
    assert set(re.findall(r"href='#([^']+)'", page)) <= set(re.findall(r" id='([^']+)'", page))


# -- --traces on the console -------------------------------------------------------------------------------
#: a trace's title: "name: violated in 5 steps", "name: reached in 3 steps (witness)", or an eventually
#: property's lasso, "name: violated: a lasso of 8 steps, repeating from step 8"
TITLE = re.compile(r"^(?:(\S+) / )?(\w+): (violated|reached)(?: in |: a lasso of )(\d+) steps( \(witness\))?", re.M)


def titles(output: str) -> list[tuple[str, str, str]]:
    return [(m.group(1) or "", m.group(2), m.group(3)) for m in TITLE.finditer(output)]


@pytest.fixture(scope="module")
def small_verdicts(tmp_path_factory):
    path = tmp_path_factory.mktemp("verdicts") / "r.json"
    invoke("check", *SMALL, "--json", str(path), "--quiet")
    return [p for p in json.loads(path.read_text())["properties"] if "trace" in p]


@pytest.mark.parametrize("choice, statuses", [(None, {"violated"}), ("violated", {"violated"}),
                                              ("all", {"violated", "reached"}), ("none", set())])
def test_traces_option_picks_the_console_traces(small_verdicts, choice, statuses):
    r = invoke("check", *SMALL, *(("--traces", choice) if choice else ()))
    assert r.exit_code == 1
    expected = [("", p["name"], p["status"]) for p in small_verdicts if p["status"] in statuses]
    assert titles(r.stdout) == expected
    # each violation shown is explained under its trace
    assert r.stdout.count("\nwhy ") == sum(1 for _, _, status in expected if status == "violated")


def test_matrix_prints_the_traces_of_each_configuration(tmp_path):
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--traces", "all",
               "--json", str(tmp_path / "m.json"))
    configs = json.loads((tmp_path / "m.json").read_text())["configurations"]
    expected = [(c["name"], p["name"], p["status"]) for c in configs for p in c["properties"] if "trace" in p]
    assert titles(r.stdout) == expected
    none = invoke("matrix", "--preset", "default", *TINY, "--traces", "none")
    assert titles(none.stdout) == []


def test_traces_option_rejects_other_values(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("exploration started despite bad input")
    for module in ("rmqcheck.check", "rmqcheck.matrix"):
        monkeypatch.setattr(f"{module}.run_check", refuse)
    assert_bad_input(invoke("check", "--traces", "some"), "--traces")
    assert_bad_input(invoke("matrix", "--traces", "witnesses"), "--traces")
