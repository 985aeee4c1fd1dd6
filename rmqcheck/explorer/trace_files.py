"""The traces of a file the explorer loads: a JSON result of ``check``, ``simulate`` or ``faults``, or an
ITF trace (``check --itf``).

Every trace is replayed against the explorer's model with :func:`rmqcheck.replay.replay_steps`, the
replay ``rmqcheck replay`` does: each step must be enabled and reach the recorded state, so a file edited
by hand, or one of another configuration, is refused with the step and the field that differ. A trace
with a liveness cycle carries ``loop_start`` (JSON, per property) or ``loop`` (ITF, top level): the index
of the state the cycle returns to, which the page marks.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from model.input_text import InputFileError, parse_bounded

#: where a ``faults`` result keeps the traces of each property, beside ``properties[].trace``
FAULT_TRACES = ("combinations", "modes", "vectors")


class TraceFileError(ValueError):
    """A file that is not a trace of the explorer's configuration (the message says why)."""


@dataclass(frozen=True)
class LoadedTrace:
    """One trace of a file: its name, its action labels after the initial state, the index of the state its
    cycle returns to (None: no cycle), and the property's status when the file gives it."""

    name: str
    labels: list[str]
    loop_start: int | None = None
    status: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.labels, "loop_start": self.loop_start, "status": self.status}


def parse(text: str, where: str) -> dict[str, Any]:
    """The JSON object of a trace file; :class:`TraceFileError` for anything else."""
    try:
        data = parse_bounded(json.loads, text, "JSON", where)
    except InputFileError as exc:
        raise TraceFileError(str(exc)) from None
    if not isinstance(data, dict):
        raise TraceFileError(f"{where}: expected a JSON object (a result of 'rmqcheck check --json' or an ITF "
                             "trace)")
    if not is_itf(data):   # a result: of this rmqcheck, a command with traces, a known mode and model
        from ..saved_result import accept_saved
        from ..setup import BadInput
        try:
            accept_saved(data, where, ("check", "simulate", "faults"), "rmqcheck explore --trace")
        except BadInput as exc:
            raise TraceFileError(str(exc)) from None
    return data


def is_itf(data: dict[str, Any]) -> bool:
    return isinstance(data.get("states"), list) and "#meta" in data


def file_config(data: dict[str, Any], where: str) -> dict[str, Any]:
    """The knobs the file was made with (a result's ``config``, an ITF trace's ``#meta.config``)."""
    config = data["#meta"].get("config") if is_itf(data) and isinstance(data["#meta"], dict) else data.get("config")
    if not isinstance(config, dict):
        raise TraceFileError(f"{where}: no 'config' object (the knobs the trace was found with)")
    return config


def file_mode(data: dict[str, Any], where: str) -> str:
    """The model mode the file's configuration names (``mode`` in it; 4.4 when it names none)."""
    from model.modes import MODES, mode_name_of

    mode = mode_name_of(file_config(data, where))
    if not isinstance(mode, str) or mode not in MODES:
        raise TraceFileError(f"{where}: its config names mode {mode!r}; known modes: {', '.join(MODES)}")
    return mode


def config_of(data: dict[str, Any], where: str) -> Any:
    """The file's configuration, in the model mode it names (:mod:`model.modes`)."""
    from model.knobs import ConfigError
    from model.modes import get_mode

    knobs = {k: v for k, v in file_config(data, where).items() if k != "mode"}
    try:
        return get_mode(file_mode(data, where)).from_mapping(knobs)
    except ConfigError as exc:
        raise TraceFileError(f"{where}: its config does not fit this model: {exc}") from None


def refuse_other_config(data: dict[str, Any], where: str, config: Any) -> None:
    """:class:`TraceFileError` naming the model mode, or else the first knob, in which the file's
    configuration and ``config`` differ."""
    from model.modes import mode_of

    theirs, ours = file_mode(data, where), mode_of(config).name
    if theirs != ours:
        raise TraceFileError(f"{where}: a trace of model mode {theirs}, and this explorer runs mode {ours}; "
                             "start 'rmqcheck explore --trace FILE' to explore its own")
    theirs, ours = config_of(data, where).as_dict(), config.as_dict()
    for key, value in ours.items():
        if theirs.get(key) != value:
            raise TraceFileError(f"{where}: a trace of another configuration ({key} = {theirs.get(key)!r} in the "
                                 f"file, {value!r} here); start 'rmqcheck explore --trace FILE' to explore its own")


