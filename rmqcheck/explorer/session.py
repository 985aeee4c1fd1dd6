"""One configuration's model walked along a path of action labels, as the explorer page shows it.

Everything here is read from what the model declares: the readable view (:meth:`RocketMQModel.view`,
fields named ``actor.field``, grouped here by their first name), the actions in their fixed order with
their labels, actors and docstrings, the outcome the kernel reports for a fired action
(``FOUND from broker 1``), and the compiled property checks with their explanations
(:mod:`invariants.explain`). Nothing in this module knows a RocketMQ field by name, so a second model
mode shows the same way.

A path is rebuilt from the initial state by :func:`explore.trace.replay`, the replay every trace of the
engines goes through, so the explorer can only show real paths of the model.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from explore.result import Trace
from explore.trace import ReplayError, replay

#: a path longer than this many steps is refused (each step runs the kernel once per request)
MAX_PATH = 2000
#: how a URL separates the labels of a path (no label contains it)
SEPARATOR = ";"


_STEP = re.compile(r"step (\d+):")


class PathError(ValueError):
    """A path the model does not allow: an unknown label, or an action not enabled where it is taken."""


@dataclass(frozen=True)
class Walk:
    """A path taken: its trace (step 0 the initial state) and the kernel flags of its last action (0 at the
    initial state), which the transition properties read."""

    trace: Trace
    last_flags: int

    @property
    def labels(self) -> list[str]:
        return self.trace.actions


def split_path(text: str) -> list[str]:
    """The labels of a URL's ``path`` parameter (``SendMessage();MasterCrash()``); empty for ``''``."""
    labels = [part.strip() for part in text.split(SEPARATOR)]
    return [label for label in labels if label]


def join_path(labels: Sequence[str]) -> str:
    """The ``path`` parameter of a path: its labels without spaces, joined by :data:`SEPARATOR`."""
    return SEPARATOR.join(label.replace(" ", "") for label in labels)


def actor_of(field: str) -> str:
    """The actor a view field belongs to: its name up to the first dot (``consumer1`` of
    ``consumer1.q0.offset``)."""
    return field.split(".", 1)[0]


