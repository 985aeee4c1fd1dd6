"""``check --next-bound``: the configuration once more with one more message, and which verdicts move.

A verdict holds or is violated within the bounds it was explored under (``bounds`` in every result). What
the user most often needs to know next is whether it survives the next bound: ``faults`` answers it for its
failure modes (``--grow``); ``check --next-bound`` answers it for the verdicts, by exploring the same
configuration, properties and limits with the mode's first growable count (messages) one higher. A verdict
that differs there is said to move; the exit code stays the one of the bound asked for.
"""
from __future__ import annotations

from typing import Any

from .engines import run_check
from .setup import CheckJob


def explore_next_bound(job: CheckJob, quiet: bool) -> dict[str, Any]:
    """What ``faults --grow`` records of the next bound (``grow``, ``bounds``, the exploration's size and time,
    ``skipped`` where it could not be settled) and, per property, its verdict there (``verdicts``) and the
    verdicts that move (``moved``: ``{name: [here, there]}``, filled in by :func:`compare`)."""
    from explore.fault_profiles import changed
    from explore.faults import bounds
    from explore.result import ERROR, INCOMPLETE
    from model.modes import mode_of

    grow = mode_of(job.config).faults().grow_knobs[0]
    count = int(getattr(job.config, grow)) + 1
    grown = changed(job.config, {grow: count})
    out: dict[str, Any] = {"grow": grow}
    if grown is None:
        out["skipped"] = f"{grow}={count} is beyond the model's range"
        return out
    result, _ = run_check(CheckJob(grown, job.properties, job.limits, job.threads), "local", quiet,
                          label=f"next bound: {grow}={count}")
    s = result.stats
    out.update(bounds=bounds(grown), distinct_states=s.distinct_states, transitions=s.transitions, depth=s.depth,
               seconds=round(s.seconds, 6), verdicts=result.verdicts())
    if result.outcome in (INCOMPLETE, ERROR):
        out["skipped"] = result.error.message if result.error is not None else result.incomplete_reason
    return out


def compare(next_bound: dict[str, Any], here: dict[str, str]) -> dict[str, Any]:
    """``next_bound`` with ``moved``: the properties whose verdict there differs from ``here`` (an unknown
    verdict at either bound moves nothing: it settles nothing)."""
    there = next_bound.get("verdicts", {})
    next_bound["moved"] = {name: [was, there[name]] for name, was in here.items()
                           if name in there and "unknown" not in (was, there[name]) and there[name] != was}
    return next_bound