def _steps(raw: Any, where: str) -> list[dict[str, Any]]:
    """The recorded steps of one trace, each ``{"step": int, "action": str, "state": object}``."""
    if not isinstance(raw, list):
        raise TraceFileError(f"{where}: 'trace' must be a list of steps")
    for j, step in enumerate(raw):
        if not (isinstance(step, dict) and isinstance(step.get("step"), int) and not isinstance(step["step"], bool)
                and isinstance(step.get("action"), str) and isinstance(step.get("state"), dict)):
            raise TraceFileError(f"{where}, step {j}: expected an object with an int 'step', a string 'action' "
                                 "and an object 'state'")
    return raw


def _loop_start(value: Any, length: int, where: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < length:
        raise TraceFileError(f"{where}: loop_start {value!r} is not the index of one of its {length} states")
    return value


def _result_traces(data: dict[str, Any], where: str) -> list[tuple[str, Any, Any, str]]:
    """``(name, steps, loop_start, status)`` of every trace of a check, simulate or faults result."""
    props = data.get("properties")
    if not isinstance(props, list):
        raise TraceFileError(f"{where}: missing 'properties' list")
    found = []
    for i, p in enumerate(props):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            raise TraceFileError(f"{where}: properties[{i}] must be an object with a string 'name'")
        if "trace" in p:
            found.append((p["name"], p["trace"], p.get("loop_start"), str(p.get("status", ""))))
        for key in FAULT_TRACES:
            items = p.get(key)
            for j, item in enumerate(items if isinstance(items, list) else []):
                if isinstance(item, dict) and "trace" in item:
                    found.append((f"{p['name']}: {key[:-1]} {j + 1}", item["trace"], item.get("loop_start"),
                                  str(item.get("status", p.get("status", "")))))
    if isinstance(data.get("terminal_trace"), list):
        found.append(("terminal state", data["terminal_trace"], None, ""))
    return found


def _itf_traces(data: dict[str, Any], where: str) -> list[tuple[str, Any, Any, str]]:
    from reports.itf import field_kinds, view_of_state

    kinds = field_kinds(file_config(data, where))   # how each field is typed (sets, optional values)
    steps = []
    for i, state in enumerate(data["states"]):
        meta = state.get("#meta") if isinstance(state, dict) else None
        if not isinstance(meta, dict) or not isinstance(meta.get("action"), str):
            raise TraceFileError(f"{where}, state {i}: expected an object whose '#meta' names its 'action'")
        try:
            view = view_of_state(state, kinds)
        except (ValueError, TypeError) as exc:
            raise TraceFileError(f"{where}, state {i}: {exc}") from None
        steps.append({"step": i, "action": meta["action"], "state": view})
    meta = data["#meta"] if isinstance(data["#meta"], dict) else {}
    return [(str(meta.get("property", "ITF trace")), steps, data.get("loop"), str(meta.get("status", "")))]


def read_traces(text: str, where: str, session: Any) -> list[LoadedTrace]:
    """Every trace of the file ``text`` (named ``where`` in messages), replayed on ``session``'s model;
    :class:`TraceFileError` when the file is not one, is of another configuration, or a step does not
    replay."""
    from explore.trace import ReplayError

    from ..replay import replay_steps

    data = parse(text, where)
    refuse_other_config(data, where, session.config)
    if not is_itf(data):   # a result's verdicts are shown beside its traces: they must be what they say
        from ..saved_result import result_command, verify_traces
        from ..setup import BadInput
        try:
            verify_traces(data, where, result_command(data), session.config)
        except BadInput as exc:
            raise TraceFileError(str(exc)) from None
    raw = _itf_traces(data, where) if is_itf(data) else _result_traces(data, where)
    if not raw:
        raise TraceFileError(f"{where}: holds no trace (a property that holds has none; use 'check --json' "
                             "with a violated or reached property)")
    loaded = []
    for name, steps, loop, status in raw:
        context = f"{where}, {name}"
        try:
            trace, _ = replay_steps(session.model, _steps(steps, context), context)
        except ReplayError as exc:
            raise TraceFileError(str(exc)) from None
        loaded.append(LoadedTrace(name, trace.actions, _loop_start(loop, len(trace.steps), context), status))
    return loaded
