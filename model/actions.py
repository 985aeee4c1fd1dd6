"""The actions of the model as typed values, and their fixed order for a configuration.

Each action is a small frozen dataclass (``SendMessage()``, ``Pull(consumer=1, queue=0)``) whose text is
its trace label. The classes are built here from the ``@action`` declarations beside the kernel functions
(:mod:`model.declare`): the declaration gives the class its name, ``kind``, ``actor``, fields and
docstring (the kernel function's, naming the RocketMQ 4.4 code path it stands for), and the guard and
effect are the kernel function itself. Brokers are named by brokerId (master 0, slaves 1..n), consumers
from 1, queues by queueId from 0.

Time is abstracted away: every periodic task is an action that may fire whenever it is enabled, and an
action whose firing would change nothing is not enabled (stuttering steps are left out of the graph).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, fields, make_dataclass
from typing import Any, ClassVar

from .config import Config
from .declare import ActionDecl, declarations


@dataclass(frozen=True)
class Action:
    """Base of every action: ``kind`` selects the kernel function; :meth:`code` gives its arguments."""

    kind: ClassVar[int] = 0
    actor: ClassVar[str] = ""
    declaration: ClassVar[ActionDecl]

    @property
    def label(self) -> str:
        hidden = {a.name: a.hidden for a in self.declaration.args}
        args = ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                         if hidden[f.name] is None or getattr(self, f.name) != hidden[f.name])
        return f"{type(self).__name__}({args})"

    def __str__(self) -> str:
        return self.label

    def code(self) -> tuple[int, int, int, int]:
        """``(kind, x, y, z)`` for the kernel's action table, with 0-based slave and consumer indices."""
        xyz = [arg.code(getattr(self, arg.name)) for arg in self.declaration.args]
        return (self.kind, *xyz, *[0] * (3 - len(xyz)))


def _action_class(decl: ActionDecl) -> type[Action]:
    cls = make_dataclass(decl.name, [(a.name, Any, field(default=a.default)) for a in decl.args],
                         bases=(Action,), frozen=True,
                         namespace={"kind": decl.kind, "actor": decl.actor, "declaration": decl,
                                    "__doc__": decl.doc})
    cls.__module__ = __name__
    return cls


#: every action class, by kind
ACTION_TYPES: tuple[type[Action], ...] = tuple(_action_class(d) for d in declarations())
globals().update({cls.__name__: cls for cls in ACTION_TYPES})
#: every action kind's name (what a label starts with; ``--unfair`` takes them)
KINDS: tuple[str, ...] = tuple(cls.__name__ for cls in ACTION_TYPES)


def actions_for(cfg: Config) -> tuple[Action, ...]:
    """Every action of a configuration, in the fixed order used by the kernel and the traces: each
    declared action that the configuration has, for every value of its arguments, sorted by place."""
    placed = []
    for cls in ACTION_TYPES:
        decl = cls.declaration
        if not decl.when(cfg):
            continue
        for values in itertools.product(*(a.values(cfg) for a in decl.args)):
            named = {a.name: v for a, v in zip(decl.args, values)}
            placed.append((decl.order_key(named), cls(**named)))
    placed.sort(key=lambda item: item[0])
    return tuple(a for _, a in placed)


_LABEL = re.compile(r"^\s*([A-Za-z]+)\s*\((.*)\)\s*$")


def parse_action(text: str, cfg: Config) -> Action:
    """The action of ``cfg`` whose label is ``text`` (spaces ignored); ValueError if there is none."""
    wanted = re.sub(r"\s+", "", text)
    for action in actions_for(cfg):
        if re.sub(r"\s+", "", action.label) == wanted:
            return action
    if not _LABEL.match(text or ""):
        raise ValueError(f"{text!r} is not an action label such as 'Pull(consumer=1, queue=0)'")
    raise ValueError(f"{text!r} is not an action of this configuration")
