"""Declaring an action once, next to its kernel function: ``@action(...)`` above ``@kernel``.

A declaration carries everything the rest of rmqcheck derives about an action: its name (the trace label's
head), its ``kind`` code in the kernel's action table, its actor, its arguments and their values in a
configuration, its place in the fixed table order, when a configuration has it at all, the RocketMQ
``Class#method`` it models, and its docstring (the kernel function's). One :class:`ActionRegistry` holds a
model mode's declarations: from them it builds the typed action classes (:meth:`ActionRegistry.types`) and
a configuration's action table (:func:`actions_for`), and writes the mode's dispatch, the kernel's
``apply`` (one branch per kind, :meth:`ActionRegistry.dispatch_source`). The RocketMQ 4.4 mode's registry
is :data:`ROCKETMQ_44` (its ``action``, ``mutant`` and ``declarations`` are this module's), writing
:mod:`model.dispatch`; the controller mode's is ``model.controller.declare.CONTROLLER``.

The dispatch is a generated source file checked into the repository rather than code built with
``exec``: numba caches a compiled function on disk only when it has a real source file. Regenerate it
with the registry's command (``python -m model.declare`` for 4.4) after adding or changing a declaration; a
test fails while it is stale.

``place`` orders the table: the section (by default the actor's) in the registry's ``sections``, then the
items of ``place``, where an :class:`Arg` stands for the argument's value. So ``place=(CONSUMER, 2, QUEUE,
0)`` puts ``Pull(consumer=c, queue=q)`` after consumer ``c``'s items 0 and 1 and first among its four
per-queue actions. The arguments of an action are the :class:`Arg` items of its place, in order; the first
is the kernel's ``x``, the second its ``y``, the third its ``z``.
"""
from __future__ import annotations

import importlib
import inspect
import itertools
import re
from dataclasses import dataclass, field, fields, make_dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable

#: a RocketMQ method as the docstrings cite it: ``Class#method`` or ``Outer.Inner#method``
ROCKETMQ_METHOD = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)*#[a-z][A-Za-z0-9]*\b")


@dataclass(frozen=True)
class Arg:
    """An action argument: its name, its values in a configuration, and the kernel code of a value."""

    name: str
    values: Callable[[Any], Iterable[Any]]
    code: Callable[[Any], int]
    default: Any
    hidden: Any = None      # a value left out of the label (``SendMessage()`` rather than ``flush=none``)


def always(cfg: Any) -> bool:
    return True


@dataclass(frozen=True)
class Arrow:
    """How a sequence diagram draws a message of the action: from ``src`` to ``dst`` (roles of the
    registry's ``roles``), labelled ``text``; ``reply`` draws an answer. ``text`` may name the roles
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
    section: int = 0    # its section's position in the registry's sections (the first item of its order)
    only: Callable[[dict[str, Any]], bool] | None = None   # the argument combinations it has (default: all)
    state_args: tuple[str, ...] = ("v", "w")   # what the kernel function takes before its arguments

    @property
    def args(self) -> tuple[Arg, ...]:
        return tuple(item for item in self.place if isinstance(item, Arg))

    def order_key(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """Where the action with argument ``values`` sits in the table."""
        return (self.section,) + tuple(values[item.name] if isinstance(item, Arg) else item for item in self.place)

    def call(self) -> str:
        """The kernel call in the dispatch: ``fn(v, w, [x, [y, [z, ]]] p)``."""
        xy = ("x", "y", "z")[:len(self.args)]
        return f"{self.module.rsplit('.', 1)[-1]}.{self.function}({', '.join(self.state_args + xy + ('p',))})"


@dataclass(frozen=True)
class MutantDecl:
    """A seeded bug's alternative kernel function for the action named ``replaces`` (a mode's mutants
    module, e.g. :mod:`model.mutants`)."""

    mutation: str
    replaces: str
    kind: int
    module: str
    function: str
    doc: str


@dataclass(frozen=True)
class Action:
    """Base of every typed action: ``kind`` selects the kernel function; :meth:`code` gives its arguments."""

    kind: ClassVar[int] = 0
    actor: ClassVar[str] = ""
    arity: ClassVar[int] = 3     # argument slots of a row of the kernel's action table
    declaration: ClassVar[ActionDecl]

    @property
    def label(self) -> str:
        hidden = {a.name: a.hidden for a in self.declaration.args}
        args = ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                         if hidden[f.name] is None or getattr(self, f.name) != hidden[f.name])
        return f"{type(self).__name__}({args})"

    @property
    def doc(self) -> str:
        """What the action models: its kernel function's docstring, naming the RocketMQ ``Class#method``."""
        return self.declaration.doc

    def __str__(self) -> str:
        return self.label

    def code(self) -> tuple[int, ...]:
        """``(kind, x, y[, z])`` for the kernel's action table: the arguments' kernel codes, 0 for none."""
        xyz = [arg.code(getattr(self, arg.name)) for arg in self.declaration.args]
        return (self.kind, *xyz, *[0] * (self.arity - len(xyz)))


