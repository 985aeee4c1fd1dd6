"""One line on stderr before the numba kernels compile on a cold cache, so a first run does not look hung.

The model's kernels compile when ``model`` is first imported and the explorer's when it first runs, each
about a minute, then load from the cache ``model/kernel_cache.py`` keys on a digest of their sources. The
cache is cold when it holds no index file (``*.nbi``) for the model's successor function or for the
explorer's ``expand``. Finding the directory must not import ``model`` (that import is what compiles), so
``kernel_cache.py`` is loaded on its own, under a private name. Like the progress bar, the line is written
only when stderr is a terminal: piped output and CI logs stay as they were.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

#: index files numba writes once each kernel is compiled (``<module>.<function>-<line>.py311.nbi``)
MODEL_INDEX = "successors.successors-*.nbi"
EXPLORER_INDEX = "kernel.expand-*.nbi"
NOTICE = ("rmqcheck: compiling the model's kernels (first run after an install or an edit of the model; "
          "about a minute, cached afterwards) ...")

_announced = False


def kernel_cache_dir() -> Path | None:
    """The directory ``model/kernel_cache.py`` chooses, without importing the ``model`` package."""
    loaded = sys.modules.get("model.kernel_cache")
    if loaded is not None:
        return Path(loaded.CACHE_DIR)
    spec = importlib.util.find_spec("model")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "kernel_cache.py"
    probe_spec = importlib.util.spec_from_file_location("_rmqcheck_kernel_cache_probe", path)
    if probe_spec is None or probe_spec.loader is None:
        return None
    probe = importlib.util.module_from_spec(probe_spec)
    probe_spec.loader.exec_module(probe)
    return Path(probe.CACHE_DIR)


def cold(cache: Path, explorer: bool = True) -> bool:
    """Whether a kernel the run needs has no compiled copy in ``cache``."""
    patterns = (MODEL_INDEX, EXPLORER_INDEX) if explorer else (MODEL_INDEX,)
    return not all(any(cache.rglob(p)) for p in patterns)


def announce_compilation(explorer: bool = True) -> None:
    """Print :data:`NOTICE` on a terminal's stderr, once per process, when the kernels must compile first.
    ``explorer=False`` for commands that load the model but never explore (``rmqcheck list``)."""
    global _announced
    if _announced or not sys.stderr.isatty():
        return
    try:
        cache = kernel_cache_dir()
    except Exception:  # pragma: no cover - a notice must never stop a run
        return
    if cache is not None and cold(cache, explorer):
        _announced = True
        print(NOTICE, file=sys.stderr, flush=True)
