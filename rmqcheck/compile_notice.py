"""One line on stderr before the numba kernels compile on a cold cache, so a first run does not look hung.

The model's kernels compile when its model class is first imported and the explorer's when it first runs,
each about a minute, then load from the cache ``explore/kernel_cache.py`` keys on a digest of their
sources. The cache is cold when it holds no index file (``*.nbi``) for the model's successor function or for
the explorer's ``expand``. Finding the directory imports ``explore.kernel_cache`` alone, which compiles
nothing. Like the progress bar, the line is written only when stderr is a terminal: piped output and CI
logs stay as they were.
"""
from __future__ import annotations

import sys
from pathlib import Path

#: index files numba writes once each kernel is compiled (``<module>.<function>-<line>.py311.nbi``)
MODEL_INDEX = "successors.successors-*.nbi"
EXPLORER_INDEX = "kernel.expand-*.nbi"
NOTICE = ("rmqcheck: compiling the model's kernels (first run after an install or an edit of the model; "
          "about a minute, cached afterwards) ...")

_announced = False


def kernel_cache_dir() -> Path | None:
    """The directory ``explore/kernel_cache.py`` chooses (importing it compiles nothing: the ``explore``
    package loads its modules on first use)."""
    from explore import kernel_cache
    return Path(kernel_cache.CACHE_DIR)


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