def actions_for(types: Iterable[type[Action]], cfg: Any) -> tuple[Action, ...]:
    """Every action of a configuration, in the fixed order used by the kernel and the traces: each
    declared action of ``types`` that the configuration has, for every value of its arguments, sorted by
    place."""
    placed = []
    for cls in types:
        decl = cls.declaration
        if not decl.when(cfg):
            continue
        for values in itertools.product(*(a.values(cfg) for a in decl.args)):
            named = {a.name: v for a, v in zip(decl.args, values)}
            if decl.only is None or decl.only(named):
                placed.append((decl.order_key(named), cls(**named)))
    placed.sort(key=lambda item: item[0])
    return tuple(a for _, a in placed)


@dataclass
class ActionRegistry:
    """One model mode's action declarations (see the module docstring).

    ``actors`` are the parts of the cluster an action may belong to, ``sections`` the fixed order's
    sections (by default the actors), ``roles`` the names a drawing may give its lifelines, ``modules``
    the kernel modules that declare (imported by :meth:`declarations`), ``mutants`` the module of the
    seeded bugs; ``state_args`` what every kernel function takes before its arguments, ``arity`` the
    argument slots of a row of the action table. The dispatch is written to ``dispatch_path`` by
    ``command``; it imports ``kernel`` with ``native_import``."""

    actors: tuple[str, ...]
    roles: tuple[str, ...]
    modules: tuple[str, ...]
    mutants: str
    dispatch_path: Path
    command: str
    native_import: str
    sections: tuple[str, ...] = ()
    state_args: tuple[str, ...] = ("v", "w")
    arity: int = 3
    decls: list[ActionDecl] = field(default_factory=list)
    mutant_decls: list[MutantDecl] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sections = self.sections or self.actors

    def action(self, name: str, *, kind: int, actor: str, rocketmq: str, phrase: str, place: tuple[Any, ...] = (),
               when: Callable[[Any], bool] = always, drawn: Any = (), section: str = "",
               only: Callable[[dict[str, Any]], bool] | None = None) -> Callable[[Any], Any]:
        """Declare the kernel function below as action ``name`` (see the module docstring); ``phrase`` says
        what it does in RocketMQ terms, in a few words (the failure-mode meanings begin with it); ``drawn``
        how a sequence diagram draws it (an :class:`Arrow`, a :class:`Note` or a tuple of them), unless the
        drawing depends on the step's outcome or fields (then ``reports.sequence`` draws it with
        ``@draws``); ``section`` its section of the order (default: its actor's); ``only`` the argument
        combinations it has (a predicate over ``{name: value}``; default: every combination)."""
        if not phrase:
            raise ValueError(f"action {name}: no phrase (what it does, in RocketMQ terms)")
        if actor not in self.actors:
            raise ValueError(f"action {name}: actor {actor!r} not in {self.actors}")
        if (section or actor) not in self.sections:
            raise ValueError(f"action {name}: section {section or actor!r} not in {self.sections}")
        if len([a for a in place if isinstance(a, Arg)]) > self.arity:
            raise ValueError(f"action {name}: the kernel's action table holds {self.arity} arguments")
        drawing = self._drawn(name, drawn)

        def register(fn: Any) -> Any:
            py = getattr(fn, "py_func", fn)
            clash = next((d for d in self.decls if d.kind == kind and d.name != name), None)
            if clash is not None:   # the generated dispatch would run the other action's kernel for this one
                raise ValueError(f"action {name}: kind {kind} is already {clash.name}'s")
            self.decls.append(ActionDecl(name, kind, actor, tuple(place), when, rocketmq, py.__module__,
                                         py.__name__, inspect.cleandoc(py.__doc__ or ""), phrase, drawing,
                                         self.sections.index(section or actor), only, self.state_args))
            return fn

        return register

    def _drawn(self, name: str, drawn: Any) -> tuple[Any, ...]:
        items = drawn if isinstance(drawn, tuple) else (drawn,)
        for item in items:
            if not isinstance(item, (Arrow, Note)):
                raise ValueError(f"action {name}: drawn= takes Arrow and Note items, not {item!r}")
            roles = (item.src, item.dst) if isinstance(item, Arrow) else (item.actor,)
            bad = [r for r in roles if r not in self.roles]
            if bad:
                raise ValueError(f"action {name}: drawn= names {bad[0]!r}, not one of {self.roles}")
        return items

    def declarations(self) -> tuple[ActionDecl, ...]:
        """Every declared action, by kind (imports the kernel modules that declare them)."""
        for module in self.modules:
            importlib.import_module(module)
        return tuple(sorted(self.decls, key=lambda d: d.kind))

    def mutant(self, mutation: str, *, replaces: tuple[str, ...], kind: int) -> Callable[[Any], Any]:
        """Declare the kernel function below as seeded bug ``mutation``'s version of the actions ``replaces``
        (one declaration per action it replaces: the function takes that action's arguments)."""
        def register(fn: Any) -> Any:
            py = getattr(fn, "py_func", fn)
            for name in replaces:
                self.mutant_decls.append(MutantDecl(mutation, name, kind, py.__module__, py.__name__,
                                                    inspect.cleandoc(py.__doc__ or "")))
            return fn

        return register

    def mutant_declarations(self) -> tuple[MutantDecl, ...]:
        """Every declared mutant, by kind (imports the mutants module)."""
        importlib.import_module(self.mutants)
        return tuple(sorted(self.mutant_decls, key=lambda d: d.kind))

    def types(self, module: str) -> tuple[type[Action], ...]:
        """A typed action class per declaration, by kind, made members of ``module`` (where they are
        imported from)."""
        out = []
        for decl in self.declarations():
            cls = make_dataclass(decl.name, [(a.name, Any, field(default=a.default)) for a in decl.args],
                                 bases=(Action,), frozen=True,
                                 namespace={"kind": decl.kind, "actor": decl.actor, "declaration": decl,
                                            "arity": self.arity, "__doc__": decl.doc})
            cls.__module__ = module
            out.append(cls)
        return tuple(out)

    def mutated_codes(self, actions: Iterable[Action], mutation: str | None) -> list[tuple[int, ...]]:
        """The action table's codes, with seeded bug ``mutation``'s kernels in place of the actions it
        replaces: same arguments, same place, another kind (ValueError naming the known ones otherwise)."""
        codes = [a.code() for a in actions]
        if not mutation:
            return codes
        kinds = {m.replaces: m.kind for m in self.mutant_declarations() if m.mutation == mutation}
        if not kinds:
            known = sorted({m.mutation for m in self.mutant_declarations()})
            raise ValueError(f"unknown mutation '{mutation}'; known: {', '.join(known)}")
        return [(kinds.get(a.declaration.name, code[0]),) + tuple(code[1:]) for a, code in zip(actions, codes)]

    def dispatch_source(self) -> str:
        """The text of the mode's dispatch module for the current declarations."""
        decls = self.declarations()
        by_name = {d.name: d for d in decls}
        mutants = self.mutant_declarations()
        modules = sorted({d.module.rsplit(".", 1)[-1] for d in decls + mutants})
        xyz = ("x", "y", "z")[:self.arity]
        head = ", ".join(("kind",) + xyz + self.state_args + ("p",))
        lines = [
            f'"""GENERATED by ``{self.command}`` from the ``@action`` declarations: do not edit.',
            "",
            "``apply`` fires one action of the kernel's action table, chosen by its kind code, on the work vector",
            "``w`` (a copy of the state's fields) and returns its flags. Kinds above 100 are seeded bugs",
            f"(:mod:`{self.mutants}`): a model built with one has its kind in the replaced action's row.",
            '"""',
            f"from . import {', '.join(modules)}",
            self.native_import,
            "",
            "",
            "@kernel(inline=True)",
            f"def apply({head}):",
            f'    """Fire the action ``(kind, {", ".join(xyz)})`` on ``w``; 0 for an unknown kind."""',
        ]
        for d in decls:
            lines += [f"    if kind == {d.kind}:  # {d.name}", f"        return {d.call()}"]
        for m in mutants:
            real = by_name[m.replaces]
            call = real.call().replace(f"{real.module.rsplit('.', 1)[-1]}.{real.function}(",
                                       f"{m.module.rsplit('.', 1)[-1]}.{m.function}(")
            lines += [f"    if kind == {m.kind}:  # seeded bug {m.mutation}: {m.replaces}", f"        return {call}"]
        lines += ["    return 0", ""]
        return "\n".join(lines)

    def write_dispatch(self) -> Path:
        self.dispatch_path.write_text(self.dispatch_source())
        return self.dispatch_path


# -- RocketMQ 4.4 ---------------------------------------------------------------------------------------
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

#: sections of the fixed action order, by actor
ACTORS = ("producer", "store", "ha", "metadata", "client", "failure")
#: who a drawing names: the cluster's fixed actors, or the actor an argument of the action names
DRAWN_ROLES = ("producer", "master", "nameserver", "broker", "slave", "consumer")

#: the RocketMQ 4.4 mode's declarations
ROCKETMQ_44 = ActionRegistry(
    actors=ACTORS, roles=DRAWN_ROLES,
    modules=tuple(f"model.{m}" for m in ("client", "failures", "ha", "metadata", "producer", "store")),
    mutants="model.mutants", dispatch_path=Path(__file__).with_name("dispatch.py"),
    command="python -m model.declare", native_import="from explore.native import kernel")

action, mutant = ROCKETMQ_44.action, ROCKETMQ_44.mutant
declarations, mutant_declarations = ROCKETMQ_44.declarations, ROCKETMQ_44.mutant_declarations


if __name__ == "__main__":
    from model import declare    # the module the kernel modules register with, not this __main__ copy
    print(declare.ROCKETMQ_44.write_dispatch())
