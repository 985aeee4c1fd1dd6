"""One line per failure mode, in RocketMQ terms, read off the mode's own trace.

The line names the breaking step's action and what that step does in RocketMQ (4.4, or the mode's own
words: :mod:`explore.fault_profiles`), then the fields the
property reads that the step changed, with their values before and after, as the trace shows them. So a
meaning can be checked against its trace (tests do): nothing in it is written from expectation.
"""
from __future__ import annotations

import re
from typing import Any

from explore.result import Trace
from invariants.declare import declarations as property_declarations
from model.declare import declarations

from .trace import fmt_value

#: what each action kind stands for, as its declaration says it (``@action(..., phrase=...)``)
ACTION_PHRASES: dict[str, str] = {d.name: d.phrase for d in declarations()}

#: the readable fields each always property decides on, as its declaration says (``@check(..., reads=...)``)
DECIDING_FIELDS: dict[str, str] = {d.name: d.reads for d in property_declarations() if d.reads}

MAX_FIELDS = 3


def action_kind(label: str) -> str:
    """``Pull(consumer=1, queue=0)`` -> ``Pull``."""
    return label.split("(", 1)[0]


def deciding_changes(prop: str, trace: Trace, profile: Any = None) -> list[tuple[str, Any, Any]]:
    """The last step's changes to fields ``prop`` reads (else its first changes but the failure
    counters), in the trace's order; ``profile``: a model mode's words (None: 4.4's declarations)."""
    changes = trace.steps[-1].changes
    reads = profile.reads if profile is not None and profile.reads else DECIDING_FIELDS
    counters = profile.counter_prefix if profile is not None else "failures."
    pattern = re.compile(reads.get(prop, r"$^"))
    picked = [(f, b, a) for f, (b, a) in changes.items() if pattern.search(f)]
    if not picked:
        picked = [(f, b, a) for f, (b, a) in changes.items() if not f.startswith(counters)]
    return picked[:MAX_FIELDS]


def change_text(field: str, before: Any, after: Any) -> str:
    return f"{field} {fmt_value(before)} -> {fmt_value(after)}"


def meaning(prop: str, trace: Trace, profile: Any = None) -> str:
    """``Kind: what it does in RocketMQ; field before -> after, ...`` for the trace's last step, in the words
    of ``profile`` (a model mode's :class:`~explore.fault_profiles.FaultProfile`; None or no phrases of
    its own: the 4.4 actions' declarations)."""
    step = trace.steps[-1]
    kind = action_kind(step.action)
    phrases = profile.phrases if profile is not None and profile.phrases else ACTION_PHRASES
    text = f"{kind}: {phrases.get(kind, kind)}"
    if step.outcome:
        text += f" ({step.outcome})"
    fields = [change_text(*c) for c in deciding_changes(prop, trace, profile)]
    if fields:
        text += "; " + ", ".join(fields)
    return text
