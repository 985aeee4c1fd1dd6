"""Message-sequence diagrams of traces: inline SVG for the HTML report, a Mermaid block for Markdown.

A trace is a list of actions; a person follows a distributed-system bug more easily as messages between
processes. Each step becomes interactions between lifelines, derived from the action's kind and arguments,
its outcome note (``FOUND from broker 1``) and the fields it changed: a send and its SEND_OK, an HA push
with the messages it carried, a pull and its answer from the broker that served it, an offset commit.
Crashes, power losses and restarts are marked on the lifelines (down: dashed red); the last step - the
violation, or the witnessed behaviour - is highlighted. Everything is drawn here in Python: no script, no
font or stylesheet from the network.

This module knows no model mode. A mode says how its traces are drawn with one :class:`Drawings` (its
registry entry names it: ``Mode.drawings_path``): the lifelines of its views, the drawings of the actions
whose picture reads the step's outcome or fields (registered with :func:`draws`), and the roles its
actions' declared drawings (``@action(..., drawn=...)``) name. A trace of a model whose mode draws nothing
is drawn as notes on the lifelines of its view's groups.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any, Callable, Iterable, Optional, Union

_LABEL = re.compile(r"^(\w+)\((.*)\)$")


@dataclass(frozen=True)
class Message:
    """An arrow from one lifeline to another; ``reply`` dashed, ``lost`` ends in a cross before the target."""

    sender: str
    receiver: str
    label: str
    reply: bool = False
    lost: bool = False


@dataclass(frozen=True)
class Mark:
    """Something on one lifeline: ``down`` (crash, power loss), ``up`` (restart) or a ``note``."""

    actor: str
    label: str
    kind: str = "note"


Event = Union[Message, Mark]


@dataclass
class Row:
    """One step of the trace: its index, the action label and what it drew."""

    step: int
    action: str
    events: list[Event] = field(default_factory=list)


@dataclass
class Diagram:
    actors: list[str]
    rows: list[Row]
    highlight: int          # the step to highlight (the trace's last)
    witness: bool = False   # highlighted as a reached behaviour, not a violation
    loop_start: int | None = None   # a lasso: the steps after this one repeat for ever (none: it stays there)


# -- what a drawing reads ---------------------------------------------------------------------------------
#: groups of a readable state that are bookkeeping, not processes: they get no lifeline
BOOKKEEPING = ("history", "failures", "budget")


def numbered(view: dict[str, Any], prefix: str) -> list[str]:
    """The view's groups ``prefix1``, ``prefix2`` ... in the order of their numbers."""
    names = {k.split(".")[0] for k in view if re.fullmatch(rf"{prefix}\d+", k.split(".")[0])}
    return sorted(names, key=lambda n: int(n[len(prefix):]))


def ids(values: Any) -> str:
    return "[" + ",".join(str(m) for m in values) + "]"


def added(step: Any, name: str) -> list[int]:
    """The members field ``name`` gained in ``step``."""
    before, after = step.changes.get(name, [[], []])
    return sorted(set(after or []) - set(before or []))


def erased(step: Any, name: str) -> list[int]:
    """The members field ``name`` lost in ``step``."""
    before, after = step.changes.get(name, [[], []])
    return sorted(set(before or []) - set(after or []))


def parse_label(label: str) -> tuple[str, dict[str, int]]:
    """An action label's kind and arguments: ``Pull(consumer=1, queue=0)``."""
    m = _LABEL.match(label.replace(" ", ""))
    if not m:
        return label, {}
    args = {}
    for part in filter(None, m.group(2).split(",")):
        key, _, value = part.partition("=")
        args[key] = int(value) if value.isdigit() else value
    return m.group(1), args


@dataclass(frozen=True)
class Step:
    """What a drawing reads of one trace step: the step, the view before it and the action's arguments."""

    step: Any
    before: dict[str, Any]
    args: dict[str, Any]

    @property
    def outcome(self) -> str:
        return self.step.outcome

    @property
    def after(self) -> dict[str, Any]:
        return self.step.view

    @property
    def kind(self) -> str:
        return parse_label(self.step.action)[0]


