"""What every model mode's configuration is made of: knobs, their strict parsing, ``--set`` items and TOML
config files. Mode-neutral: a mode's configuration module (the 4.4 mode's :mod:`model.config`, the
controller's :mod:`model.controller.config`) declares its knobs with these, and the mode registry
(:mod:`model.modes`) reads config files through them without importing any mode.
"""
from __future__ import annotations

import dataclasses

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

#: the key that names a RocketMQ release (TOML, JSON ``config``): not a knob, it sets the version switches
VERSION_KEY = "rocketmq_version"


class ConfigError(ValueError):
    """Bad configuration input; the message is one line naming the key, the value and what is allowed."""


@dataclass(frozen=True)
class Knob:
    """One configuration key: its type, allowed values, default and the RocketMQ name it stands for."""

    key: str
    kind: str  # "enum", "bool", "int" or "ints" (one whole number, or one per broker joined by '-')
    default: Any
    allowed: tuple  # enum values, or (low, high) for ints; () for bools
    rocketmq: str
    doc: str
    slot: str = ""  # the kernel's name for its parameter slot (model/slots.py); "" = K_ + the key in capitals
    #: the RocketMQ property name ``--set`` also takes for this knob (``brokerRole``): only where the
    #: property's values are the knob's values; "" where there is none or its unit differs (bytes, %)
    alias: str = ""

    @property
    def slot_name(self) -> str:
        return self.slot or "K_" + self.key.upper()

    def allowed_text(self) -> str:
        if self.kind == "bool":
            return "true, false"
        if self.kind == "enum":
            return ", ".join(self.allowed)
        low, high = self.allowed
        if self.kind == "ints":
            return f"{low}..{high}, one for every broker or one per broker joined by '-' (1-2-2)"
        return f"{low}..{high}"

    def parse(self, value: Any) -> Any:
        """Coerce ``value`` (from TOML or from a ``--set`` string) to this knob's type, or raise. Text is
        read strictly: plain ASCII without blanks (no fullwidth digit, no ``' 1'``), a whole number in
        ASCII digits (no sign on zero, no ``_``); ``true``/``false`` and the enum words in any case."""
        if isinstance(value, str) and not _PLAIN_WORD.fullmatch(value):
            raise self._bad(value, " (only ASCII letters, digits, '_' and '-', no blanks)")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise self._bad(value)
        if self.kind == "enum":
            if isinstance(value, bool) and "TRUE" in self.allowed:
                return "TRUE" if value else "FALSE"   # a TOML boolean for an enum that has true and false
            if isinstance(value, str) and value.upper() in self.allowed:
                return value.upper()
            raise self._bad(value)
        if isinstance(value, bool):
            raise self._bad(value)
        if self.kind == "ints":
            return self._parse_words(value)
        if isinstance(value, str):
            if not _WHOLE_NUMBER.fullmatch(value):
                raise self._bad(value, " (a whole number in ASCII digits)")
            value = int(value, 10)
        if not isinstance(value, int):
            raise self._bad(value)
        low, high = self.allowed
        if not low <= value <= high:
            raise self._bad(value)
        return value

    def _parse_words(self, value: Any) -> str:
        """An ``ints`` knob's value as its canonical text: a whole number (TOML) or text of whole numbers in
        ASCII digits joined by '-' (no sign: '-' separates them), each within the range, leading zeros
        dropped (``"01-2"`` -> ``"1-2"``). How many words the configuration takes is its own check."""
        words = [value] if isinstance(value, int) else value.split("-") if isinstance(value, str) else None
        if words is None:
            raise self._bad(value)
        low, high = self.allowed
        numbers = []
        for word in words:
            if isinstance(word, str) and not _DIGITS.fullmatch(word):
                raise self._bad(value, " (whole numbers in ASCII digits)")
            number = int(word)
            if not low <= number <= high:
                raise self._bad(value)
            numbers.append(number)
        return "-".join(str(n) for n in numbers)

    def _bad(self, value: Any, why: str = "") -> ConfigError:
        return ConfigError(
            f"knob '{self.key}': value {value!r} is not allowed{why}; allowed: {self.allowed_text()}"
        )


