"""The kernel cache is keyed on exactly the sources the kernels are built from: editing a pure-Python
module no kernel imports keeps the compiled kernels; changing a constant the kernels read starts afresh."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explore.kernel_cache import _PACKAGES, _ROOT, kernel_sources, source_digest


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for package in _PACKAGES:
        shutil.copytree(_ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_editing_a_pure_python_module_keeps_the_cache(tree):
    before = source_digest(tree)
    _edit(tree / "explore" / "result.py", '"""', '"""An edited docstring. ')
    (tree / "explore" / "local.py").write_text((tree / "explore" / "local.py").read_text() + "# a comment\n")
    assert source_digest(tree) == before


@pytest.mark.parametrize("module, old, new", [
    ("model/events.py", "EV_MASTER_RECOVERED = 16", "EV_MASTER_RECOVERED = 64"),   # read by kernels only
    ("model/fields.py", "MAX_QUEUES = ", "MAX_QUEUES = 1 + "),                    # via fields as F
    ("model/slots.py", "LAYOUT_BASE = 64", "LAYOUT_BASE = 65"),
    ("explore/step.py", "ERROR = 2", "ERROR = 4"),
])
def test_changing_a_constant_the_kernels_read_starts_a_fresh_cache(tree, module, old, new):
    before = source_digest(tree)
    _edit(tree / module, old, new)
    assert source_digest(tree) != before


def test_the_key_covers_the_kernel_modules_and_what_they_import_only():
    names = {str(p.relative_to(_ROOT)) for p in kernel_sources()}
    assert {"model/successors.py", "model/dispatch.py", "model/client.py", "model/events.py", "model/slots.py",
            "invariants/checks.py", "invariants/observations.py", "explore/kernel.py", "explore/step.py",
            "explore/prefetch.py", "spark_explore/batch.py"} <= names
    assert not {"explore/result.py", "explore/local.py", "explore/simulate.py", "model/rocketmq.py",
                "model/view.py", "spark_explore/engine.py"} & names
