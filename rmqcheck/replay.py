"""``rmqcheck replay``: re-execute the traces of a ``--json`` result and re-check every recorded verdict.

Each step's action must be enabled in the state before it and lead to exactly the recorded state; the
first step the model does not allow is reported with its number (bad input, exit 2). Once a trace
replays, its last state is checked against its property again. Then the recorded configuration is
explored afresh and every recorded verdict, ``holds`` included, is compared with exploration's: a file
edited to claim more than the model shows is never confirmed. Exit 0 while everything agrees, 1 once a
verdict or a trace no longer does, 3 when a limit kept a verdict from being re-checked.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Iterator

import click

if TYPE_CHECKING:  # the model and the engine load when a trace is replayed, not for ``replay --help``
    from explore.protocol import Model
    from explore.result import Trace
    from invariants.base import Property

from .compile_notice import announce_compilation
from .engines import run_check
from .exit_codes import EXIT_INCOMPLETE, EXIT_MODEL_ERROR, EXIT_OK, EXIT_VIOLATED
from .interrupt import stop_on_signals
from .options import limit_options
from .output import stdout_console
from .setup import BadInput, CheckJob, check_input_file, limits


def _first_difference(model: Model, got: tuple[int, ...], recorded: tuple[int, ...]) -> str:
    a, b = model.view(got), model.view(recorded)
    for field in a:
        if a[field] != b.get(field):
            return f"{field} is {a[field]!r} in the model but {b.get(field)!r} in the file"
    return "the packed states differ"


def replay_steps(model: Model, steps: list[dict[str, Any]], where: str) -> tuple[Trace, int]:
    """The trace the model produces for ``steps``, and the flags of its last action (0 for none)."""
    from explore.result import INITIAL_ACTION, Step, Trace
    from explore.trace import ReplayError, diff

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
        except (ValueError, TypeError, OverflowError, KeyError) as exc:   # any field the model cannot pack
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
        try:   # each mode's model parses its own labels
            action = model.parse_action(label)
        except (ValueError, TypeError, OverflowError) as exc:
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


def still_shows(model: Model, prop: Property, trace: Trace, last_flags: int,
                properties: Any = None) -> bool | None:
    """Does the trace's last step still violate (always) or reach (sometimes) ``prop``? None for graph
    properties, which need the whole reachable graph. ``properties``: the model's mode's by default."""
    import numpy as np

    from invariants.base import ALWAYS, GRAPH
    from model.modes import mode_of

    if prop.kind == GRAPH:
        return None
    props = properties if properties is not None else mode_of(model.config).properties()
    last = np.asarray(trace.steps[-1].state, dtype=np.uint64)
    if prop.kind == ALWAYS or not prop.on_transitions:
        return bool(int(props.state_check(last, model.params)) & prop.mask)
    if len(trace.steps) < 2:
        return False
    before = np.asarray(trace.steps[-2].state, dtype=np.uint64)
    return bool(int(props.transition_check(before, last_flags, last, model.params)) & prop.mask)


def recorded_fairness(recorded: dict[str, dict[str, Any]], where: str) -> Any:
    """The fairness the file's eventually properties were checked under (weak when none says)."""
    from invariants.base import FAIRNESS_MODES, Fairness
    for p in recorded.values():
        f = p.get("fairness")
        if f is None:
            continue
        if not isinstance(f, dict) or f.get("mode") not in FAIRNESS_MODES or \
                not isinstance(f.get("unfair", []), list) or not all(isinstance(k, str) for k in f.get("unfair", [])):
            raise BadInput(f"{where}: property {p['name']}: 'fairness' must be {{\"mode\": one of "
                           f"{', '.join(FAIRNESS_MODES)}, \"unfair\": [action kinds]}}")
        return Fairness(f["mode"], tuple(f.get("unfair", [])))
    return Fairness()


def lasso_fault_of(model: Model, prop: Property, trace: Trace, loop_start: Any, fairness: Any,
                   properties: Any = None) -> str:
    """Why a replayed lasso is no counterexample ("" when it is one); see explore.liveness.lasso_fault.
    ``properties``: the model's mode's by default, whose P and Q masks the lasso is read with."""
    from explore.liveness import lasso_fault
    from model.modes import mode_of
    if not isinstance(loop_start, int) or isinstance(loop_start, bool):
        return "its 'loop_start' (the step the lasso repeats from) is missing"
    masks = (properties if properties is not None else mode_of(model.config).properties()).eventually_masks
    return lasso_fault(model, prop, [s.state for s in trace.steps], [s.action_index for s in trace.steps[1:]],
                       loop_start, fairness, masks)


