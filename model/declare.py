"""Declaring an action once, next to its kernel function: ``@action(...)`` above ``@kernel``.

A declaration carries everything the rest of rmqcheck derives about an action: its name (the trace label's
head), its ``kind`` code in the kernel's action table, its actor, its arguments and their values in a
configuration, its place in the fixed table order, when a configuration has it at all, the RocketMQ 4.4
``Class#method`` it models, and its docstring (the kernel function's). From the declarations
:mod:`model.actions` builds the typed action classes, ``ACTION_TYPES`` and ``actions_for``, and
:func:`dispatch_source` writes :mod:`model.dispatch`, the kernel's ``apply`` (one branch per kind).

The dispatch is a generated source file checked into the repository rather than code built with
``exec``: numba caches a compiled function on disk only when it has a real source file. Regenerate it
with ``python -m model.declare`` after adding or changing a declaration; a test fails while it is stale.

``place`` orders the table: the actor's section (producer, store, ha, metadata, client, failure), then the
items of ``place``, where an :class:`Arg` stands for the argument's value. So ``place=(CONSUMER, 2, QUEUE,
0)`` puts ``Pull(consumer=c, queue=q)`` after consumer ``c``'s items 0 and 1 and first among its four
per-queue actions. The arguments of an action are the :class:`Arg` items of its place, in order; the first
is the kernel's ``x``, the second its ``y``, the third its ``z``.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

#: sections of the fixed action order, by actor
ACTORS = ("producer", "store", "ha", "metadata", "client", "failure")
#: a RocketMQ 4.4 method as the docstrings cite it: ``Class#method`` or ``Outer.Inner#method``
ROCKETMQ_METHOD = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)*#[a-z][A-Za-z0-9]*\b")


@dataclass(frozen=True)
class Arg:
    """An action argument: its name, its values in a configuration, and the kernel code of a value."""

    name: str
    values: Callable[[Any], Iterable[Any]]
    code: Callable[[Any], int]
    default: Any
    hidden: Any = None      # a value left out of the label (``SendMessage()`` rather than ``flush=none``)


#: brokerId: the master 0, slaves 1..n (the kernel takes the brokerId)
BROKER = Arg("broker", lambda cfg: range(cfg.slaves + 1), int, 0)
#: slaves 1..n (the kernel takes the 0-based slave index)
SLAVE = Arg("slave", lambda cfg: range(1, cfg.slaves + 1), lambda s: s - 1, 1)
#: consumers 1..n (the kernel takes the 0-based consumer index)
CONSUMER = Arg("consumer", lambda cfg: range(1, cfg.consumers + 1), lambda c: c - 1, 1)
#: queueId from 0
QUEUE = Arg("queue", lambda cfg: range(cfg.queues), int, 0)
#: how many messages a FOUND pull returns when fewer than all the queue holds from the pull offset (0 = all
#: of them, or a pull that finds none); 1..capacity-1
BATCH = Arg("batch", lambda cfg: range(cfg.queue_capacity), int, 0, hidden=0)
#: the SYNC_FLUSH wait's outcome ("ok" or "timeout"; "none" under ASYNC_FLUSH); the kernel takes 1 for timeout
FLUSH = Arg("flush", lambda cfg: ("ok", "timeout") if cfg.sync_flush else ("none",),
            lambda f: 1 if f == "timeout" else 0, "none", hidden="none")


def always(cfg: Any) -> bool:
    return True


#: who a drawing names: the cluster's fixed actors, or the actor an argument of the action names
DRAWN_ROLES = ("producer", "master", "nameserver", "broker", "slave", "consumer")


@dataclass(frozen=True)
class Arrow:
    """How a sequence diagram draws a message of the action: from ``src`` to ``dst`` (roles of
    :data:`DRAWN_ROLES`), labelled ``text``; ``reply`` draws an answer. ``text`` may name the roles
    (``"expires {slave}"``)."""

    src: str
    dst: str
    text: str
    reply: bool = False


@dataclass(frozen=True)
class Note:
    """How a sequence diagram draws a step of one actor alone: a note ``text`` on ``actor``'s lifeline."""

    actor: str
    text: str


def _drawn(name: str, drawn: Any) -> tuple[Any, ...]:
    items = drawn if isinstance(drawn, tuple) else (drawn,)
    for item in items:
        if not isinstance(item, (Arrow, Note)):
            raise ValueError(f"action {name}: drawn= takes Arrow and Note items, not {item!r}")
        roles = (item.src, item.dst) if isinstance(item, Arrow) else (item.actor,)
        bad = [r for r in roles if r not in DRAWN_ROLES]
        if bad:
            raise ValueError(f"action {name}: drawn= names {bad[0]!r}, not one of {DRAWN_ROLES}")
    return items


