"""``rmqcheck replay``: re-execute the traces of a ``--json`` result against the model, step by step.

Each step's action must be enabled in the state before it and lead to exactly the recorded state; the
first step the model does not allow is reported with its number (bad input, exit 2). Once a trace
replays, its last state is checked against its property again, so a kept counterexample works as a
regression test: exit 0 while it still shows the recorded verdict, 1 once it no longer does.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the model and the engine load when a trace is replayed, not for ``replay --help``
    from explore.result import Trace
    from invariants.base import Property
    from model import RocketMQModel

from .compile_notice import announce_compilation
from .exit_codes import EXIT_OK, EXIT_VIOLATED
from .output import stdout_console
from .setup import BadInput


def _first_difference(model: RocketMQModel, got: tuple[int, ...], recorded: tuple[int, ...]) -> str:
    a, b = model.view(got), model.view(recorded)
    for field in a:
        if a[field] != b.get(field):
            return f"{field} is {a[field]!r} in the model but {b.get(field)!r} in the file"
    return "the packed states differ"


def replay_steps(model: RocketMQModel, steps: list[dict[str, Any]], where: str) -> tuple[Trace, int]:
    """The trace the model produces for ``steps``, and the flags of its last action (0 for none)."""
    from explore.result import INITIAL_ACTION, Step, Trace
    from explore.trace import ReplayError, diff
    from model import parse_action

    if not steps:
        raise ReplayError(f"{where}: the trace is empty")
    for i, step in enumerate(steps):
        if step["step"] != i:
            raise ReplayError(f"{where}, step {i}: numbered {step['step']}; steps must count 0, 1, 2...")
    if steps[0]["action"] != INITIAL_ACTION:
        raise ReplayError(f"{where}, step 0: action {steps[0]['action']!r}; the first step must be {INITIAL_ACTION}")
    states = []
    for i, step in enumerate(steps):
        try:
            states.append(model.encode(step["state"]))
        except ValueError as exc:
            raise ReplayError(f"{where}, step {i}: the recorded state does not fit this configuration: {exc}") from None
    if states[0] not in model.initial():
        raise ReplayError(f"{where}, step 0: not the initial state of this configuration: "
                          f"{_first_difference(model, model.initial()[0], states[0])}")
    actions = model.actions()
    state, view = states[0], model.view(states[0])
    out_steps = [Step(0, INITIAL_ACTION, state, view, {})]
    last_flags = 0
    for i in range(1, len(steps)):
        label = steps[i]["action"]
        try:
            action = parse_action(label, model.config)
        except ValueError as exc:
            raise ReplayError(f"{where}, step {i}: {exc}") from None
        a = actions.index(action)
        out, flags = model.expand(state)
        if not flags[a] & 1 or flags[a] & 2:
            enabled = ", ".join(str(x) for x, _, _ in model.enabled(state)) or "none"
            raise ReplayError(f"{where}, step {i}: {label} is not enabled in the state before it; "
                              f"enabled there: {enabled}")
        nxt = tuple(int(x) for x in out[a])
        if nxt != states[i]:
            raise ReplayError(f"{where}, step {i}: {label} leads to a different state than recorded: "
                              f"{_first_difference(model, nxt, states[i])}")
        nview = model.view(nxt)
        last_flags = int(flags[a])
        out_steps.append(Step(i, str(action), nxt, nview, diff(view, nview), model.describe_outcome(last_flags), a))
        state, view = nxt, nview
    return Trace(out_steps), last_flags


def still_shows(model: RocketMQModel, prop: Property, trace: Trace, last_flags: int) -> bool | None:
    """Does the trace's last step still violate (always) or reach (sometimes) ``prop``? None for graph
    properties, which need the whole reachable graph."""
    import numpy as np

    from invariants import PROPERTIES
    from invariants.base import ALWAYS, GRAPH

    if prop.kind == GRAPH:
        return None
    props = PROPERTIES
    last = np.asarray(trace.steps[-1].state, dtype=np.uint64)
    if prop.kind == ALWAYS or not prop.on_transitions:
        return bool(int(props.state_check(last, model.params)) & prop.mask)
    if len(trace.steps) < 2:
        return False
    before = np.asarray(trace.steps[-2].state, dtype=np.uint64)
    return bool(int(props.transition_check(before, last_flags, last, model.params)) & prop.mask)


@click.command()
@click.argument("trace_file", metavar="TRACE.json")
@click.option("--property", "property_names", multiple=True, metavar="NAME",
              help="Replay only this property's trace (repeatable); default: every trace in the file.")
def replay(trace_file: str, property_names: tuple[str, ...]) -> None:
    """Replay the traces of a 'check --json' result against the model, confirming every step.

    Exit 0 when every trace replays and still shows its recorded verdict, 1 when a trace replays but its
    last state no longer violates (or reaches) its property, 2 when a step is not allowed by the model.
    """
    announce_compilation(explorer=False)
    from explore.result import REACHED, S_VIOLATED
    from invariants import PROPERTIES
    from model import Config, ConfigError, RocketMQModel
    from reports.console import trace_table
    from reports.json_report import read_result

    data = read_result(trace_file)
    try:
        cfg = Config.from_mapping(data["config"])
    except ConfigError as exc:
        raise BadInput(f"{trace_file}: its config does not fit this model: {exc}") from None
    with_trace = {p["name"]: p for p in data["properties"] if "trace" in p}
    for name in property_names:
        PROPERTIES.get(name)
        if name not in with_trace:
            raise BadInput(f"{trace_file}: property {name} has no trace in this file; "
                           f"traces: {', '.join(with_trace) or 'none'}")
    chosen = list(dict.fromkeys(property_names)) or list(with_trace)
    if not chosen:
        raise BadInput(f"{trace_file}: no property has a trace to replay")
    model = RocketMQModel(cfg)
    replayed = []
    for name in chosen:
        prop = PROPERTIES.get(name)
        trace, flags = replay_steps(model, with_trace[name]["trace"], f"{trace_file}, property {name}")
        replayed.append((prop, with_trace[name].get("status", ""), trace, flags))

    out = stdout_console()
    out.print(f"[bold]config[/bold]  {cfg.short()}")
    lost = []
    for prop, status, trace, flags in replayed:
        out.print(trace_table(trace, f"{prop.name}: {len(trace)} steps replayed, each allowed by the model "
                                     "and reaching the recorded state"))
        shown = still_shows(model, prop, trace, flags) if status in (S_VIOLATED, REACHED) else None
        if shown is None:
            out.print(f"{prop.name}: recorded {status or 'no verdict'}; not re-checked ({prop.kind} property)")
        elif shown:
            out.print(f"[green]{prop.name}: the last state still shows it {status}[/green]")
        else:
            out.print(f"[bold red]{prop.name}: recorded {status}, but the last state no longer shows it[/bold red]")
            lost.append(prop.name)
    sys.exit(EXIT_VIOLATED if lost else EXIT_OK)