def recorded_properties(data: dict[str, Any], where: str, properties: Any) -> dict[str, dict[str, Any]]:
    """The file's properties by name, each a known property (of ``properties``, the model mode's) with a
    verdict word of its kind."""
    from .baseline import VERDICTS

    PROPERTIES = properties

    recorded: dict[str, dict[str, Any]] = {}
    for p in data["properties"]:
        prop = PROPERTIES.get(p["name"])
        status = p.get("status")
        if status not in VERDICTS[prop.kind]:
            raise BadInput(f"{where}: property {prop.name}: status {status!r} is not a verdict of a {prop.kind} "
                           f"property; allowed: {', '.join(VERDICTS[prop.kind])}")
        if prop.name in recorded:
            raise BadInput(f"{where}: property {prop.name} is listed twice")
        recorded[prop.name] = p
    return recorded


def faults_traces(data: dict[str, Any], where: str, names: tuple[str, ...],
                  cfg: Any) -> list[tuple[str, str, dict, dict[str, Any] | None, bool]]:
    """Every trace of a faults JSON: ``(what, property, its record, the knobs it ran under besides the
    file's config ``cfg``, whether it is a graph property's)``; a budget vector's knobs are its mode's
    budgets for ``cfg`` (the failure kinds of that configuration's vectors)."""
    from explore.faults import vector_type
    kinds = vector_type(cfg).KINDS
    out = []
    for p in data["properties"]:
        name = p["name"]
        if names and name not in names:
            continue
        for i, m in enumerate(p.get("modes") or []):
            out.append((f"{where}, property {name}, mode {i + 1} ({m.get('breaking_action')})", name, m, None, False))
        for i, c in enumerate(p.get("combinations") or []):
            out.append((f"{where}, property {name}, combination {i + 1}", name, c, None, False))
        for i, v in enumerate(p.get("vectors") or []):
            if "trace" in v:
                budgets = {knob: v["budgets"][k] for k, knob, _ in kinds}
                out.append((f"{where}, property {name}, budget vector {i + 1}", name, v, budgets, True))
        grown = p.get("at_next_bound") or {}
        counts = {k: c for k, c in (grown.get("bounds") or {}).items() if k != "budgets"}
        for i, m in enumerate(grown.get("modes") or []):
            out.append((f"{where}, property {name}, next-bound mode {i + 1} ({m.get('breaking_action')})", name, m,
                        counts, False))
        for i, c in enumerate(grown.get("combinations") or []):
            out.append((f"{where}, property {name}, next-bound combination {i + 1}", name, c, counts, False))
    return out


def faults_replays(data: dict[str, Any], where: str, cfg: Any,
                   names: tuple[str, ...] = ()) -> Iterator[tuple[str, Trace | None, str]]:
    """Every trace of a ``faults --json`` result (of ``names``; all when empty) replayed on the model of the
    configuration it ran under: ``(what, the replayed trace or None, what it fails to show or "")``. A mode's
    last step must be its breaking action, from a state that satisfies the property to one that violates it,
    with the failure counters of its combination; a combination's trace must end violating it; an eventually
    property's lasso must be a fair counterexample under the file's ``fairness``."""
    from explore.trace import ReplayError
    from invariants.base import EVENTUALLY, Fairness
    from model.knobs import ConfigError
    from model.modes import mode_of
    from reports.json_report import fairness_from_dict

    mode = mode_of(cfg)
    properties = mode.properties()
    fairness = fairness_from_dict(data.get("fairness")) or Fairness()
    models: dict[tuple, Any] = {}
    for what, name, record, knobs, graph in faults_traces(data, where, names, cfg):
        prop = properties.get(name)
        key = tuple(sorted((knobs or {}).items()))
        trace = None
        try:
            if key not in models:
                models[key] = mode.model(type(cfg).from_mapping(knobs or {}, base=cfg))
            model = models[key]
            if not isinstance(record.get("trace"), list):
                raise ReplayError(f"{what}: no trace (a list of steps)")
            trace, flags = replay_steps(model, record["trace"], what)
            problem = faults_problem(model, properties, prop, record, trace, flags, graph)
            if graph and prop.kind == EVENTUALLY and record.get("status") == "violated":
                problem = lasso_fault_of(model, prop, trace, record.get("loop_start"), fairness, properties)
        except (ReplayError, ConfigError) as exc:
            problem = str(exc)
        yield what, trace, problem


