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
#: queue=0)' is not an action" (a replayed trace: the action kind is what is suggested); the refusal of a
#: mode other than 4.4 says "in mode NAME" after the name
_REFUSED = (
    re.compile(r"unknown (?P<kind>knob|preset|property|command) '(?P<name>[^']*)'(?: \(value [^)]*\))?"
               r"(?: in mode (?P<mode>[\w.]+))?"),
    re.compile(r"(?P<kind>preset) '(?P<name>[^']*)' is not a preset name"),
    re.compile(r"'(?P<name>[A-Za-z_]+)(?:\([^']*\))?' is not an (?P<kind>action)\b[^;:]*"),
)


def _modes() -> dict:
    from model.modes import MODES
    return MODES


def _presets(mode: str) -> Iterable[str]:
    return _modes()[mode].presets


def _knobs(mode: str) -> Iterable[str]:
    """A mode's knob keys and their RocketMQ names (``--set brokerRole=...`` is ``broker_role``)."""
    knobs = _modes()[mode].knobs
    return [k.key for k in knobs] + [k.alias for k in knobs if k.alias]


def _properties(mode: str) -> Iterable[str]:
    return _modes()[mode].properties().names()


def _actions(mode: str) -> Iterable[str]:
    return _modes()[mode].kinds()


#: where the known names of each kind come from, per model mode (imported only once such a name was
#: refused: by then the module that refused it is loaded anyway)
KNOWN: dict[str, Callable[[str], Iterable[str]]] = {
    "preset": _presets, "knob": _knobs, "property": _properties, "action": _actions,
}


def _default_mode() -> str:
    """The mode a refusal is about when it names none: the registry's default (model/modes.py)."""
    from model.modes import DEFAULT_MODE
    return DEFAULT_MODE


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, if any is close enough to be what the user meant."""
    known = list(known)
    folded = {k.lower().replace("-", "_"): k for k in known}
    key = name.lower().replace("-", "_")
    if key in folded and folded[key] != name:
        return folded[key]   # only case or '-' vs '_' differs
    match = difflib.get_close_matches(key, list(folded), n=1)
    return folded[match[0]] if match else None


def _fold(name: str) -> str:
    return name.lower().replace("-", "_")


def suggestion(kind: str, name: str, mode: str | None = None) -> str:
    """What to add after a refused ``name`` (a ``kind``: knob, preset, property, action) in model ``mode``:
    ``; did you mean 'X'?`` for a close name of the mode; ``; 'X' is a property of mode 4.4, not of mode
    controller`` when the name (up to case and ``-``/``_``) is one of another mode's; ``; did you mean 'X'
    (a property of mode 4.4)?`` when only another mode has a close one; "" otherwise."""
    mode = mode or _default_mode()
    loader = KNOWN.get(kind)
    if loader is None:
        return ""
    try:
        modes = list(_modes())
        own = list(loader(mode)) if mode in modes else []
        others = {m: list(loader(m)) for m in modes if m != mode}
    except Exception:  # pragma: no cover - a suggestion must never turn bad input into a crash
        return ""
    if _fold(name) not in {_fold(k) for k in own}:
        for other, names in others.items():
            same = next((k for k in names if _fold(k) == _fold(name)), None)
            if same is not None:
                return f"; '{same}' is a {kind} of mode {other}, not of mode {mode} (--mode {other})"
    scored = [(_score(name, best), 1, None, best) for best in [closest(name, own)] if best is not None]
    scored += [(_score(name, best), 0, other, best) for other, names in others.items()
               for best in [closest(name, names)] if best is not None]
    if not scored:
        return ""
    _, _, other, best = max(scored)   # the closest name; the refused name's own mode's on a tie
    if other is None:
        return f"; did you mean '{best}'?"
    return f"; did you mean '{best}' (a {kind} of mode {other}, --mode {other})?"


def _score(name: str, known: str) -> float:
    return difflib.SequenceMatcher(None, _fold(name), _fold(known)).ratio()


def with_suggestion(message: str, known: Iterable[str] | None = None) -> str:
    """``message`` with "; did you mean 'X'?" after the name it refuses (unchanged when no known name is
    close, or the message refuses no name). ``known`` overrides where the known names come from; without
    it, the names are the refused name's mode's (the message's "in mode NAME", else 4.4), and a name of
    another mode is said to be one (see :func:`suggestion`)."""
    if "did you mean" in message:
        return message
    for pattern in _REFUSED:
        m = pattern.search(message)
        if m is not None:
            break
    else:
        return message
    if len(m["name"]) > MAX_NAME:   # nothing a user typed by hand: no suggestion (and no slow comparison)
        return message
    if known is not None:
        best = closest(m["name"], known)
        hint = f"; did you mean '{best}'?" if best is not None else ""
    else:
        mode = m.groupdict().get("mode") or _default_mode()
        hint = suggestion(m["kind"], m["name"], mode)
    if not hint:
        return message
    rest = message[m.end():]
    if hint.endswith("?") and rest.startswith(";"):
        rest = rest[1:]
    return f"{message[:m.end()]}{hint}{rest}"


#: a refused name longer than this gets no suggestion
MAX_NAME = 80
