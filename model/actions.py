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

import re

from .config import Config
from .declare import ROCKETMQ_44, Action
from .declare import actions_for as _actions_for

#: every action class, by kind
ACTION_TYPES: tuple[type[Action], ...] = ROCKETMQ_44.types(__name__)
globals().update({cls.__name__: cls for cls in ACTION_TYPES})
#: every action kind's name (what a label starts with; ``--unfair`` takes them)
KINDS: tuple[str, ...] = tuple(cls.__name__ for cls in ACTION_TYPES)


def actions_for(cfg: Config) -> tuple[Action, ...]:
    """Every action of a configuration, in the fixed order used by the kernel and the traces: each
    declared action that the configuration has, for every value of its arguments, sorted by place."""
    return _actions_for(ACTION_TYPES, cfg)


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
