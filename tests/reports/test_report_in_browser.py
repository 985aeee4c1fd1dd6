"""The HTML report in a real headless Chromium (Debian's ``chromium`` package; ``.ci/run`` installs it):
it loads without console errors, every trace's sequence diagram is present and visible, and at a desktop
(1400 px) and a phone (400 px) width the page never scrolls sideways."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from chromium import Browser, find_browser  # noqa: E402
from cli_driver import SMALL, invoke  # noqa: E402

BROWSER = find_browser()
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium found (install Debian's 'chromium' package, as .ci/run does, or set "
                            "RMQCHECK_CHROMIUM) to check the HTML report in a real browser")

WIDTHS = (1400, 400)

#: for each trace article: its id, and whether its diagram is there, has a size, is not hidden, and (scrolled
#: to) is the element actually painted at its top-left corner
DIAGRAMS = """
[...document.querySelectorAll('article.trace')].map(a => {
  const s = a.querySelector('svg.sequence');
  if (!s) return [a.id, false, 'missing'];
  s.scrollIntoView({block: 'start', inline: 'start'});
  const r = s.getBoundingClientRect(), st = getComputedStyle(s);
  const hit = document.elementFromPoint(Math.max(r.left, 0) + 3, Math.max(r.top, 0) + 3);
  const shown = s.checkVisibility({opacityProperty: true, visibilityProperty: true})
                && r.width > 0 && r.height > 0 && st.display !== 'none' && st.visibility === 'visible'
                && st.opacity !== '0' && r.top < innerHeight && r.left < innerWidth && r.bottom > 0 && r.right > 0;
  return [a.id, shown && hit !== null && s.contains(hit), [r.width, r.height, st.visibility]];
})
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """A check report and a matrix report of the small space, and the traces each must show."""
    d = tmp_path_factory.mktemp("browser")
    invoke("check", *SMALL, "--report", str(d / "check.html"), "--json", str(d / "check.json"), "--quiet")
    invoke("matrix", "--preset", "default", "--preset", "read-from-slave", *SMALL, "--report",
           str(d / "matrix.html"), "--json", str(d / "matrix.json"), "--quiet")
    check = json.loads((d / "check.json").read_text())
    matrix = json.loads((d / "matrix.json").read_text())["configurations"]
    def ids(i: int, result: dict) -> list[str]:   # each property trace, then the terminal-state trace
        return ([f"c{i}-{p['name']}" for p in result["properties"] if "trace" in p]
                + ([f"c{i}-terminal"] if "terminal_trace" in result else []))

    return {
        "check": (d / "check.html", ids(0, check)),
        "matrix": (d / "matrix.html", [t for i, c in enumerate(matrix) for t in ids(i, c)]),
    }


@pytest.fixture(scope="module")
def browser():
    b = Browser(BROWSER)
    yield b
    b.close()


def open_fitting(browser, path, width: int) -> None:
    """Open ``path`` at ``width``: it loads without console errors and never scrolls sideways."""
    browser.events.clear()
    browser.open(path.as_uri(), width)
    assert browser.errors() == []
    assert browser.evaluate("window.innerWidth") == width
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        browser.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("report", ["check", "matrix"])
def test_report_loads_cleanly_shows_every_diagram_and_fits_the_width(browser, reports, report, width):
    path, trace_ids = reports[report]
    open_fitting(browser, path, width)
    diagrams = browser.evaluate(DIAGRAMS)
    assert sorted(d[0] for d in diagrams) == sorted(trace_ids)
    assert all(d[1] for d in diagrams), [d for d in diagrams if not d[1]]
    assert browser.errors() == []


def test_a_step_opens_to_show_the_full_state(browser, reports):
    path, _ = reports["check"]
    browser.open(path.as_uri(), 400)
    hidden, shown, rows = browser.evaluate("""(() => {
      const d = document.querySelector('article.trace details.step:last-child');
      const table = d.querySelector('table');
      const before = table.checkVisibility();
      d.querySelector('summary').click();
      return [before, table.checkVisibility() && table.getBoundingClientRect().height > 0, table.rows.length];
    })()""")
    assert hidden is False and shown is True and rows > 10
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_checks_fail_on_a_page_that_is_too_wide_errs_and_hides_its_diagram(browser, tmp_path):
    """The harness itself: a page with a console error, a missing image, a 2,000 px block and a hidden
    diagram fails each check the report passes."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>console.error('boom')</script>"
                   "<img src='missing.png'><div style='width:2000px'>wide</div>"
                   "<article class='trace' id='t'><svg class='sequence' width='10' height='10' "
                   "style='visibility:hidden'></svg></article></body></html>")
    browser.events.clear()
    browser.open(bad.as_uri(), 400)
    errors = browser.errors()
    assert any("boom" in e for e in errors) and any("missing.png" in e or "ERR_FILE_NOT_FOUND" in e for e in errors)
    assert not browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.evaluate(DIAGRAMS)[0][1] is False


@pytest.fixture(scope="module")
def faults_reports(tmp_path_factory):
    """The faults report of each model mode, with the decision table (issue 45, item 10: 405 and 422 px wide
    at 400, a trace title of a long property name could not break)."""
    d = tmp_path_factory.mktemp("faults-browser")
    out = {}
    for name, args in (("4.4", ("--preset", "default", "--set", "messages=1")),
                       ("controller", ("--preset", "controller", "--set", "messages=1"))):
        path = d / f"{name}.html"
        r = invoke("faults", *args, "--table", "--report", str(path), "--json", str(d / f"{name}.json"), "--quiet")
        assert r.exit_code == 1, (r.stdout, r.stderr)
        out[name] = path, json.loads((d / f"{name}.json").read_text())
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("mode", ["4.4", "controller"])
def test_faults_report_fits_the_width_and_draws_every_trace(browser, faults_reports, mode, width):
    path, data = faults_reports[mode]
    open_fitting(browser, path, width)
    # the facts at the top (bounds, availability, ...) wrap inside the page: no box to scroll sideways
    assert browser.evaluate("(() => { const w = document.querySelector('table.facts').parentElement; "
                            "return w.scrollWidth <= w.clientWidth; })()")
    articles, diagrams = browser.evaluate("[document.querySelectorAll('article.trace').length, "
                                          "document.querySelectorAll('article.trace svg.sequence').length]")
    assert articles == diagrams > 0
    lassos = [v for p in data["properties"] if p["kind"] == "eventually" for v in p["vectors"]
              if "loop_start" in v]
    loops = browser.evaluate("document.querySelectorAll('article.trace p.loop').length")
    assert loops == len(lassos) and (mode == "controller" or loops > 0)   # every lasso says its cycle
