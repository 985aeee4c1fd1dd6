"""A saved result read back (``report``, ``replay``, ``explore --trace``): only what this rmqcheck wrote.

A file is read back only when it is a result of this tool (``tool``), of a version whose format this
rmqcheck reads (the same major and minor version), written by a command the reader takes (``command``;
results written before results named their command are known by their shape), of a model mode this
rmqcheck has, and of that mode's model (``model``). Anything else is bad input (exit 2) in one line. What a
reader re-renders as a verdict is verified first where it can be without exploring
(:func:`verify_traces`): every trace is replayed against the model and must still show its verdict, so a
status or a trace edited by hand is refused rather than rendered. What only exploring can confirm (a verdict
without a trace, a graph property's trace, the statistics) is left to ``rmqcheck replay``, which re-explores.
"""
from __future__ import annotations

from typing import Any, Sequence

from .setup import BadInput

#: the commands that write a result, and what each is called in a message
COMMANDS = {"check": "check --json", "simulate": "simulate --json", "faults": "faults --json",
            "matrix": "matrix --json"}


def result_command(data: dict[str, Any]) -> str:
    """The command that wrote ``data``: its ``command``, else (an older file) the one its shape says."""
    if "command" in data:   # named: anything but a command's name is no result of one
        return data["command"] if isinstance(data["command"], str) else repr(data["command"])
    if "configurations" in data:
        return "matrix"
    if "sweep" in data:
        return "faults"
    return "simulate" if data.get("search") == "random-walks" else "check"


def _shown(value: Any) -> str:
    """A value of the file as an error line quotes it: at most 40 characters (the line stays one short line)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _readable_version(version: Any) -> bool:
    from reports.json_report import version as ours

    def major_minor(text: str) -> tuple[str, ...]:
        return tuple(text.split(".")[:2])
    return isinstance(version, str) and major_minor(version) == major_minor(ours())


def accept_saved(data: dict[str, Any], where: str, commands: Sequence[str], reader: str) -> tuple[str, Any]:
    """``(command, mode)`` of a result ``reader`` (``rmqcheck report`` ...) may read; bad input naming what
    does not fit otherwise."""
    from model.modes import MODES, mode_name_of
    from reports.json_report import TOOL, version

    if data.get("tool") != TOOL:
        raise BadInput(f"{where}: not a result of rmqcheck (its 'tool' is {_shown(data.get('tool'))}); "
                       f"{reader} reads only what rmqcheck wrote")
    if not _readable_version(data.get("version")):
        raise BadInput(f"{where}: written by rmqcheck {_shown(data.get('version'))}; this rmqcheck ({version()}) reads "
                       f"results of version {'.'.join(version().split('.')[:2])}.x: re-run the command")
    command = result_command(data)
    if command not in commands:
        takes = " or ".join(f"'rmqcheck {COMMANDS[c]}'" for c in commands)
        what = f"'rmqcheck {COMMANDS[command]}'" if command in COMMANDS else f"command {_shown(command)}"
        raise BadInput(f"{where}: a result of {what}; {reader} reads results of {takes}")
    config = data.get("config")
    mode_name = mode_name_of(config)
    mode = MODES.get(mode_name) if isinstance(mode_name, str) else None
    if mode is None:
        raise BadInput(f"{where}: its config names mode {_shown(mode_name)}; known modes: {', '.join(MODES)}")
    model = data.get("model")
    if model is not None and model != mode.model_name():
        raise BadInput(f"{where}: its model is {_shown(model)}, not mode {mode.name}'s {mode.model_name()!r}; "
                       f"{reader} reads only results of this rmqcheck's models")
    return command, mode


def saved_config(data: dict[str, Any], where: str, mode: Any) -> Any:
    """The typed configuration of the result, in its mode (bad input when its knobs do not fit)."""
    from model.knobs import ConfigError

    try:
        return mode.from_mapping({k: v for k, v in data["config"].items() if k != "mode"})
    except ConfigError as exc:
        raise BadInput(f"{where}: its config does not fit this model: {exc}") from None


def verify_traces(data: dict[str, Any], where: str, command: str, cfg: Any) -> None:
    """Every trace of a check or faults result replays against ``cfg``'s model and still shows its
    recorded verdict (a violated always property's last state violates it, a reached witness is reached,
    a lasso is a fair counterexample, a failure mode ends with its breaking action); each status is a
    verdict of its property's kind. Bad input naming the first that does not."""
    from explore.trace import ReplayError
    from model.knobs import ConfigError
    from model.modes import mode_of

    from .replay import (faults_replays, lasso_fault_of, recorded_fairness, recorded_properties, replay_steps,
                         still_shows)

    mode = mode_of(cfg)
    properties = mode.properties()
    edited = "edited, or written by another model: re-run the command that wrote it"
    try:
        if command == "faults":
            for what, _trace, problem in faults_replays(data, where, cfg):
                if problem:   # a step the model does not allow is said with its place already
                    raise BadInput(f"{problem if problem.startswith(where) else f'{what}: {problem}'}; {edited}")
            return
        recorded = recorded_properties(data, where, properties)
        model = mode.model(cfg)
        fairness = recorded_fairness(recorded, where)
        for name, record in recorded.items():
            if "trace" not in record:
                continue
            if record["status"] not in ("violated", "reached"):   # only a violation or a witness has a trace
                raise BadInput(f"{where}, property {name}: recorded {record['status']} with a trace; {edited}")
            prop = properties.get(name)
            trace, flags = replay_steps(model, record["trace"], f"{where}, property {name}")
            if prop.kind == "eventually" and record["status"] == "violated":
                fault = lasso_fault_of(model, prop, trace, record.get("loop_start"), fairness, properties)
                if fault:
                    raise BadInput(f"{where}, property {name}: recorded violated, but {fault}; {edited}")
            elif record["status"] in ("violated", "reached") and \
                    still_shows(model, prop, trace, flags, properties) is False:
                raise BadInput(f"{where}, property {name}: recorded {record['status']}, but the last state of its "
                               f"trace does not show it; {edited}")
    except (ReplayError, ConfigError, ValueError) as exc:
        if isinstance(exc, BadInput):
            raise
        raise BadInput(f"{str(exc).splitlines()[0]}; {edited}") from None
    except (KeyError, TypeError, AttributeError, IndexError) as exc:   # a part missing or of the wrong type
        raise BadInput(f"{where}: not a whole result of 'rmqcheck {command}' ({type(exc).__name__}: "
                       f"{str(exc)[:80]}); {edited}") from None