def replay_faults(data: dict[str, Any], where: str, cfg: Any, names: tuple[str, ...]) -> int:
    """``replay`` of a ``faults --json`` file: every mode, combination and budget-vector trace is replayed
    step by step (:func:`faults_replays`). Exit 0 only when every trace replays, else 1 naming each that
    does not."""
    from model.modes import mode_of

    for name in names:
        mode_of(cfg).properties().get(name)
    out = stdout_console()
    out.print(f"[bold]config[/bold]  {cfg.short()}")
    traces = list(faults_replays(data, where, cfg, names))
    failed: list[str] = []
    for what, trace, problem in traces:
        if problem:
            out.print(f"[bold red]{problem}[/bold red]", markup=True, highlight=False)
            failed.append(what)
        else:
            out.print(f"[green]{what}: {len(trace)} steps replayed[/green]", highlight=False)

    def _count(word: str) -> int:
        return sum(1 for what, *_ in traces if f", {word} " in what)
    out.print(f"replayed {len(traces) - len(failed)} of {len(traces)} traces ({_count('mode')} mode, "
              f"{_count('combination')} combination, {_count('budget vector')} budget-vector, "
              f"{_count('next-bound mode') + _count('next-bound combination')} next-bound traces)")
    if failed:
        out.print(f"[bold red]{len(failed)} trace(s) do not replay: {'; '.join(failed)}[/bold red]")
    return EXIT_VIOLATED if failed else EXIT_OK


def faults_problem(model: Any, PROPERTIES: Any, prop: Any, record: dict[str, Any], trace: Trace, flags: int,
                    graph: bool) -> str:
    """What a replayed faults trace fails to show, or "" when it shows what its record says (``PROPERTIES``:
    those of the model's mode)."""
    import numpy as np

    from model.modes import mode_of
    from explore.fault_meanings import action_kind
    from explore.faults import vector_type

    if graph:
        return ""
    if not still_shows(model, prop, trace, flags, PROPERTIES):
        return f"the last state of the trace does not violate {prop.name}"
    combination = record.get("combination") or {}
    view = trace.steps[-1].view
    kinds = vector_type(model.config).keys()   # the failure kinds of this configuration
    named = {k: v for k, v in mode_of(model.config).faults().view_counters.items() if k in kinds}
    counters = {k: view.get(v, 0) for k, v in named.items()}
    if combination and counters != {k: combination.get(k) for k in named}:
        return f"the failures of the trace, {counters}, are not its combination {combination}"
    if "breaking_action" in record:
        if len(trace.steps) < 2 or action_kind(trace.steps[-1].action) != record["breaking_action"]:
            return f"the last step is not a {record['breaking_action']}"
        before = np.asarray(trace.steps[-2].state, dtype=np.uint64)
        if int(PROPERTIES.state_check(before, model.params)) & prop.mask:
            return f"the state before the breaking step already violates {prop.name}"
    return ""


@click.command()
@click.argument("trace_file", metavar="TRACE.json")
@click.option("--property", "property_names", multiple=True, metavar="NAME",
              help="Re-check only this property (repeatable); default: every property in the file.")
