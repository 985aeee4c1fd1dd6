"""Where numba caches the compiled kernels: one directory per version of the kernel sources.

numba's own cache only checks the timestamp of the file that defines a cached function, not of the
functions it calls from other modules, so after an edit it could load a stale kernel. Keying the cache
directory on a digest of every kernel source file (model/, invariants/, explore/) makes any edit start a
fresh cache. This module must run before any kernel is defined: ``model/__init__`` imports it first.
Set ``RMQCHECK_CACHE_DIR`` to choose the parent directory (default ``~/.cache/rmqcheck``).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("model", "invariants", "explore", "spark_explore")
STALE_SECONDS = 24 * 3600


def source_digest() -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(numba.__version__.encode())
    for package in _PACKAGES:
        for path in sorted((_ROOT / package).rglob("*.py")):
            h.update(str(path.relative_to(_ROOT)).encode())
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