Drawing = Callable[[Step], list[Event]]


def draws(*names: str, into: dict[str, Drawing]) -> Callable[[Drawing], Drawing]:
    """Register the function below as the drawing of the actions ``names`` in a mode's table ``into``."""
    def register(fn: Drawing) -> Drawing:
        for name in names:
            if name in into:
                raise ValueError(f"action {name} is drawn twice")
            into[name] = fn
        return fn
    return register


@dataclass(frozen=True)
class Drawings:
    """How one mode's traces are drawn.

    ``lifelines(view)`` is the lifelines of a view of this mode in their fixed order, or None for a view
    of another model; ``drawn`` the hand drawings of the action kinds whose picture reads the step's
    outcome or fields; ``roles(step)`` the lifeline each role of a declared drawing names in a step;
    ``declarations()`` the mode's action declarations (each ``drawn=`` or not); ``step`` the :class:`Step`
    class its drawings read (a mode's own properties on it); ``fallback`` the lifeline an undrawn action's
    note goes on. Every declared action is drawn once: by its declaration or in ``drawn`` (a test checks)."""

    lifelines: Callable[[dict[str, Any]], Optional[list[str]]]
    drawn: dict[str, Drawing]
    roles: Callable[[Step], dict[str, str]]
    declarations: Callable[[], Iterable[Any]]
    step: type = Step
    fallback: str = "producer"

    def declared(self) -> dict[str, tuple[Any, ...]]:
        """The drawings declared on the actions (``drawn=``), by action name."""
        return {d.name: d.drawn for d in self.declarations() if d.drawn}


def mode_drawings(mode: str) -> Drawings | None:
    """The :class:`Drawings` of the registered mode ``mode`` (None: its traces are drawn as notes)."""
    from model.modes import get_mode
    return get_mode(mode).drawings()


@functools.cache
def declared_drawings(mode: str) -> dict[str, tuple[Any, ...]]:
    """The drawings declared on the actions (``drawn=``) of mode ``mode``, by name."""
    drawings = mode_drawings(mode)
    return drawings.declared() if drawings is not None else {}


def resolve_declared(items: tuple[Any, ...], s: Step, roles: dict[str, str]) -> list[Event]:
    """The events of a declared drawing (``Arrow`` and ``Note`` items of :mod:`model.declare`), its roles
    resolved for this step."""
    return [Message(roles[i.src], roles[i.dst], i.text.format(**roles), reply=i.reply) if hasattr(i, "src")
            else Mark(roles[i.actor], i.text.format(**roles)) for i in items]


# -- from a trace to interactions ---------------------------------------------------------------------------
def _draw(drawings: Drawings, mode_declared: dict[str, tuple[Any, ...]], step: Any,
          before: dict[str, Any]) -> list[Event]:
    name, args = parse_label(step.action)
    s = drawings.step(step, before, args)
    drawing = drawings.drawn.get(name)
    if drawing is not None:
        return drawing(s)
    declared = mode_declared.get(name)
    if declared is not None:
        return resolve_declared(declared, s, drawings.roles(s))
    return [Mark(drawings.fallback, step.action)]


def interactions(step: Any, before: dict[str, Any], mode: str | None = None) -> list[Event]:
    """What one step of a trace of ``mode`` (default: the default mode) draws, from its action, its
    outcome and the fields it changed (an action with no drawing is a note with its label)."""
    from model.modes import DEFAULT_MODE
    mode = mode or DEFAULT_MODE
    drawings = mode_drawings(mode)
    if drawings is None:
        return note_on_owner(step, actors_of(before))
    return _draw(drawings, declared_drawings(mode), step, before)


