"""What ``rmqcheck faults`` needs of one model mode, beside its model and properties: its failure kinds
(the counters the budget lattice is made of), the counts an answer rests on, the settings a closing
change may set, the decision table's two settings, its availability witnesses and the words its failure
modes are told in. Each mode declares its profile in its own package (``model/fault_profile.py``,
``model/controller/fault_profile.py``) and ``model/modes.py`` names it; the search
(:mod:`explore.fault_search`) and the reports read a mode only through it.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .faults import Vector

Change = dict[str, Any]
#: the knob of a change that upgrades to a release (model/versions.py)
UPGRADE = "rocketmq_version"


@dataclass(frozen=True)
class Structural:
    """A count a single change moves one up or one down (4.4: ``slaves``); fewer is a cost."""

    knob: str
    low: int
    high: int
    removes_all: str      # the cost when it goes to 0
    removes_one: str      # the cost when it goes one down


@dataclass(frozen=True)
class FaultProfile:
    """One mode's answers to what ``faults`` asks of it (see the module docstring)."""

    vector: type[Vector]                  # its failure kinds, as the class of its vectors
    counter_slot: Callable[[Any, str], "tuple[int, int, int] | None"]   # (model, counter) -> (word, shift, width)
    bound_knobs: tuple[str, ...]          # the counts every answer is computed under, besides the budgets
    grow_knobs: tuple[str, ...]           # the counts ``--grow`` may raise
    settings: tuple[str, ...]             # the knobs a closing change sets: a bool flipped, else each other choice
    choices: Mapping[str, tuple[Any, ...]]
    table: tuple[str, str]                # the decision table's settings: a row per pair of their choices
    table_title: str                      # "per durability setting"
    witnesses_path: str                   # "module:NAME": the properties the availability witnesses are among
    availability_path: str                # "module:NAME": witness name -> what a config never reaching it lost
    #: "module:NAME" of its action registry (``declarations()``, each with its ``phrase``) and of its check
    #: registry (each always property with the fields it ``reads``): the words its failure modes are told in
    actions_path: str = ""
    checks_path: str = ""
    structural: Structural | None = None
    counter_prefix: str = "failures."     # the readable counters' prefix, left out of a meaning
    view_counters: Mapping[str, str] = field(default_factory=dict)   # combination key -> readable field
    #: the settings that are no operator's setting but a change of RocketMQ's code that no release has (4.4's
    #: alternative behaviours V1-V3 and V5): a change setting one is labelled ``"code_change": true``
    code_changes: tuple[str, ...] = ()
    #: the class of one configuration's vectors where a mode's kinds depend on the mechanisms it enables (the
    #: controller mode: consumer restarts with consumer offsets on); None: ``vector`` for every configuration.
    #: Each class it returns is a module-level one (vectors travel to worker processes by pickle)
    vector_of: Callable[[Any], type[Vector]] | None = None

    def vector_for(self, cfg: Any) -> type[Vector]:
        """The failure kinds of ``cfg``, as the class of its vectors (:attr:`vector_of`, else :attr:`vector`)."""
        return self.vector_of(cfg) if self.vector_of is not None else self.vector

    @property
    def phrases(self) -> Mapping[str, str]:
        """What each action kind does, for a failure mode's one-line meaning: its declaration's ``phrase``."""
        return _declared(self.actions_path, "phrase")

    @property
    def reads(self) -> Mapping[str, str]:
        """The readable fields each always property decides on: its declaration's ``reads``."""
        return _declared(self.checks_path, "reads")

    def labelled(self, change: Change) -> Change:
        """``change`` as a report shows it: an upgrade (``{"rocketmq_version": X}``) as ``{"upgrade": X}``,
        a change of RocketMQ's code with ``"code_change": true``, a setting as it is."""
        if UPGRADE in change:
            return {"upgrade": change[UPGRADE]}
        return {**change, "code_change": True} if any(k in self.code_changes for k in change) else change

    def upgrades(self, cfg: Any) -> list[Change]:
        """Every later release of ``cfg``'s line that behaves differently in the model (the first release
        of each distinct set of switch values), as the change ``{"rocketmq_version": X}``: a closing change
        that is an upgrade, found by exploration like every other."""
        from model.modes import mode_of
        from model.versions import release_of, version_key
        line = mode_of(cfg).release_line()
        now = release_of(cfg)
        values = {s.knob: getattr(cfg, s.knob) for s in line.modelled()}
        later = [v for v in line.accepted() if version_key(v) > version_key(now) and line.same_as(v) == v]
        return [{UPGRADE: v} for v in later if line.knob_values(v) != values and changed(cfg, {UPGRADE: v})]

    def setting_changes(self, cfg: Any) -> list[Change]:
        """The single changes sets are built from, in ``settings`` order; a change that makes no valid
        configuration (``min_in_sync_replicas=3`` with two brokers) is none."""
        out: list[Change] = []
        for knob in self.settings:
            value = getattr(cfg, knob)
            if isinstance(value, bool):
                out.append({knob: not value})
            else:
                out += [{knob: c} for c in self.choices[knob] if c != value]
        return [c for c in out if changed(cfg, c) is not None]

    def single_changes(self, cfg: Any) -> list[Change]:
        """Every single change a mode can be closed by: the settings, then the structural count one down
        and one up."""
        out = self.setting_changes(cfg)
        s = self.structural
        if s is not None:
            n = getattr(cfg, s.knob)
            out += [{s.knob: m} for m in (n - 1, n + 1) if s.low <= m <= s.high]
        return out + self.upgrades(cfg)

    def structural_cost(self, base: Any, change: Change) -> list[str]:
        """What a change gives up by lowering the structural count (a mode closed by removing the
        replica is closed vacuously)."""
        s = self.structural
        if s is None or s.knob not in change or change[s.knob] >= getattr(base, s.knob):
            return []
        return [s.removes_all if change[s.knob] == 0 else s.removes_one]

    def table_settings(self, cfg: Any) -> list[Change]:
        """The decision table's rows: every pair of the two settings' choices valid with ``cfg``."""
        a, b = self.table
        rows = [{a: x, b: y} for x in self.choices[a] for y in self.choices[b]]
        return [r for r in rows if changed(cfg, r) is not None]

    def availability(self) -> Mapping[str, str]:
        return _load(self.availability_path)

    def witnesses(self) -> list[Any]:
        """The availability witnesses a closing change must keep, as properties: a ``sometimes`` one must
        stay reached, an ``eventually`` one (4.4: ``acked_message_eventually_consumed``) must not become
        violated (the exploration decides it; it is kept where it holds)."""
        from invariants.base import EVENTUALLY, SOMETIMES
        names = self.availability()
        return [p for p in _load(self.witnesses_path) if p.name in names and p.kind in (SOMETIMES, EVENTUALLY)]


def changed(cfg: Any, change: Change) -> Any:
    """``cfg`` with ``change`` applied, or None when the change makes no valid configuration."""
    from model.knobs import ConfigError
    try:
        return type(cfg).from_mapping(change, base=cfg)
    except ConfigError:
        return None


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@functools.cache
def _declared(registry_path: str, attribute: str) -> dict[str, str]:
    """``{name: attribute}`` of the declarations of the registry at ``registry_path`` that have one."""
    return {d.name: getattr(d, attribute) for d in _load(registry_path).declarations() if getattr(d, attribute, "")}
