"""Reading a Java properties file as RocketMQ 4.4 does (``BrokerStartup#createBrokerController`` calls
``java.util.Properties#load(InputStream)``): ISO-8859-1 text, ``#`` and ``!`` comment lines, a key ended by
the first unescaped ``=``, ``:`` or white space, a line continued by an odd number of trailing backslashes,
and the escapes ``\\t \\n \\r \\f \\uXXXX`` (any other escaped character stands for itself).

Where ``Properties#load`` keeps the last of two values of a key, this reader refuses the file: two values
of one key in one file is a contradiction a user should see, not one RocketMQ resolves silently.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from model.input_text import read_bounded_bytes

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_WHITE = " \t\f"


class PropertiesError(ValueError):
    """A properties file that cannot be read; the message is one line naming the file (and the key)."""


@dataclass(frozen=True)
class Properties:
    """The key/value pairs of one file, and the line each key is on (for messages)."""

    path: Path
    values: dict[str, str]
    lines: dict[str, int]

    @property
    def name(self) -> str:
        return str(self.path)

    def get(self, key: str) -> str | None:
        return self.values.get(key)


def read_text(path: str | Path, what: str) -> str:
    """The text of ``path`` as ``Properties#load(InputStream)`` reads it (ISO-8859-1: every byte is a
    character), at most ``model.input_text.MAX_INPUT_BYTES``; :class:`PropertiesError` naming the file otherwise."""
    return read_bounded_bytes(path, what, error=PropertiesError, refusal="not a properties file").decode("latin-1")


def read_properties(path: str | Path, what: str) -> Properties:
    """The properties of ``path`` (a ``what``, e.g. "--broker-conf"), or :class:`PropertiesError`."""
    return parse_properties(read_text(path, what), Path(path), what)


def parse_properties(raw: str, path: Path, what: str) -> Properties:
    """The properties of the text ``raw`` of ``path``."""
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, logical in _logical_lines(raw):
        key, value = _split(logical, path, what, number)
        if key in values and values[key] != value:
            raise PropertiesError(f"{what} {str(path)!r}: key {key!r} is given twice (lines {lines[key]} and "
                                  f"{number}: {values[key]!r}, {value!r}); keep one")
        values[key] = value
        lines.setdefault(key, number)
    return Properties(path, values, lines)


def _logical_lines(text: str):
    """``(line number, logical line)``: comments and blank lines dropped, continuations joined."""
    physical = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(physical):
        start = i
        line = physical[i].lstrip(_WHITE)
        i += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line) and i < len(physical):
            line = line[:-1] + physical[i].lstrip(_WHITE)
            i += 1
        if _continues(line):
            line = line[:-1]
        yield start + 1, line


def _continues(line: str) -> bool:
    """An odd number of trailing backslashes continues the line."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _split(line: str, path: Path, what: str, number: int) -> tuple[str, str]:
    """Key and value of a logical line, escapes resolved."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=:" or c in _WHITE:
            break
        i += 1
    key_text, rest = line[:i], line[i:]
    rest = rest.lstrip(_WHITE)
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(_WHITE)
    key = _unescape(key_text, path, what, number, "")
    return key, _unescape(rest, path, what, number, key)


def _unescape(text: str, path: Path, what: str, number: int, key: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e == "u":
            digits = text[i + 2:i + 6]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                where = f"key {key!r}" if key else "a key"
                raise PropertiesError(f"{what} {str(path)!r} line {number}: {where} has a malformed \\uxxxx "
                                      f"escape ({text[i:i + 6]!r}); Java refuses the whole file")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(e, e))
        i += 2
    return "".join(out)