@limit_options
def replay(trace_file: str, property_names: tuple[str, ...], max_states, max_depth, max_seconds) -> None:
    """Replay the traces of a 'check --json' or 'faults --json' result and re-check every recorded verdict.

    Each trace is replayed against the model step by step; then the recorded configuration is explored
    afresh and every recorded verdict (holds included) compared with exploration's. Exit 0 when all
    agree, 1 when a verdict differs or a trace no longer shows its verdict, 2 when a step is not allowed
    by the model, 3 when a limit stopped the exploration before a verdict could be re-checked. A faults
    result: every mode, combination and budget-vector trace is replayed; exit 0 when all replay, 1
    naming each that does not.
    """
    announce_compilation()
    from explore.result import REACHED, S_VIOLATED, UNKNOWN
    from invariants.base import EVENTUALLY
    from reports.console import trace_table
    from reports.json_report import read_result

    from .saved_result import accept_saved, saved_config

    check_input_file(trace_file, "trace file")
    data = read_result(trace_file)
    command, mode = accept_saved(data, trace_file, ("check", "simulate", "faults"), "rmqcheck replay")
    cfg = saved_config(data, trace_file, mode)
    PROPERTIES = mode.properties()
    lim = limits(max_states, max_depth, max_seconds)
    if command == "faults":
        try:
            sys.exit(replay_faults(data, trace_file, cfg, property_names))
        except (KeyError, TypeError, AttributeError, IndexError) as exc:   # a part missing or of the wrong type
            raise BadInput(f"{trace_file}: not a whole result of 'rmqcheck faults' ({type(exc).__name__}: "
                           f"{str(exc)[:80]})") from None
    recorded = recorded_properties(data, trace_file, PROPERTIES)
    for name in property_names:
        PROPERTIES.get(name)
        if name not in recorded:
            raise BadInput(f"{trace_file}: property {name} is not in this file; "
                           f"properties: {', '.join(recorded) or 'none'}")
    chosen = list(dict.fromkeys(property_names)) or list(recorded)
    if not chosen:
        raise BadInput(f"{trace_file}: no property to re-check")
    model = mode.model(cfg)
    fairness = recorded_fairness(recorded, trace_file)
    replayed = []
    for name in chosen:
        if "trace" in recorded[name]:
            trace, flags = replay_steps(model, recorded[name]["trace"], f"{trace_file}, property {name}")
            replayed.append((PROPERTIES.get(name), recorded[name]["status"], trace, flags))

    out = stdout_console()
    out.print(f"[bold]config[/bold]  {cfg.short()}")
    lost = []
    for prop, status, trace, flags in replayed:
        loop_start = recorded[prop.name].get("loop_start")
        lasso = prop.kind == EVENTUALLY and status == S_VIOLATED
        fault = lasso_fault_of(model, prop, trace, loop_start, fairness, PROPERTIES) if lasso else ""
        out.print(trace_table(trace, f"{prop.name}: {len(trace)} steps replayed, each allowed by the model "
                                     "and reaching the recorded state", loop_start, fair=not fault))
        if lasso:
            if fault:
                out.print(f"[bold red]{prop.name}: recorded violated, but {fault}[/bold red]")
                lost.append(prop.name)
            else:
                out.print(f"[green]{prop.name}: the lasso closes, is fair ({fairness.describe()}) and its goal "
                          "never holds after its trigger[/green]")
            continue
        shown = still_shows(model, prop, trace, flags, PROPERTIES) if status in (S_VIOLATED, REACHED) else None
        if shown is False:
            out.print(f"[bold red]{prop.name}: recorded {status}, but the last state no longer shows it[/bold red]")
            lost.append(prop.name)
        elif shown:
            out.print(f"[green]{prop.name}: the last state still shows it {status}[/green]")

    with stop_on_signals():
        result, _ = run_check(CheckJob(cfg, PROPERTIES.select(chosen).with_fairness(fairness), lim), "local",
                              quiet=True)
    if result.error is not None:
        out.print(f"[bold magenta]model error[/bold magenta] while re-exploring: {result.error.message} "
                  f"(action {result.error.action})")
        sys.exit(EXIT_MODEL_ERROR)
    fresh = result.verdicts()
    unchecked = []
    for name in chosen:
        was, now = recorded[name]["status"], fresh[name]
        if was == UNKNOWN:
            out.print(f"{name}: recorded unknown (no verdict); exploration gives {now}")
        elif now == UNKNOWN:
            out.print(f"[yellow]{name}: recorded {was}; not re-checked: {result.incomplete_reason}[/yellow]")
            unchecked.append(name)
        elif now == was:
            out.print(f"[green]{name}: recorded {was}; exploration agrees[/green]")
        else:
            out.print(f"[bold red]{name}: recorded {was}, but exploration finds it {now}[/bold red]")
            lost.append(name)
    s = result.stats
    out.print(f"re-explored: {s.distinct_states:,} states, depth {s.depth}")
    sys.exit(EXIT_VIOLATED if lost else EXIT_INCOMPLETE if unchecked else EXIT_OK)
