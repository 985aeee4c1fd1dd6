"""What a non-editable install (the README's quick start, CI) ships: every package of the project and every
data file inside one. A sub-package missing from pyproject.toml works from the source tree and fails once
installed (model.controller did: the installed rmqcheck could not import it)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
TOP = ("model", "invariants", "explore", "spark_explore", "reports", "rmqcheck")


def _files(pattern: str):
    return [p for top in TOP for p in (ROOT / top).rglob(pattern) if "__pycache__" not in p.parts]


def test_every_package_is_listed():
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in _files("__init__.py")}
    assert found - set(CONFIG["packages"]) == set()


def test_every_data_file_inside_a_package_is_shipped():
    from fnmatch import fnmatch
    missing = []
    for path in _files("*"):
        if path.is_dir() or path.suffix in (".py", ".pyc"):
            continue
        package = ".".join(path.parent.relative_to(ROOT).parts)
        while package and package not in CONFIG["package-data"]:
            package = package.rpartition(".")[0]
        base = ROOT.joinpath(*package.split(".")) if package else ROOT
        patterns = CONFIG["package-data"].get(package, [])
        if not any(fnmatch(str(path.relative_to(base)), pattern) for pattern in patterns):
            missing.append(str(path.relative_to(ROOT)))
    assert missing == []
