"""A run file: the ``[run]`` table of a ``--config`` TOML file, so a whole run is written down in one file.

The knobs stay where they were (top-level ``key = value`` lines or a ``[config]`` table, model/config.py);
the ``[run]`` table holds the rest of a command line::

    preset = "sync-master"
    messages = 3

    [run]
    properties = ["acked_message_never_lost", "replicas_agree"]
    max_states = 5_000_000
    engine = "local"
    threads = 2
    broker_conf = ["broker-a.properties", "broker-a-s.properties"]   # inside this file's directory

Its values become the defaults of the command's options (click's ``default_map``): an option given on the
command line wins, as ``--set`` wins over a knob of the file. A key the command has no option for (say
``engine`` for ``simulate``) is ignored by that command.

The files a run file names resolve inside its own directory: an absolute path, or one that leaves the
directory (``../../etc/shadow``, a symbolic link pointing out), is bad input. A run file in a pull request
must not make a CI machine read (and echo) its files; a file elsewhere is given on the command line.
"""
from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Any

from .setup import BadInput, check_input_file

#: run-table key -> (the option's parameter name, what its value must be)
RUN_KEYS: dict[str, tuple[str, str]] = {
    "properties": ("property_names", "a list of property names"),
    "engine": ("engine", "an engine name"),
    "threads": ("threads", "a whole number"),
    "max_states": ("max_states", "a whole number"),
    "max_depth": ("max_depth", "a whole number"),
    "max_seconds": ("max_seconds", "a number of seconds"),
    "broker_conf": ("broker_confs", "a list of broker.conf paths"),
    "group_config": ("group_config", "a path"),
}


def read_run_table(path: str) -> dict[str, Any]:
    """The option defaults the ``[run]`` table of ``path`` gives (parameter name -> value); ``{}`` when the
    file has none. Bad input names the file and the key."""
    from model.input_text import InputFileError, parse_bounded, read_input_text

    check_input_file(path, "config file")
    try:
        data = parse_bounded(tomllib.loads, read_input_text(path, "config file"), "TOML",
                             f"config file {str(path)!r}")
    except InputFileError as exc:
        raise BadInput(str(exc)) from None
    run = data.get("run")
    if run is None:
        return {}
    where = f"config file {str(path)!r}: [run]"
    if not isinstance(run, dict):
        raise BadInput(f"config file {str(path)!r}: run must be a table ([run] with key = value lines)")
    here = Path(path).parent
    defaults: dict[str, Any] = {}
    for key, value in run.items():
        if key not in RUN_KEYS:
            from .suggest import closest
            near = closest(key, RUN_KEYS)
            hint = f"did you mean '{near}'? " if near else ""
            raise BadInput(f"{where} key '{key}' is not a run setting; {hint}allowed: {', '.join(RUN_KEYS)}")
        name, what = RUN_KEYS[key]
        defaults[name] = _value(key, value, what, where, here)
    return defaults


def _value(key: str, value: Any, what: str, where: str, here: Path) -> Any:
    bad = BadInput(f"{where} {key} = {value!r}: must be {what}")
    if key in ("properties", "broker_conf"):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise bad
        return [inside(here, v, f"{where} {key}") for v in value] if key == "broker_conf" else value
    if key in ("engine", "group_config"):
        if not isinstance(value, str) or not value:
            raise bad
        return inside(here, value, f"{where} {key}") if key == "group_config" else value
    if key == "max_seconds":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad
    return value


def inside(directory: Path, name: str, where: str) -> str:
    """The path ``name`` (a file a run file or a baseline names; ``where`` says which and its key) taken
    relative to ``directory``, the naming file's own: bad input when it is absolute or leaves the directory
    (``..``, a symbolic link pointing out), checked on the resolved path."""
    if os.path.isabs(name):
        raise BadInput(f"{where}: {name!r} is an absolute path; a file names files inside its own directory "
                       "(give a file elsewhere on the command line)")
    target = directory / name
    try:
        real, root = os.path.realpath(target), os.path.realpath(directory)
    except (OSError, ValueError) as exc:
        raise BadInput(f"{where}: {name!r} is not a usable path ({getattr(exc, 'strerror', None) or exc})") from None
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        raise BadInput(f"{where}: {name!r} leaves the directory of the file that names it; a file names files "
                       "inside its own directory (give a file elsewhere on the command line)")
    return str(target)
