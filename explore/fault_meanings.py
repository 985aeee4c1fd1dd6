"""One line per failure mode, in RocketMQ terms, read off the mode's own trace.

The line names the breaking step's action and what that step does in RocketMQ (in the mode's own words,
its declarations read through its :class:`~explore.fault_profiles.FaultProfile`), then the fields the
property reads that the step changed, with their values before and after, as the trace shows them. So a
meaning can be checked against its trace (tests do): nothing in it is written from expectation.
"""
from __future__ import annotations

import re
from typing import Any

from explore.result import Trace

from .trace import fmt_value

MAX_FIELDS = 3


def action_kind(label: str) -> str:
    """``Pull(consumer=1, queue=0)`` -> ``Pull``."""
    return label.split("(", 1)[0]


def deciding_changes(prop: str, trace: Trace, profile: Any) -> list[tuple[str, Any, Any]]:
    """The last step's changes to fields ``prop`` reads (else its first changes but the failure
    counters), in the trace's order; ``profile``: the model mode's (its declarations' ``reads``)."""
    changes = trace.steps[-1].changes
    pattern = re.compile(profile.reads.get(prop, r"$^"))
    counters = profile.counter_prefix
    picked = [(f, b, a) for f, (b, a) in changes.items() if pattern.search(f)]
    if not picked:
        picked = [(f, b, a) for f, (b, a) in changes.items() if not f.startswith(counters)]
    return picked[:MAX_FIELDS]


def change_text(field: str, before: Any, after: Any) -> str:
    return f"{field} {fmt_value(before)} -> {fmt_value(after)}"


def meaning(prop: str, trace: Trace, profile: Any) -> str:
    """``Kind: what it does in RocketMQ; field before -> after, ...`` for the trace's last step, in the words
    of ``profile`` (the model mode's :class:`~explore.fault_profiles.FaultProfile`: its actions' phrases)."""
    step = trace.steps[-1]
    kind = action_kind(step.action)
    text = f"{kind}: {profile.phrases.get(kind, kind)}"
    if step.outcome:
        text += f" ({step.outcome})"
    fields = [change_text(*c) for c in deciding_changes(prop, trace, profile)]
    if fields:
        text += "; " + ", ".join(fields)
    return text
