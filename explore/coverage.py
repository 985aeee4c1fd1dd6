"""Coverage and dead ends of an exploration, as TLC users expect, and the transitions a bound left out.

The engines tally, per expanded state, in the shared step (:func:`explore.step.generate`): its transitions
per action index, its pruned successor rows per reason code (a step the real system could take that a
bound of the model leaves out, :data:`explore.flags.PRUNED`), and whether it has no enabled action (a
terminal state). The new states an action produced are those whose canonical parent link (smallest
``(parent key, action)``, identical on every engine) names it. This module turns those counts into the
result's statistics: per action *kind* (``Pull``, ``MasterCrash``: the trace label up to its first
``(``, so a toy model's ``Inc()`` is kind ``Inc``), every kind of the configuration listed, zeros included.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from invariants.base import EVENTUALLY
from .flags import reason_text

from .result import HOLDS, UNREACHED, PropertyResult, Stats
from .step import T_ACTIONS, T_PRUNED, T_TERMINAL, tally_size

#: verdicts a pruned transition could have changed: nothing was found, but something was left out
CLAIMS_ABSENCE = (HOLDS, UNREACHED)


def action_kind(action: Any) -> str:
    """``Pull(consumer=1, queue=0)`` -> ``Pull``: the trace label up to its first parenthesis."""
    label = str(action)
    return label.partition("(")[0].strip() or label


def new_tally(actions: int) -> np.ndarray:
    return np.zeros(tally_size(actions), dtype=np.int64)


def per_kind(actions: Sequence[Any], transitions: np.ndarray, new_states: np.ndarray) -> dict[str, dict[str, int]]:
    """``{kind: {"transitions", "new_states"}}`` over every action of the table, kinds in kernel order."""
    out: dict[str, dict[str, int]] = {}
    for a, action in enumerate(actions):
        row = out.setdefault(action_kind(action), {"transitions": 0, "new_states": 0})
        row["transitions"] += int(transitions[a])
        row["new_states"] += int(new_states[a]) if a < len(new_states) else 0
    return out


def pruned_by_reason(tally: np.ndarray, reasons: dict[int, str]) -> dict[str, int]:
    """``{reason text: count}`` of the pruned rows, reasons named by the model's table ``reasons``."""
    counts = tally[T_PRUNED:T_ACTIONS]
    return {reason_text(int(code), reasons): int(counts[code]) for code in np.flatnonzero(counts)}


#: states counted per ``bincount``: its int64 copy stays small when the run ended short of memory
COUNT_CHUNK = 1 << 16


def new_states_per_action(via: np.ndarray, actions: int) -> np.ndarray:
    """How many states each action index reached first under the canonical parent rule: ``via`` holds
    the action of each non-initial state's canonical parent link."""
    counts = np.zeros(actions, dtype=np.int64)
    for lo in range(0, len(via), COUNT_CHUNK):
        counts += np.bincount(via[lo:lo + COUNT_CHUNK], minlength=actions)[:actions]
    return counts


def fill_stats(stats: Stats, actions: Sequence[Any], tally: np.ndarray, new_states: np.ndarray,
               reasons: dict[int, str] | None = None) -> None:
    """Set the coverage, terminal and pruned statistics from a whole run's tally (``reasons``: the model's
    names of its prune reason codes)."""
    nact = len(actions)
    stats.coverage = per_kind(actions, tally[T_ACTIONS:T_ACTIONS + nact], new_states)
    stats.terminal_states = int(tally[T_TERMINAL])
    stats.pruned_reasons = pruned_by_reason(tally, reasons or {})
    stats.pruned_transitions = sum(stats.pruned_reasons.values())


def never_enabled(stats: Stats) -> list[str]:
    """Action kinds of the configuration that never fired: that part of the model is vacuous here."""
    return [kind for kind, row in stats.coverage.items() if row["transitions"] == 0]


def pruned_text(stats: Stats) -> str:
    """``12 transitions left out by a bound of the model (third_pending_offset_correction: 12)``."""
    n = stats.pruned_transitions
    reasons = ", ".join(f"{reason}: {count:,}" for reason, count in stats.pruned_reasons.items())
    return f"{n:,} transition{'s' if n != 1 else ''} left out by a bound of the model ({reasons})"


def pruned_note(stats: Stats) -> str:
    return f"within the model's bounds: {pruned_text(stats)}"


def note_pruned(properties: list[PropertyResult], stats: Stats) -> None:
    """A property that holds (or was never reached) in a run that left transitions out says so: the verdict
    covers only the behaviour the model represents. So does a violated eventually property: its lasso may
    stay for ever in a state a left-out step would have gone on from."""
    if not stats.pruned_transitions:
        return
    note = pruned_note(stats)
    for p in properties:
        if (p.status in CLAIMS_ABSENCE or p.kind == EVENTUALLY) and note not in p.note:
            p.note = f"{p.note}; {note}" if p.note else note
