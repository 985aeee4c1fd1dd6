"""Engines are Explorers found by name in one registry; the CLI lists and builds them from it."""
from __future__ import annotations

import pytest

from explore import LocalExplorer, explore
from explore.protocol import Explorer, explorer_factory, explorer_names, register_explorer
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.local import Limits
from rmqcheck.engines import ENGINES


def test_the_cli_engines_are_the_registered_ones():
    assert explorer_names() == ENGINES == ("local", "spark")


def test_the_local_factory_builds_an_explorer_that_explores_like_explore():
    explorer = explorer_factory("local")(Counter(5, k=6), COUNTER_PROPERTIES, Limits(), None)
    assert isinstance(explorer, Explorer) and isinstance(explorer, LocalExplorer)
    assert explorer.engine == "local"
    result = explorer.run()
    expected = explore(Counter(5, k=6), COUNTER_PROPERTIES)
    assert (result.stats.distinct_states, result.stats.transitions) == \
        (expected.stats.distinct_states, expected.stats.transitions) == (6, 10)


def test_unknown_and_duplicate_engine_names_are_refused():
    with pytest.raises(ValueError, match="unknown engine 'ray'; known: local, spark"):
        explorer_factory("ray")
    with pytest.raises(ValueError, match="already registered"):
        register_explorer("local", lambda *args, **options: None)


def test_the_core_engine_package_never_names_the_spark_engine():
    """Layering: explore/ is the core every engine builds on; the Spark engine registers itself (importing
    spark_explore), so no module under explore/ imports it, or even names it."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "explore"
    naming = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py")) if "spark_explore" in p.read_text()]
    assert naming == []


def test_importing_the_engines_and_reports_imports_no_model_mode():
    """The engine's shared pieces (explore/native.py, packed.py, fingerprint.py, flags.py, kernel_cache.py)
    are no mode's: importing the local engine, the Spark engine or the reports loads the mode registry at
    most, never a mode's own modules (the 4.4 ones under model/, model.controller)."""
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import sys, explore.step, explore.local, explore.faults, spark_explore.engine, reports.console, "
             "reports.json_report, reports.markdown, reports.html, reports.faults, reports.itf, reports.junit\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'model'))")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, timeout=300)
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout.strip()) == ["model", "model.knobs", "model.modes"]


def test_no_module_of_the_engines_reports_or_commands_names_a_model_mode():
    """The engines, the failure-mode analysis, the reports and the commands reach a mode only through the
    registry (model/modes.py, with the shared model/knobs.py, model/versions.py, model/input_text.py): no
    module under explore/, spark_explore/, reports/ or rmqcheck/ imports a mode's own modules (each mode's
    configuration, model, drawings, fault profile, declarations and properties live in its package and are
    named by its registry entry)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    mode_modules = re.compile(r"\b(from|import)\s+(model\.(?!modes\b|knobs\b|versions\b|input_text\b)\w+|"
                              r"model\s+import|invariants\.(rocketmq|controller|declare|witnesses|checks)\b|"
                              r"invariants\s+import)")
    naming = [f"{p.relative_to(root)}:{n}" for package in ("explore", "spark_explore", "reports", "rmqcheck")
              for p in sorted((root / package).rglob("*.py"))
              for n, line in enumerate(p.read_text().splitlines(), 1) if mode_modules.search(line)]
    assert naming == []
