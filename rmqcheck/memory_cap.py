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
#: under this address-space cap nothing of rmqcheck can load (numba's compiler library alone maps about
#: 0.3 GB; the smallest run measured needs about 340 MiB): the command says so before importing anything,
#: since C code out of Python's reach fails there: between about 70 and 90 MiB numpy's BLAS ends the
#: process, and between 256 and about 285 MiB numba's loader of the cached kernels sometimes segfaults or
#: spins at full CPU (measured at 280 MiB: one run in six segfaulted, one spun for minutes); from 290 MiB
#: on, the first allocation fails as a MemoryError, one line and exit 3
MIN_ADDRESS_SPACE = 300 << 20


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


def _running_the_command() -> bool:
    """Whether this process is the ``rmqcheck`` command (the console script or ``python -m rmqcheck``),
    not a program that imports the package."""
    argv = getattr(sys, "orig_argv", sys.argv)
    return os.path.basename(sys.argv[0]) == "rmqcheck" or any(
        a == "-m" and b in ("rmqcheck", "rmqcheck.cli") for a, b in zip(argv, argv[1:]))


def install_hook() -> None:
    """Report a library that cannot load while rmqcheck is imported (see the module docstring). Under a
    cap, numpy's BLAS starts one thread (it uses none of the others; each reserves tens of MiB, and one it
    cannot start ends the process with SIGINT or its own exit, out of Python's reach). A cap under
    :data:`MIN_ADDRESS_SPACE` ends the command at once, in one line."""
    cap = address_space_cap()
    if cap is not None and cap < MIN_ADDRESS_SPACE and _running_the_command():
        sys.stderr.write(f"rmqcheck: out of memory: the address-space limit (ulimit -v) of {cap / (1 << 20):,.0f} "
                         f"MiB is too small to load rmqcheck (under {MIN_ADDRESS_SPACE >> 20} MiB); nothing was "
                         "explored or written: raise the limit\n")
        sys.stderr.flush()
        os._exit(EXIT_INCOMPLETE)
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _hook
    if cap is not None and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