def note_on_owner(step: Any, actors: list[str]) -> list[Event]:
    """How a step of a model with no drawings (its lifelines are its view's groups) is drawn: its label
    and outcome as a note on the lifeline it names, by the label alone: the group the action's kind starts
    with (``ControllerDown()``: ``controller``), else the one its first argument numbers
    (``SendMessage(broker=1)``: ``broker1``), else the first."""
    name, args = parse_label(step.action)
    first = next(iter(args.values()), None)
    owner = next((a for a in actors if name.lower().startswith(a.lower())), None) or next(
        (a for a in actors if first is not None and re.fullmatch(rf"[a-z]+{first}", a)), actors[0])
    return [Mark(owner, step.action + (f": {step.outcome}" if step.outcome else ""))]


def drawn_by(view: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The registered mode whose lifelines a view has, and those lifelines; else (None, the view's own
    groups in the view's order, bookkeeping left out)."""
    from model.modes import MODES
    for name, mode in MODES.items():
        drawings = mode.drawings()
        actors = drawings.lifelines(view) if drawings is not None else None
        if actors is not None:
            return name, actors
    groups = list(dict.fromkeys(k.split(".")[0] for k in view))
    return None, [g for g in groups if g not in BOOKKEEPING]


def actors_of(view: dict[str, Any]) -> list[str]:
    """Lifelines in their fixed order: the drawing mode's for a view of a registered mode, else the view's
    own groups."""
    return drawn_by(view)[1]


def diagram(trace: Any, witness: bool = False, loop_start: int | None = None) -> Diagram:
    """The diagram of a trace; its last step is highlighted, or, for a lasso (``loop_start``), its cycle is
    drawn as a loop."""
    steps = trace.steps
    mode, actors = drawn_by(steps[0].view)
    if mode is not None:
        drawings, declared = mode_drawings(mode), declared_drawings(mode)

        def draw(s: Any, before: dict[str, Any]) -> list[Event]:
            return _draw(drawings, declared, s, before)
    else:
        def draw(s: Any, before: dict[str, Any]) -> list[Event]:
            return note_on_owner(s, actors)
    rows = [Row(s.index, s.action, draw(s, prev.view)) for prev, s in zip(steps, steps[1:])]
    highlight = steps[-1].index if loop_start is None else -1
    return Diagram(actors, rows, highlight, witness, loop_start)


def loop_label(d: Diagram) -> str:
    """What a lasso's loop says: the steps that repeat for ever, or the state the run stays in."""
    last = d.rows[-1].step if d.rows else 0
    if d.loop_start is None:
        return ""
    if d.loop_start >= last:
        return f"for ever: the run stays in the state after step {d.loop_start} (no fair action enabled)"
    return f"repeats for ever: steps {d.loop_start + 1}-{last} (back to the state after step {d.loop_start})"


# -- SVG -------------------------------------------------------------------------------------------------
COLUMN = 128        # px between lifelines
GUTTER = 34         # left margin holding the step numbers
MARGIN = 72         # right margin: room for a label beside the last lifeline
HEAD = 40           # actor boxes
LINE = 26           # one event
FONT = 11
CHAR = 6.3          # average glyph width at FONT px (for sizing notes)


def _width(d: Diagram) -> int:
    return GUTTER + COLUMN * len(d.actors) + MARGIN


def _x(d: Diagram, actor: str) -> float:
    return GUTTER + COLUMN * d.actors.index(actor) + COLUMN / 2


def _text(x: float, y: float, text: str, anchor: str = "middle", cls: str = "") -> str:
    c = f" class='{cls}'" if cls else ""
    return f"<text x='{x:.0f}' y='{y:.0f}' text-anchor='{anchor}'{c}>{escape(text)}</text>"


def svg(d: Diagram, label: str = "") -> str:
    """The diagram as one inline ``<svg>`` element, sized in pixels (the page scrolls it on a narrow screen)."""
    width = _width(d)
    heights = [max(len(r.events), 1) * LINE for r in d.rows]
    height = HEAD + sum(heights) + LINE // 2
    out = [f"<svg class='sequence' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' role='img' aria-label='{escape(label or 'sequence diagram')}' "
           f"font-family='system-ui, sans-serif' font-size='{FONT}'>"]
    # the highlighted step: a band behind everything
    y = HEAD
    for row, h in zip(d.rows, heights):
        if row.step == d.highlight:
            cls = "witness-step" if d.witness else "violating-step"
            out.append(f"<rect class='{cls}' x='0' y='{y}' width='{width}' height='{h}'/>")
        elif d.loop_start is not None and row.step > d.loop_start:   # a lasso's cycle
            out.append(f"<rect class='loop-step' x='0' y='{y}' width='{width}' height='{h}'/>")
        y += h
    out += _lifelines(d, heights, height)
    for i, actor in enumerate(d.actors):
        x = _x(d, actor)
        out.append(f"<rect class='actor' x='{x - COLUMN / 2 + 6:.0f}' y='4' width='{COLUMN - 12}' height='24' rx='4'/>")
        out.append(_text(x, 20, actor, cls="actor-name"))
    y = HEAD
    for row, h in zip(d.rows, heights):
        out.append(f"<g class='step' data-step='{row.step}'><title>{escape(f'{row.step}. {row.action}')}</title>")
        out.append(_text(GUTTER - 6, y + LINE * 0.65, str(row.step), anchor="end", cls="step-number"))
        for k, event in enumerate(row.events):
            out += _event(d, event, y + k * LINE)
        out.append("</g>")
        y += h
    out.append("</svg>")
    return "\n".join(out)


def _lifelines(d: Diagram, heights: list[int], bottom: int) -> list[str]:
    """Each actor's line: solid while up, dashed red while down (from a ``down`` mark to an ``up`` mark)."""
    out = []
    for actor in d.actors:
        x = _x(d, actor)
        y, start, down = HEAD, 28, False
        segments = []
        for row, h in zip(d.rows, heights):
            for k, e in enumerate(row.events):
                if isinstance(e, Mark) and e.actor == actor and e.kind in ("down", "up"):
                    at = y + k * LINE + LINE / 2
                    segments.append((start, at, down))
                    start, down = at, e.kind == "down"
            y += h
        segments.append((start, bottom, down))
        for y0, y1, is_down in segments:
            cls = "lifeline down" if is_down else "lifeline"
            out.append(f"<line class='{cls}' x1='{x:.0f}' y1='{y0:.0f}' x2='{x:.0f}' y2='{y1:.0f}'/>")
    return out


def _event(d: Diagram, e: Event, top: float) -> list[str]:
    mid = top + LINE * 0.68
    if isinstance(e, Mark):
        x = _x(d, e.actor)
        if e.kind == "down":
            s = 6
            return [f"<path class='crash' d='M{x - s:.0f},{mid - s:.0f} L{x + s:.0f},{mid + s:.0f} "
                    f"M{x + s:.0f},{mid - s:.0f} L{x - s:.0f},{mid + s:.0f}'/>",
                    _text(x + 10, mid - 2, e.label, anchor="start", cls="crash-label")]
        if e.kind == "up":
            return [f"<circle class='restart' cx='{x:.0f}' cy='{mid:.0f}' r='5'/>",
                    _text(x + 10, mid - 2, e.label, anchor="start", cls="restart-label")]
        w = len(e.label) * CHAR + 12
        left = max(2.0, min(x - w / 2, _width(d) - w - 2))   # kept inside the drawing
        return [f"<rect class='note' x='{left:.0f}' y='{mid - 13:.0f}' width='{w:.0f}' height='18' rx='3'/>",
                _text(left + w / 2, mid, e.label, cls="note-text")]
    x1, x2 = _x(d, e.sender), _x(d, e.receiver)
    direction = 1 if x2 > x1 else -1
    end = x2 - direction * (14 if e.lost else 2)
    cls = "msg reply" if e.reply else "msg"
    out = [f"<line class='{cls}' x1='{x1:.0f}' y1='{mid:.0f}' x2='{end:.0f}' y2='{mid:.0f}'/>"]
    if e.lost:
        s = 4
        out.append(f"<path class='lost' d='M{end - s:.0f},{mid - s:.0f} L{end + s:.0f},{mid + s:.0f} "
                   f"M{end + s:.0f},{mid - s:.0f} L{end - s:.0f},{mid + s:.0f}'/>")
    else:
        tip, back = end, end - direction * 7
        out.append(f"<path class='head' d='M{tip:.0f},{mid:.0f} L{back:.0f},{mid - 4:.0f} "
                   f"L{back:.0f},{mid + 4:.0f} Z'/>")
    out.append(_text((x1 + x2) / 2, mid - 4, e.label, cls="msg-label"))
    return out


#: the diagram's look, for the page's stylesheet (class names used above)
SVG_STYLE = """
svg.sequence { display: block; }
svg.sequence .actor { fill: #eef3f8; stroke: #5b7a99; }
svg.sequence .actor-name { font-weight: bold; fill: #223; }
svg.sequence .lifeline { stroke: #8a9bb0; stroke-width: 1.5; }
svg.sequence .lifeline.down { stroke: #c0392b; stroke-dasharray: 4 4; }
svg.sequence .msg { stroke: #223; stroke-width: 1.3; }
svg.sequence .msg.reply { stroke-dasharray: 5 3; }
svg.sequence .head { fill: #223; }
svg.sequence .lost, svg.sequence .crash { stroke: #c0392b; stroke-width: 2.2; fill: none; }
svg.sequence .crash-label { fill: #c0392b; font-weight: bold; }
svg.sequence .restart { fill: #2e8b57; }
svg.sequence .restart-label { fill: #2e8b57; font-weight: bold; }
svg.sequence .msg-label { fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.sequence .note { fill: #fffbe6; stroke: #c9b458; }
svg.sequence .step-number { fill: #666; }
svg.sequence .violating-step { fill: #fde2e1; }
svg.sequence .loop-step { fill: #fdf3d8; }
svg.sequence .witness-step { fill: #e1effd; }
"""


# -- Mermaid ---------------------------------------------------------------------------------------------
def _mermaid_text(text: str) -> str:
    """Text Mermaid takes literally in a message or note: no statement separator, no entity code."""
    return text.replace(";", ",").replace("#", "no.").replace("\n", " ")


def mermaid(d: Diagram) -> str:
    """The diagram as a Mermaid ``sequenceDiagram`` (the fenced block's body); the last step in a rect."""
    lines = ["sequenceDiagram"] + [f"    participant {a}" for a in d.actors]
    looping = d.loop_start is not None and d.rows and d.loop_start < d.rows[-1].step
    for row in d.rows:
        if looping and row.step == d.loop_start + 1:
            lines.append(f"    loop {_mermaid_text(loop_label(d))}")
        indent = "    " if not looping or row.step <= d.loop_start else "        "
        if row.step == d.highlight:
            colour = "rgb(225, 239, 253)" if d.witness else "rgb(253, 226, 225)"
            lines.append(f"    rect {colour}")
            indent = "        "
        for k, e in enumerate(row.events or [Mark(d.actors[0], row.action)]):
            prefix = f"{row.step}. " if k == 0 else ""
            if isinstance(e, Mark):
                mark = {"down": "✖ ", "up": "▲ "}.get(e.kind, "")
                lines.append(f"{indent}Note over {e.actor}: {_mermaid_text(prefix + mark + e.label)}")
            else:
                arrow = ("--" if e.reply else "-") + ("x" if e.lost else ">>")
                lines.append(f"{indent}{e.sender}{arrow}{e.receiver}: {_mermaid_text(prefix + e.label)}")
        if row.step == d.highlight:
            lines.append("    end")
    if looping:
        lines.append("    end")
    elif d.loop_start is not None:
        lines.append(f"    Note over {d.actors[0]},{d.actors[-1]}: {_mermaid_text(loop_label(d))}")
    return "\n".join(lines)
