"""The engine's part of the ``int64`` flags a model's kernel returns for one fired action.

Bit 0 says the action is enabled; bit 1 flags a model error. A model is free to use bits 2..39 for its own
events and outcome notes (the 4.4 mode's are :mod:`model.events`). Bits 40 and up belong to the engine:
``DISCARD`` (not a transition after all) and ``PRUNED`` with its reason code.
"""
from __future__ import annotations

ENABLED = 1
ERROR = 2
DISCARD = 1 << 40   # not a transition after all (the action may have written scratch fields first)
# a step the real system could take that a bound of the model leaves out: DISCARD | PRUNED | reason
# << PRUNE_REASON_SHIFT. The successor row keeps PRUNED and the reason (not ENABLED), so the engines count
# it (``stats.pruned_transitions``) without exploring it; the model names its reasons (``prune_reasons``).
PRUNED = 1 << 41
PRUNE_REASON_SHIFT = 42
PRUNE_REASON_MASK = 0xFF << PRUNE_REASON_SHIFT


def reason_text(code: int, reasons: dict[int, str]) -> str:
    """The ``stats.pruned_reasons`` key of reason ``code``: the model's name for it, or ``reason N``."""
    return reasons.get(code, f"reason {code}")
