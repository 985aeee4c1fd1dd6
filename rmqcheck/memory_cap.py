"""An address-space cap (``ulimit -v``, ``prlimit --as``) too small for the compiled libraries to load:
one line and exit code 3 (incomplete, for memory), never a traceback.

Under about 0.3 GB numba's compiler library (``libllvmlite.so``) cannot be mapped, and lower still
numpy's own libraries cannot: an ``OSError`` or ``ImportError`` (or a ``MemoryError`` while importing),
raised in a command or, when numpy itself cannot load, while ``rmqcheck.cli`` is being imported, before
its ``main`` runs. :func:`install_hook` covers that second case with ``sys.excepthook``. Only the
standard library is imported here.
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any

#: what a library that cannot be mapped says (numba's llvmlite, numpy's extension modules and BLAS)
NO_ROOM_TO_LOAD = ("failed to map segment", "cannot allocate memory", "llvmlite")
EXIT_INCOMPLETE = 3   # rmqcheck.exit_codes, which imports the engine


def address_space_cap() -> int | None:
    """The soft RLIMIT_AS in bytes, or None when there is none."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):   # pragma: no cover - not Linux
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _chain(exc: BaseException | None):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def cannot_load(exc: BaseException) -> str | None:
    """When ``exc`` (or what caused it) is a library failing to load under an address-space cap: the one
    line to print (without the ``rmqcheck:`` prefix); otherwise None."""
    cap = address_space_cap()
    if cap is None:
        return None
    for e in _chain(exc):
        text = str(e)
        # SystemError: CPython's "error return without exception set" when an allocation fails mid-import
        if isinstance(e, (MemoryError, SystemError)) or (isinstance(e, (OSError, ImportError))
                                                         and any(w in text.lower() for w in NO_ROOM_TO_LOAD)):
            lib = re.search(r"[\w.+\-]+\.so\b", text)
            what = os.path.basename(lib.group(0)) if lib else type(e).__name__
            return (f"the address-space limit (ulimit -v) of {cap / (1 << 20):,.0f} MiB is too small to load "
                    f"the compiled libraries ({what}); nothing was explored or written: raise the limit")
    return None


def _hook(kind: type[BaseException], exc: BaseException, tb: Any, previous: Any = sys.excepthook) -> None:
    line = cannot_load(exc) if isinstance(exc, Exception) else None
    if line is None:
        previous(kind, exc, tb)
        return
    try:
        sys.stdout.flush()
        sys.stderr.write(f"rmqcheck: out of memory: {line}\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_INCOMPLETE)


def install_hook() -> None:
    """Report a library that cannot load while rmqcheck is imported (see the module docstring). Under a
    cap, numpy's BLAS starts one thread (it uses none of the others; each reserves tens of MiB, and one it
    cannot start ends the process with SIGINT or its own exit, out of Python's reach)."""
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _hook
    if address_space_cap() is not None and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
