"""The faults report reads as a document: contents, the decision table, per-property and per-trace anchors,
links from the tables to the traces and back, a sequence diagram per trace; in a real headless Chromium
at a desktop (1400 px) and a phone (400 px) width it loads cleanly and never scrolls sideways."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from chromium import Browser, find_browser  # noqa: E402
from cli_driver import SMALL, invoke  # noqa: E402

BROWSER = find_browser()


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    d = tmp_path_factory.mktemp("faults-report")
    args = (*SMALL, "--max-configs", "2", "--jobs", "1", "--table", "--quiet")
    assert invoke("faults", *args, "--report", str(d / "f.html")).exit_code == 1
    assert invoke("faults", *args, "--report", str(d / "f.md")).exit_code == 1
    return d / "f.html", d / "f.md"


def test_every_link_has_its_anchor_and_every_trace_links_back(reports):
    html, md = (p.read_text() for p in reports)
    for text in (html, md):
        ids = set(re.findall(r"id='([^']+)'", text))
        links = set(re.findall(r"(?:href='#|\]\(#)([^')]+)", text))
        assert links and links <= ids, links - ids
        traces = {i for i in ids if re.fullmatch(r"p-[a-z_]+-(m|c|v|nm|nc)\d+", i)}
        assert traces and traces <= links                 # every trace is linked to from a table or the contents
        assert "table" in ids and "#table" in text        # the decision table, in the contents
    # each trace article links back to its property's section, and has its sequence diagram
    articles = re.findall(r"<article class='trace' id='(p-([a-z_]+)-[a-z]+\d+)'>(.*?)</article>", html, re.S)
    assert articles
    for _, prop, body in articles:
        assert f"href='#p-{prop}'" in body and "<svg" in body
    assert html.index("id='table'") < html.index("id='p-acked_message_never_lost'")
    assert md.count("```mermaid") == len(articles)


@pytest.mark.skipif(BROWSER is None, reason="no Chromium found (Debian's 'chromium' package, or RMQCHECK_CHROMIUM)")
@pytest.mark.parametrize("width", (1400, 400))
def test_the_report_fits_the_width_in_a_real_browser(reports, width):
    b = Browser(BROWSER)
    try:
        b.open(reports[0].as_uri(), width)
        assert b.errors() == []
        assert b.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
            b.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        # every diagram is drawn with a size (it scrolls inside its own box when wider than the screen)
        sizes = b.evaluate("[...document.querySelectorAll('article.trace svg')].map(s => s.getBoundingClientRect().width)")
        assert sizes and all(w > 0 for w in sizes)
        # on a phone the modes and the decision table are cards: none is wider than the screen
        widest = b.evaluate("Math.max(...[...document.querySelectorAll('table.cards')].map(t => t.getBoundingClientRect().right))")
        assert widest <= width
    finally:
        b.close()