#: the text a knob's value may be: ASCII letters, digits, '_' and '-' (str.isdigit would let '１' through)
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_\-]*")
#: a whole number as a knob takes it from text: ASCII digits, a minus only before a non-zero number
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}|-[1-9][0-9]{0,17}")
#: one word of an ``ints`` knob: ASCII digits only (a '-' separates words)
_DIGITS = re.compile(r"[0-9]{1,18}")


def _versions() -> Any:
    """model/versions.py, imported by name: the kernel cache (explore/kernel_cache.py) is keyed on the
    modules the kernels import, and the release declarations change no kernel."""
    import importlib
    return importlib.import_module("model.versions")


def settle_knob_fields(config: Any, knobs: Iterable[Knob], mode: str, reference: str) -> None:
    """A frozen configuration dataclass of ``mode`` as built: each knob's field parsed to its knob's type
    (``"2"`` from a file is 2) and its release (``VERSION_KEY``) normalised unless it is the ``reference``."""
    for knob in knobs:
        value = getattr(config, knob.key)
        parsed = knob.parse(value)
        if parsed != value or type(parsed) is not type(value):
            object.__setattr__(config, knob.key, parsed)
    if getattr(config, VERSION_KEY) != reference:
        object.__setattr__(config, VERSION_KEY, _versions().normalize(getattr(config, VERSION_KEY), mode))


def knob_fields(values: Mapping[str, Any], base: Any, knobs: Iterable[Knob], mode: str,
                where: str = "") -> dict[str, Any]:
    """The fields of a configuration of ``mode``: ``base``'s (a dataclass; None: the defaults), then a
    release in ``values`` (its switches' values), then the knobs ``values`` gives (an explicit one wins
    over its release's value); ConfigError for a key that is no knob (``where``: said after the value)."""
    fields = dataclasses.asdict(base) if base is not None else {}
    values = knob_values(values, knobs)
    if VERSION_KEY in values:
        values = dict(values)
        version = _versions().normalize(values.pop(VERSION_KEY), mode)
        fields[VERSION_KEY] = version
        fields.update(_versions().release_line(mode).knob_values(version))
    by_key = {k.key: k for k in knobs}
    for key, value in values.items():
        knob = by_key.get(key)
        if knob is None:
            raise ConfigError(f"unknown knob '{key}' (value {value!r}){where}; known knobs: {', '.join(by_key)}")
        fields[key] = knob.parse(value)
    return fields


def knob_values(values: Mapping[str, Any], knobs: Iterable[Knob]) -> dict[str, Any]:
    """``values`` with each knob's RocketMQ name (its ``alias``, e.g. ``brokerRole``) replaced by the knob's
    key (``broker_role``); other keys are left for the caller to refuse. A knob given under both names
    is bad input."""
    by_alias = {k.alias: k.key for k in knobs if k.alias}
    out: dict[str, Any] = {}
    named: dict[str, str] = {}
    for key, value in values.items():
        canonical = by_alias.get(key, key)
        if canonical in out:
            raise ConfigError(f"knob '{canonical}' is given twice, as '{named[canonical]}' and as '{key}' "
                              f"(the RocketMQ name of the same knob); keep one")
        out[canonical] = value
        named[canonical] = key
    return out


def set_assignments(assignments: "Iterable[str]", example: str) -> dict[str, str]:
    """The ``--set key=value`` strings as a mapping (bad input names the item and shows ``example``): no
    blank anywhere in an item (``messages= 1`` is refused, not trimmed)."""
    values: dict[str, str] = {}
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r}: expected key=value, e.g. --set {example}")
        if any(c.isspace() for c in item):
            raise ConfigError(f"--set {item!r}: blanks in key=value; write it without blanks, e.g. --set {example}")
        values[key] = value
    return values


