"""What ``rmqcheck faults`` needs of one model mode, beside its model and properties: its failure kinds
(the counters the budget lattice is made of), the counts an answer rests on, the settings a closing
change may set, the decision table's two settings, its availability witnesses and the words its failure
modes are told in. ``model/modes.py`` names each mode's profile; the search
(:mod:`explore.fault_search`) and the reports read a mode only through it.
"""
from __future__ import annotations

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
    structural: Structural | None = None
    phrases: Mapping[str, str] = field(default_factory=dict)   # action kind -> what it does (empty: 4.4's)
    reads: Mapping[str, str] = field(default_factory=dict)     # property -> fields it decides on (empty: 4.4's)
    counter_prefix: str = "failures."     # the readable counters' prefix, left out of a meaning
    view_counters: Mapping[str, str] = field(default_factory=dict)   # combination key -> readable field
    #: the settings that are no operator's setting but a change of RocketMQ's code that no release has (4.4's
    #: alternative behaviours V1-V3 and V5): a change setting one is labelled ``"code_change": true``
    code_changes: tuple[str, ...] = ()

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
    from model import ConfigError
    try:
        return type(cfg).from_mapping(change, base=cfg)
    except ConfigError:
        return None


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


# -- RocketMQ 4.4 ---------------------------------------------------------------------------------------
def _layout_slot(model: Any, name: str) -> "tuple[int, int, int] | None":
    """A 4.4 counter's place in the configuration's layout (None: a budget of 0 gives it no bits)."""
    for s in model.layout.slots:
        if s.name == name:
            return s.word, s.shift, s.width
    return None


#: the alternative behaviour switches (mechanisms page §10); V6 is the knob offset_check_in_slave
SWITCHES = ("monotonic_commit", "sync_offsets_max", "reverse_offset_sync", "overflow_to_max",
            "validate_slave_ack", "offset_check_in_slave")

ROCKETMQ_44 = FaultProfile(
    vector=Vector, counter_slot=_layout_slot,
    bound_knobs=("messages", "consumers", "queues", "slaves"), grow_knobs=("messages", "consumers", "slaves"),
    settings=("broker_role", "flush_disk_type", *SWITCHES),
    choices={"broker_role": ("ASYNC_MASTER", "SYNC_MASTER"), "flush_disk_type": ("ASYNC_FLUSH", "SYNC_FLUSH")},
    table=("broker_role", "flush_disk_type"), table_title="per durability setting",
    witnesses_path="invariants.rocketmq:AVAILABILITY_WITNESSES", availability_path="invariants.witnesses:AVAILABILITY",
    structural=Structural("slaves", 0, 3, "removes the slave", "removes a slave"),
    # V4 (overflow_to_max) is release 4.9.4's rule (model/versions_44.py), V6 the broker setting offsetCheckInSlave
    code_changes=("monotonic_commit", "sync_offsets_max", "reverse_offset_sync", "validate_slave_ack"),
    view_counters={"master_crashes": "failures.masterCrashes", "master_power_losses": "failures.masterPowerLosses",
                   "slave_crashes": "failures.slaveCrashes", "slave_power_losses": "failures.slavePowerLosses",
                   "consumer_restarts": "failures.consumerRestarts", "ha_disconnects": "failures.haDisconnects"})


# -- RocketMQ 5.3.3 controller mode -----------------------------------------------------------------------
class ControllerVector(Vector):
    """A combination of the controller mode's failures (its budgets, docs/controller.md)."""

    __slots__ = ()
    KINDS = (
        ("broker_crashes", "max_broker_crashes", "budget.crashes"),
        ("broker_power_losses", "max_broker_power_losses", "budget.powerLosses"),
        ("controller_outages", "max_controller_outages", "budget.controllerOutages"),
        ("link_losses", "max_link_losses", "budget.linkLosses"),
        ("ha_disconnects", "max_ha_disconnects", "budget.haDisconnects"),
    )


def _field_slot(model: Any, name: str) -> tuple[int, int, int]:
    """A controller counter's place in the fixed field layout (model/controller/fields.py)."""
    from model.controller import fields as F
    i = F.NAMES.index(name)
    return int(F.WORD[i]), int(F.SHIFT[i]), int(F.WIDTH[i])


def _controller_phrases() -> dict[str, str]:
    """What each controller action kind does, for a failure mode's one-line meaning: its declaration's
    ``phrase`` (model/controller/actions.py)."""
    from model.controller.declare import CONTROLLER as ACTIONS
    return {d.name: d.phrase for d in ACTIONS.declarations()}


def _controller_reads() -> dict[str, str]:
    """The readable fields each controller always property decides on: its declaration's ``reads``."""
    from invariants.controller.declare import CONTROLLER as CHECKS
    return {d.name: d.reads for d in CHECKS.declarations() if d.reads}


CONTROLLER = FaultProfile(
    vector=ControllerVector, counter_slot=_field_slot,
    bound_knobs=("brokers", "messages"), grow_knobs=("messages", "brokers"),
    settings=("all_ack_in_sync_state_set", "min_in_sync_replicas", "in_sync_replicas",
              "enable_elect_unclean_master"),
    choices={"all_ack_in_sync_state_set": (False, True), "min_in_sync_replicas": (1, 2, 3),
             "in_sync_replicas": (1, 2, 3)},
    table=("all_ack_in_sync_state_set", "min_in_sync_replicas"),
    table_title="per allAckInSyncStateSet and minInSyncReplicas",
    witnesses_path="invariants.controller:AVAILABILITY_WITNESSES",
    availability_path="invariants.witnesses:AVAILABILITY",
    phrases=_controller_phrases(), counter_prefix="budget.",
    view_counters={key: counter for key, _, counter in ControllerVector.KINDS},   # the view names them alike
    reads=_controller_reads())
