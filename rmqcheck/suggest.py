""""Did you mean" for the names users type: presets, knobs, properties, actions and commands.

Bad input is one line on stderr naming the unknown name and what is allowed (model-scope.md). This module
adds the closest known name to such a line, whichever part of rmqcheck raised it (``--set``, a TOML file, a
baseline, ``--property``, a replayed trace), so every command suggests alike. Close means difflib's ratio
of at least 0.6 (its default), which catches a dropped, doubled or swapped letter or a ``-``/``_`` slip.
"""
from __future__ import annotations

import difflib
import re
from typing import Callable, Iterable

#: where a refused name stands in each kind of message, e.g. "unknown knob 'mesages' (value '1')",
#: "unknown preset 'sync_master'", "preset 'x' is not a preset name" (a TOML file), "'Pul(consumer=1,
#: queue=0)' is not an action" (a replayed trace: the action kind is what is suggested)
_REFUSED = (
    re.compile(r"unknown (?P<kind>knob|preset|property|command) '(?P<name>[^']*)'(?: \(value [^)]*\))?"),
    re.compile(r"(?P<kind>preset) '(?P<name>[^']*)' is not a preset name"),
    re.compile(r"'(?P<name>[A-Za-z_]+)(?:\([^']*\))?' is not an (?P<kind>action)\b[^;:]*"),
)


def _presets() -> Iterable[str]:
    from model import PRESETS
    return PRESETS


def _knobs() -> Iterable[str]:
    from model import KNOBS
    return [k.key for k in KNOBS]


def _properties() -> Iterable[str]:
    from invariants import PROPERTIES
    return PROPERTIES.names()


def _actions() -> Iterable[str]:
    from model.actions import ACTION_TYPES
    return [t.__name__ for t in ACTION_TYPES]


#: where the known names of each kind come from (imported only once such a name was refused: by then the
#: module that refused it is loaded anyway)
KNOWN: dict[str, Callable[[], Iterable[str]]] = {
    "preset": _presets, "knob": _knobs, "property": _properties, "action": _actions,
}


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, if any is close enough to be what the user meant."""
    known = list(known)
    folded = {k.lower().replace("-", "_"): k for k in known}
    key = name.lower().replace("-", "_")
    if key in folded and folded[key] != name:
        return folded[key]   # only case or '-' vs '_' differs
    match = difflib.get_close_matches(key, list(folded), n=1)
    return folded[match[0]] if match else None


def with_suggestion(message: str, known: Iterable[str] | None = None) -> str:
    """``message`` with "; did you mean 'X'?" after the name it refuses (unchanged when no known name is
    close, or the message refuses no name). ``known`` overrides where the known names come from."""
    if "did you mean" in message:
        return message
    for pattern in _REFUSED:
        m = pattern.search(message)
        if m is not None:
            break
    else:
        return message
    if known is None:
        loader = KNOWN.get(m["kind"])
        if loader is None:
            return message
        try:
            known = loader()
        except Exception:  # pragma: no cover - a suggestion must never turn bad input into a crash
            return message
    best = closest(m["name"], known)
    if best is None:
        return message
    rest = message[m.end():]
    return f"{message[:m.end()]}; did you mean '{best}'?{rest[1:] if rest.startswith(';') else rest}"
