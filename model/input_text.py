"""Reading a user's input file (a TOML config, a baseline, a result to replay) within fixed bounds.

Whatever the file holds, reading and parsing it ends in a value or in :class:`InputFileError` with a
one-line reason: a device that never ends (``/dev/zero``) stops at the size limit, a document nested
100,000 deep or an integer of thousands of digits is refused, never a RecursionError or a traceback.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

MAX_INPUT_BYTES = 16 << 20   # far above any config, baseline or result file rmqcheck writes
MAX_NESTING = 64             # the deepest rmqcheck's own files go is 6


class InputFileError(ValueError):
    """A file that cannot be read or parsed; the message is one line naming the file."""


def read_bounded_bytes(path: str | Path, what: str, max_bytes: int = MAX_INPUT_BYTES,
                       error: type[Exception] = InputFileError,
                       refusal: str = "not a file rmqcheck reads") -> bytes:
    """The bytes of ``path`` (a ``what``, e.g. "config file"), refusing more than ``max_bytes`` (it reads at
    most one byte more, so a device that never ends stops there); ``error`` with a one-line reason
    naming the file otherwise, ending in ``refusal`` for a file too large."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(f"{what} {str(path)!r} is larger than {max_bytes:,} bytes; {refusal}")
    return data


def read_input_text(path: str | Path, what: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of ``path`` (a ``what``, e.g. "config file"), refusing more than ``max_bytes``."""
    data = read_bounded_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start})") from None


def parse_bounded(parse: Callable[[str], Any], text: str, language: str, where: str) -> Any:
    """``parse(text)``, with every way a hostile document breaks a parser turned into InputFileError:
    syntax errors, integers beyond Python's digit limit (ValueError), nesting beyond the recursion
    limit, and documents nested deeper than :data:`MAX_NESTING`."""
    try:
        data = parse(text)
    except RecursionError:
        raise InputFileError(f"{where} is not valid {language}: nested too deeply") from None
    except ValueError as exc:   # tomllib.TOMLDecodeError, json.JSONDecodeError, int digit limits
        raise InputFileError(f"{where} is not valid {language}: {' '.join(str(exc).split())}") from None
    if _depth(data) > MAX_NESTING:
        raise InputFileError(f"{where} is nested more than {MAX_NESTING} levels deep; not a file rmqcheck "
                             "reads")
    return data


def _depth(value: Any) -> int:
    """Nesting depth of lists and tables, without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            todo.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            todo.extend((x, d + 1) for x in v)
        else:
            deepest = max(deepest, d)
            continue
        deepest = max(deepest, d + 1)
    return deepest
