"""Which action instances an eventually property's runs must treat fairly (docs/liveness.md).

A run of the model is infinite and may stutter (stay in a state) for ever unless fairness forbids it,
as in TLA+. Under ``--fairness weak`` (the default) every action instance that is not a failure is weakly
fair: a run that from some point on keeps it continuously enabled takes it infinitely often. Under
``strong``, one enabled infinitely often is taken infinitely often. Under ``none`` no action is fair, so
any state may stutter for ever. An instance is the action with its arguments (``Pull(consumer=1,
queue=0)``): each is one index of the model's action table, so fairness is per index.

Failures are never fair: crashes, power losses, HA disconnects and retention deletions are bounded by
their budgets, so every infinite run has finitely many, and none is forced to happen. Restarts are fair
(a crashed broker or consumer comes back) unless ``--unfair`` names them: ``--unfair MasterRestart`` lets
the master stay down for ever. Each model mode declares its failures (:mod:`model.modes`); their kind
names do not overlap.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from invariants.base import NO_FAIRNESS, Fairness
from model.modes import MODES

__all__ = ["failures", "action_kind", "fair_actions", "unknown_kinds"]


def failures() -> frozenset[str]:
    """The action kinds that are failures, in every model mode registered now (a mode registered after this
    module was imported included): never fair, whatever ``--fairness`` says."""
    return frozenset(kind for mode in MODES.values() for kind in mode.failures)


def action_kind(action: Any) -> str:
    """The kind of an action value: its label up to the arguments (``Pull`` for ``Pull(consumer=1,
    queue=0)``), in every model mode."""
    return str(action).partition("(")[0]


def unknown_kinds(unfair: Iterable[str], known: Iterable[str]) -> list[str]:
    """The names of ``unfair`` that are no action kind of ``known``."""
    known = set(known)
    return [k for k in unfair if k not in known]


def fair_actions(actions: Iterable[Any], fairness: Fairness) -> np.ndarray:
    """Per action index, 1 when the action instance is fair under ``fairness``, else 0."""
    actions = list(actions)
    fair = np.zeros(max(len(actions), 1), dtype=np.uint8)
    if fairness.mode == NO_FAIRNESS:
        return fair
    never = failures()
    for a, action in enumerate(actions):
        kind = action_kind(action)
        fair[a] = kind not in never and kind not in fairness.unfair
    return fair