class Session:
    """The model of one configuration and the properties to show, with every path's walk cached."""

    def __init__(self, config: Any, properties: Any = None) -> None:
        from explore.local import Limits

        from ..setup import CheckJob, select_properties

        # the model and the properties as ``check`` builds them for this configuration
        self.properties = properties if properties is not None else select_properties((), config)
        self.config = config
        self.model = CheckJob(config, self.properties, Limits()).model()
        self._actions = list(self.model.actions())
        self._index = {self._key(str(a)): i for i, a in enumerate(self._actions)}
        self._root = self.model.initial()[0]
        self.walk = functools.lru_cache(maxsize=256)(self._walk)

    @staticmethod
    def _key(label: str) -> str:
        return "".join(label.split())

    # -- paths ------------------------------------------------------------------------------------------
    def action_index(self, label: str, step: int) -> int:
        """The index of the action labelled ``label``; :class:`PathError` naming ``step`` when there is none."""
        if not isinstance(label, str):
            raise PathError(f"step {step}: an action label must be text, got {label!r}")
        index = self._index.get(self._key(label))
        if index is None:
            shown = label if len(label) <= 80 else label[:77] + "..."
            raise PathError(f"step {step}: {shown!r} is not an action of this configuration "
                            "(labels look like 'Pull(consumer=1, queue=0)')")
        return index

    def _walk(self, labels: tuple[str, ...]) -> Walk:
        if len(labels) > MAX_PATH:
            raise PathError(f"the path has {len(labels)} steps; at most {MAX_PATH} are shown")
        indices = [self.action_index(label, i) for i, label in enumerate(labels, start=1)]
        try:
            trace = replay(self.model, self._root, indices)
        except ReplayError as exc:
            step = int(_STEP.match(str(exc))[1])   # replay names the step it refused: "step 3: ..."
            before = replay(self.model, self._root, indices[:step - 1]).steps[-1].state
            enabled = ", ".join(str(a) for a, _, _ in self.model.enabled(before)) or "none"
            raise PathError(f"{exc}; enabled there: {enabled}") from None
        flags = 0
        if indices:
            flags = int(self.model.expand(trace.steps[-2].state)[1][indices[-1]])
        return Walk(trace, flags)

    def path(self, labels: Sequence[str]) -> Walk:
        """The walk along ``labels`` from the initial state (cached); :class:`PathError` when the model does
        not allow it."""
        return self.walk(tuple(labels))

    # -- what the page shows --------------------------------------------------------------------------
    def state(self, walk: Walk) -> list[dict[str, Any]]:
        """The last state grouped by actor, in the view's order: ``[{"actor", "fields": [{"name", "value",
        "changed"}]}]``; ``changed`` marks the fields the last step changed."""
        last = walk.trace.steps[-1]
        groups: dict[str, list[dict[str, Any]]] = {}
        for name, value in last.view.items():
            groups.setdefault(actor_of(name), []).append(
                {"name": name, "value": value, "changed": name in last.changes})
        return [{"actor": actor, "fields": fields} for actor, fields in groups.items()]

    def enabled(self, walk: Walk) -> list[dict[str, Any]]:
        """Every action enabled in the last state, in the model's order: its label, actor, the outcome
        the kernel reports for it (``FOUND from broker 1``), whether it is a model error, and the fields it
        would change."""
        from explore.trace import diff

        here = walk.trace.steps[-1]
        out = []
        for action, nxt, flags in self.model.enabled(here.state):
            error = bool(flags & 2)
            changes = [] if error else list(diff(here.view, self.model.view(nxt)))
            doc = getattr(action, "doc", None) or type(action).__doc__   # what the action models
            out.append({"label": str(action), "actor": action.actor, "outcome": self.model.describe_outcome(flags),
                        "error": error, "changes": changes, "doc": _first_line(doc)})
        return out

    def steps(self, walk: Walk) -> list[dict[str, Any]]:
        """The path as a list: each step's action, outcome, changed fields and whole state (for the watch
        columns)."""
        return [{"index": s.index, "action": s.action, "outcome": s.outcome, "changes": s.changes,
                 "state": s.view} for s in walk.trace.steps]

    def property_values(self, walk: Walk) -> list[dict[str, Any]]:
        """Every property's value at the last state: an always property holds or is violated here (and why,
        as ``check`` explains it); a sometimes property is witnessed here (by the state, or by the last
        step for one read on transitions) or not; a graph property's goal holds here or not (its verdict
        needs the whole graph: "shortest path to" runs the check)."""
        from invariants.base import ALWAYS, GRAPH, SOMETIMES
        from invariants.explain import conditions, explain

        steps = walk.trace.steps
        last = np.asarray(steps[-1].state, dtype=np.uint64)
        params = self.model.params
        bits = int(self.properties.state_check(last, params))
        tbits = 0
        if len(steps) > 1:
            before = np.asarray(steps[-2].state, dtype=np.uint64)
            tbits = int(self.properties.transition_check(before, walk.last_flags, last, params))
        out = []
        for p in self.properties:
            entry: dict[str, Any] = {"name": p.name, "kind": p.kind, "summary": p.summary, "why": None}
            if p.kind == ALWAYS:
                violated = bool(bits & p.mask)
                entry.update(value="violated" if violated else "holds",
                             text="violated here" if violated else "holds here")
                e = explain(p.name, walk.trace, self.model) if violated else None
                entry["why"] = e.to_dict() if e is not None else None
            elif p.kind == SOMETIMES:
                hit = bool((tbits if p.on_transitions else bits) & p.mask)
                by = "by the last step" if p.on_transitions else "in this state"
                entry.update(value="witnessed" if hit else "not-witnessed",
                             text=f"witnessed {by}" if hit else f"not witnessed {by}")
            elif p.kind == GRAPH:
                goal = bool(bits & p.mask)
                entry.update(value="goal-holds" if goal else "goal-fails",
                             text=("its goal holds here" if goal else "its goal fails here")
                             + "; the verdict needs the whole graph (shortest path runs the check)")
                conds = conditions(p.name, self.model, steps[-1].view, walk.trace)
                if conds and not goal:
                    entry["why"] = {"summary": "; ".join(c.text for c in conds if not c.holds),
                                    "conditions": [c.to_dict() for c in conds], "last_changed": {}}
            else:   # a kind the explorer does not evaluate on one state (e.g. a liveness property)
                entry.update(value="unknown", text="decided only by a check over the whole graph")
            out.append(entry)
        return out

    def sequence_svg(self, walk: Walk) -> str:
        """The path as the reports' sequence diagram, its last step highlighted."""
        from reports.sequence import diagram, svg

        return svg(diagram(walk.trace, witness=True), "sequence diagram of the path")

    def describe(self) -> dict[str, Any]:
        """What the page needs once: the configuration, the fields by actor, the properties."""
        from explore.faults import bounds
        from reports.bounds import bounds_text

        initial = self.path(())
        return {"model": self.model.name, "config": self.config.as_dict(), "short": self.config.short(),
                "bounds": bounds_text(bounds(self.config)),
                "actors": [{"actor": g["actor"], "fields": [f["name"] for f in g["fields"]]}
                           for g in self.state(initial)],
                "properties": [{"name": p.name, "kind": p.kind, "summary": p.summary} for p in self.properties],
                "separator": SEPARATOR, "max_path": MAX_PATH}

    def page_data(self, walk: Walk) -> dict[str, Any]:
        """Everything the page shows for one path."""
        return {"path": walk.labels, "query": join_path(walk.labels), "steps": self.steps(walk),
                "state": self.state(walk), "enabled": self.enabled(walk),
                "properties": self.property_values(walk), "sequence": self.sequence_svg(walk)}


def _first_line(doc: str | None) -> str:
    """The first paragraph of a docstring, its lines joined (their indentation dropped)."""
    return " ".join((doc or "").strip().split("\n\n", 1)[0].split())
