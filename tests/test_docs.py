"""The README and the documentation site: the README stays a short quick start whose test command is the
one CI runs; the site builds in strict mode (every link and anchor checked); its generated reference names
every command, knob, preset, property and action; nothing refers to what a user does not have."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = sorted((ROOT / "docs").rglob("*.md"))
#: what a user of rmqcheck does not have: the project's private notes, its tracker and history
PRIVATE_WORDS = r"model-scope|/work/|shared/spec|design card|\bissue \d+|\bwave[- ]?\d|\bwave\b"
COMMIT_HASH = r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"
PRIVATE = re.compile(f"{PRIVATE_WORDS}|{COMMIT_HASH}")


def test_readme_is_a_short_quick_start_whose_test_command_ci_runs_verbatim():
    assert len(README.splitlines()) < 200
    start = README.index("## Quick start")
    block = README[README.index("```bash", start) + len("```bash"):README.index("```", README.index("```bash", start) + 7)]
    commands = [line for line in block.strip().splitlines() if line.strip()]
    assert len(commands) == 2, commands
    assert "rmqcheck check" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines(), "the README's test command must be the line .ci/run runs"


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_refers_to_what_a_user_does_not_have(path):
    found = [(n, m.group()) for n, line in enumerate(path.read_text().splitlines(), 1)
             for m in [PRIVATE.search(line)] if m]
    assert not found, found


def test_readme_links_point_at_files_that_exist():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), target


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr, result.stderr
    return out


def test_the_site_builds_in_strict_mode_with_the_reference_generated(site):
    from invariants import PROPERTIES
    from model import KNOBS, PRESETS
    from model.declare import declarations
    from rmqcheck.cli import cli

    def page(name):
        return (site / "reference" / name / "index.html").read_text()

    commands, knobs, properties, actions = page("commands"), page("knobs"), page("properties"), page("actions")
    assert "<!-- reference:" not in commands + knobs + properties + actions
    missing = [c for c in cli.commands if f"rmqcheck {c}</code>" not in commands]
    missing += [k.key for k in KNOBS if f"<code>{k.key}</code>" not in knobs]
    missing += [p for p in PRESETS if f"<code>{p}</code>" not in knobs]
    missing += [p.name for p in PROPERTIES if f"<code>{p.name}</code>" not in properties]
    missing += [d.name for d in declarations() if f"<code>{d.name}</code>" not in actions]
    assert not missing, missing
    # the options of a command, from its declaration: the newest ones included
    assert "<code>--broker-conf FILE</code>" in commands
    # the generated text (help texts, docstrings) names nothing a user does not have either (the asset
    # names' hex digests aside)
    words = re.compile(PRIVATE_WORDS)
    for page in site.rglob("*.html"):
        found = words.search(page.read_text())
        assert found is None, (page, found.group())


def test_every_action_argument_and_its_values_are_documented():
    """Issue 45, item 10: ``flush=timeout`` (a label of SendMessage under SYNC_FLUSH) was documented nowhere."""
    from model import Config
    from model.declare import declarations
    from rmqcheck.reference import ARGUMENTS, actions

    table = actions()
    for arg in {a for d in declarations() for a in d.args}:
        assert arg.name in ARGUMENTS and f"| `{arg.name}` |" in table
        values = set(arg.values(Config.from_mapping({"flush_disk_type": "SYNC_FLUSH"}))) | \
            set(arg.values(Config.from_mapping({})))
        for value in values:
            if isinstance(value, str):
                assert f"`{value}`" in ARGUMENTS[arg.name], (arg.name, value)