@dataclass(frozen=True)
class ActionDecl:
    """One action as declared: see the module docstring."""

    name: str
    kind: int
    actor: str
    place: tuple[Any, ...]
    when: Callable[[Any], bool]
    rocketmq: str
    module: str
    function: str
    doc: str
    phrase: str = ""    # what the action does, in RocketMQ terms, as the failure-mode meanings say it
    drawn: tuple[Any, ...] = ()   # how a sequence diagram draws it (Arrow and Note items), when it is that simple

    @property
    def args(self) -> tuple[Arg, ...]:
        return tuple(item for item in self.place if isinstance(item, Arg))

    def order_key(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """Where the action with argument ``values`` sits in the table."""
        return (ACTORS.index(self.actor),) + tuple(
            values[item.name] if isinstance(item, Arg) else item for item in self.place)

    def call(self) -> str:
        """The kernel call in the dispatch: ``fn(v, w, [x, [y, [z, ]]] p)``."""
        xy = ("x", "y", "z")[:len(self.args)]
        return f"{self.module.rsplit('.', 1)[-1]}.{self.function}({', '.join(('v', 'w') + xy + ('p',))})"


DECLARATIONS: list[ActionDecl] = []


def action(name: str, *, kind: int, actor: str, rocketmq: str, phrase: str, place: tuple[Any, ...] = (),
           when: Callable[[Any], bool] = always, drawn: Any = ()) -> Callable[[Any], Any]:
    """Declare the kernel function below as action ``name`` (see the module docstring); ``phrase`` says
    what it does in RocketMQ terms, in a few words (the failure-mode meanings begin with it); ``drawn``
    how a sequence diagram draws it (an :class:`Arrow`, a :class:`Note` or a tuple of them), unless the
    drawing depends on the step's outcome or fields (then ``reports.sequence`` draws it with ``@draws``)."""
    if not phrase:
        raise ValueError(f"action {name}: no phrase (what it does, in RocketMQ terms)")
    if actor not in ACTORS:
        raise ValueError(f"action {name}: actor {actor!r} not in {ACTORS}")
    if len([a for a in place if isinstance(a, Arg)]) > 3:
        raise ValueError(f"action {name}: the kernel's action table holds three arguments")
    drawing = _drawn(name, drawn)

    def register(fn: Any) -> Any:
        py = getattr(fn, "py_func", fn)
        DECLARATIONS.append(ActionDecl(name, kind, actor, tuple(place), when, rocketmq, py.__module__,
                                       py.__name__, inspect.cleandoc(py.__doc__ or ""), phrase, drawing))
        return fn

    return register


def declarations() -> tuple[ActionDecl, ...]:
    """Every declared action, by kind (imports the kernel modules that declare them)."""
    from . import client, failures, ha, metadata, producer, store  # noqa: F401  (they register)
    return tuple(sorted(DECLARATIONS, key=lambda d: d.kind))


@dataclass(frozen=True)
class MutantDecl:
    """A seeded bug's alternative kernel function for the action named ``replaces`` (:mod:`model.mutants`)."""

    mutation: str
    replaces: str
    kind: int
    module: str
    function: str
    doc: str


MUTANT_DECLARATIONS: list[MutantDecl] = []


def mutant(mutation: str, *, replaces: tuple[str, ...], kind: int) -> Callable[[Any], Any]:
    """Declare the kernel function below as seeded bug ``mutation``'s version of the actions ``replaces``
    (one declaration per action it replaces: the function takes that action's arguments)."""
    def register(fn: Any) -> Any:
        py = getattr(fn, "py_func", fn)
        for name in replaces:
            MUTANT_DECLARATIONS.append(MutantDecl(mutation, name, kind, py.__module__, py.__name__,
                                                  inspect.cleandoc(py.__doc__ or "")))
        return fn

    return register


def mutant_declarations() -> tuple[MutantDecl, ...]:
    """Every declared mutant, by kind (imports :mod:`model.mutants`)."""
    from . import mutants  # noqa: F401  (it registers)
    return tuple(sorted(MUTANT_DECLARATIONS, key=lambda d: d.kind))


DISPATCH_PATH = Path(__file__).with_name("dispatch.py")


def dispatch_source() -> str:
    """The text of :mod:`model.dispatch` for the current declarations."""
    decls = declarations()
    by_name = {d.name: d for d in decls}
    mutants = mutant_declarations()
    modules = sorted({d.module.rsplit(".", 1)[-1] for d in decls + mutants})
    lines = [
        '"""GENERATED by ``python -m model.declare`` from the ``@action`` declarations: do not edit.',
        "",
        "``apply`` fires one action of the kernel's action table, chosen by its kind code, on the work vector",
        "``w`` (a copy of the state's fields ``v``) and returns its flags (:mod:`model.events`). Kinds above 100",
        "are seeded bugs (:mod:`model.mutants`): a model built with one has its kind in the replaced action's row.",
        '"""',
        f"from . import {', '.join(modules)}",
        "from .native import kernel",
        "",
        "",
        "@kernel(inline=True)",
        "def apply(kind, x, y, z, v, w, p):",
        '    """Fire the action ``(kind, x, y, z)`` on ``w``; 0 for an unknown kind."""',
    ]
    for d in decls:
        lines += [f"    if kind == {d.kind}:  # {d.name}", f"        return {d.call()}"]
    for m in mutants:
        call = by_name[m.replaces].call().replace(
            f"{by_name[m.replaces].module.rsplit('.', 1)[-1]}.{by_name[m.replaces].function}(",
            f"{m.module.rsplit('.', 1)[-1]}.{m.function}(")
        lines += [f"    if kind == {m.kind}:  # seeded bug {m.mutation}: {m.replaces}", f"        return {call}"]
    lines += ["    return 0", ""]
    return "\n".join(lines)


def write_dispatch() -> Path:
    DISPATCH_PATH.write_text(dispatch_source())
    return DISPATCH_PATH


if __name__ == "__main__":
    from model import declare    # the module the kernel modules register with, not this __main__ copy
    print(declare.write_dispatch())
