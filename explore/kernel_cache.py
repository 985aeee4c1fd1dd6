"""Where numba caches the compiled kernels: one directory per version of the kernels' sources.

numba's own cache only checks the timestamp of the file that defines a cached function, not of the
functions it calls or the constants it reads from other modules, so after an edit it could load a stale
kernel. The cache directory is therefore keyed on a digest of exactly the sources the kernels are built
from: every module that defines a compiled function (``@kernel``, ``njit``, ``@intrinsic``) and every
project module those import, transitively (the modules they take functions and constants from). Editing
a pure-Python module no kernel imports, such as explore/result.py, keeps the compiled kernels; changing a
constant anywhere the kernels read from starts a fresh cache. This module must run before any kernel is
defined: :mod:`explore.native` and :mod:`explore.packed`, which every kernel module imports, import it first. Set ``RMQCHECK_CACHE_DIR`` to choose the parent directory
(default ``~/.cache/rmqcheck``).
"""
from __future__ import annotations

import ast
import hashlib
import os
import shutil
import time
from pathlib import Path

import numba

_ROOT = Path(__file__).resolve().parent.parent


def _project_packages(root: Path) -> tuple[str, ...]:
    """The project's packages: in a source checkout every top-level directory with an ``__init__.py`` (the
    tests' apart); installed, the top-level packages of the ``rmqcheck`` distribution."""
    if (root / "pyproject.toml").is_file():
        return tuple(sorted(p.parent.name for p in root.glob("*/__init__.py") if p.parent.name != "tests"))
    from importlib.metadata import packages_distributions
    return tuple(sorted(pkg for pkg, dists in packages_distributions().items() if "rmqcheck" in dists))


_PACKAGES = _project_packages(_ROOT)
_COMPILERS = {"kernel", "njit", "jit", "intrinsic"}    # decorators that make a compiled function
STALE_SECONDS = 24 * 3600


def _module_path(root: Path, dotted: str) -> Path | None:
    """The file of project module ``dotted`` (``model.fields``), or None when it is not one."""
    if dotted.split(".")[0] not in _PACKAGES:
        return None
    base = root.joinpath(*dotted.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _dotted(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(root: Path, path: Path, tree: ast.Module) -> set[Path]:
    """The project modules ``path`` imports (``from pkg import name`` counts pkg.name when that is a
    module, else pkg itself)."""
    package = _dotted(root, path) if path.name == "__init__.py" else _dotted(root, path).rpartition(".")[0]
    found: set[Path] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _module_path(root, alias.name)
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                target = _module_path(root, f"{base}.{alias.name}") or _module_path(root, base)
                if target:
                    found.add(target)
    return found


def _compiles(tree: ast.Module) -> bool:
    """Whether the module defines a compiled function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in _COMPILERS:
                    return True
    return False


def kernel_sources(root: Path = _ROOT) -> list[Path]:
    """The kernel modules and every project module they import, transitively, sorted. A module is parsed
    only if its text names a compiler decorator or a kernel module imports it (parsing every module of the
    project took most of a second at every start)."""
    sources = {path: path.read_bytes() for package in _PACKAGES for path in sorted((root / package).rglob("*.py"))}
    trees: dict[Path, ast.Module] = {}

    def tree(path: Path) -> ast.Module:
        if path not in trees:
            trees[path] = ast.parse(sources[path])
        return trees[path]

    todo = [path for path, text in sources.items()
            if any(name.encode() in text for name in _COMPILERS) and _compiles(tree(path))]
    seen = set(todo)
    while todo:
        path = todo.pop()
        for target in _imports(root, path, tree(path)):
            if target not in seen and target in sources:
                seen.add(target)
                todo.append(target)
    return sorted(seen)


def source_digest(root: Path = _ROOT) -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(numba.__version__.encode())
    for path in kernel_sources(root):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def configure() -> Path:
    parent = Path(os.environ.get("RMQCHECK_CACHE_DIR") or Path.home() / ".cache" / "rmqcheck")
    digest = source_digest()
    target = parent / f"numba-{digest}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)
        for old in parent.glob("numba-*"):
            # caches of other source versions, unused for a day (another version may be running now)
            if old != target and old.is_dir() and time.time() - old.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return Path(numba.config.CACHE_DIR or "")
    numba.config.CACHE_DIR = str(target)
    os.environ["NUMBA_CACHE_DIR"] = str(target)  # inherited by subprocesses and Spark python workers
    return target


CACHE_DIR = configure()