def knob_assignments(assignments: "Iterable[str]", example: str) -> dict[str, str]:
    """:func:`set_assignments` of knobs only: the release is not a knob (``--rocketmq-version`` sets it)."""
    values = set_assignments(assignments, example)
    if VERSION_KEY in values:
        raise ConfigError(f"--set {VERSION_KEY}={values[VERSION_KEY]}: the RocketMQ release is not a knob; give "
                          f"--rocketmq-version {values[VERSION_KEY]} (it sets every version switch; --set then "
                          "changes one)")
    return values



def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_config_toml(path: "str | Path") -> dict:
    """The TOML document of config file ``path``, read within model.input_text's bounds (every mode's
    loader starts here); :class:`ConfigError` with one line naming the file otherwise."""
    from .input_text import InputFileError, parse_bounded, read_input_text

    try:
        return parse_bounded(tomllib.loads, read_input_text(Path(path), "config file"), "TOML",
                             f"config file {str(path)!r}")
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None


def load_knobs_toml(path: "str | Path", mode: str, knobs: "Iterable[Knob]", presets: "Iterable[str]",
                    preset_of: Any, from_mapping: Any, base: Any = None) -> Any:
    """A TOML config file of model mode ``mode`` (whose ``knobs``, ``presets``, ``preset_of(name)`` and
    ``from_mapping(values, base=...)`` are given), read strictly: every value of the type its key takes
    (``mode`` and ``preset`` strings, knobs plain values), nothing beside ``[config]`` but ``preset``,
    ``mode`` and ``[run]`` (the command line's: rmqcheck/run_file.py), a ``mode`` that is this one."""
    path = Path(path)
    where = f"config file {str(path)!r}"
    data = read_config_toml(path)
    data.pop("run", None)
    inner: dict = {}
    if "config" in data and isinstance(data["config"], dict):
        extra = sorted(set(data) - {"config", "preset", "mode"})
        if extra:
            raise ConfigError(f"{where}: unexpected top-level key '{extra[0]}' "
                              "beside [config]; allowed: preset, [config], [run]")
        inner = dict(data["config"])
        values = inner
    else:
        values = dict(data)
    names: dict[str, Any] = {}
    for key in ("mode", "preset"):
        given = [data[key]] if values is inner and key in data else []
        if key in values:
            given.append(values.pop(key))
        if len(given) == 2 and given[0] != given[1]:
            raise ConfigError(f"{where} names two {key}s, {given[0]!r} at the top and {given[1]!r} in [config]; "
                              "keep one")
        names[key] = given[0] if given else None
    _check_mode_name(where, names["mode"], mode)
    name = names["preset"]
    if name is not None:
        if not isinstance(name, str):
            raise ConfigError(f"{where}: preset {name!r} is not a preset name; "
                              f"known presets: {', '.join(presets)}")
        base = preset_of(name)
    by_key = {k.key: k for k in knobs}
    for key, value in knob_values(values, knobs).items():
        knob = by_key.get(key)
        if knob is not None and isinstance(value, (dict, list)):
            raise ConfigError(f"{where}: knob '{key}': value {value!r} is not allowed "
                              f"(one plain value); allowed: {knob.allowed_text()}")
    return from_mapping(values, base=base)


def _check_mode_name(where: str, name: Any, mode: str) -> None:
    """A config file's ``mode`` must be a mode name (a string), and the mode being read."""
    from .modes import MODES

    if name is None:
        return
    if not isinstance(name, str) or name not in MODES:
        raise ConfigError(f"{where}: mode {name!r} is not a mode name; known modes: {', '.join(MODES)}")
    if name != mode:
        raise ConfigError(f"{where}: mode {name!r}, but it is read as mode {mode}; give one mode")

