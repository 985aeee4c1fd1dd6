"""The bounds an answer rests on, in words: the counts (messages, consumers, queues, slaves or brokers) and
the failure budgets of a configuration (``check`` and ``faults`` state them beside every verdict)."""
from __future__ import annotations

import re
from typing import Any

#: singular and plural of each failure kind, for the console
KIND_WORDS = {"master_crashes": ("master crash", "master crashes"),
              "master_power_losses": ("master power loss", "master power losses"),
              "slave_crashes": ("slave crash", "slave crashes"),
              "slave_power_losses": ("slave power loss", "slave power losses"),
              "consumer_restarts": ("consumer restart", "consumer restarts"),
              "ha_disconnects": ("HA disconnect", "HA disconnects"),
              # the controller mode's (explore/fault_profiles.py)
              "broker_crashes": ("broker crash", "broker crashes"),
              "broker_power_losses": ("broker power loss", "broker power losses"),
              "controller_outages": ("controller outage", "controller outages"),
              "link_losses": ("controller link loss", "controller link losses"),
              # the controller mode's with name servers (its consumer_restarts are 4.4's words)
              "namesrv_restarts": ("name server restart", "name server restarts"),
              "namesrv_cutoffs": ("broker channel expired on a name server",
                                  "broker channels expired on a name server")}


def kind_words(key: str) -> tuple[str, str]:
    """The singular and plural of failure kind ``key``: :data:`KIND_WORDS`' words, else the key's own words
    (a mode's kind named nowhere here: ``crashes`` is ``crash``, ``crashes``)."""
    if key in KIND_WORDS:
        return KIND_WORDS[key]
    plural = key.replace("_", " ")
    return re.sub(r"(ss|sh|ch|x)es$|s$", lambda m: m.group(1) or "", plural), plural


def bounds_text(b: dict[str, Any]) -> str:
    """``2 messages, 1 consumer, 1 queue, 1 slave; at most 1 master crash + 1 master power loss``."""
    if not b:
        return ""
    counts = ", ".join(f"{n} {k[:-1] if n == 1 else k}" for k, n in b.items() if k != "budgets")
    failures = " + ".join(f"{c} {kind_words(k)[c != 1]}" for k, c in b["budgets"].items() if c)
    return f"{counts}; " + (f"at most {failures}" if failures else "no failure")


def grown_text(nb: dict[str, Any]) -> str:
    """``with 2 messages`` (the count that grew, at its new value)."""
    grow = nb["grow"]
    if "bounds" not in nb:
        return f"one more of {grow}"
    n = nb["bounds"][grow]
    return f"with {n} {grow[:-1] if n == 1 else grow}"


def check_next_bound_text(next_bound: dict[str, Any]) -> str:
    """``with 2 messages: 29,627 states; moves: replicas_agree holds -> violated`` (or why it is not settled)."""
    head = grown_text(next_bound)
    if "distinct_states" not in next_bound:
        return f"{head}: not explored ({next_bound['skipped']})"
    head += f" ({bounds_text(next_bound['bounds'])}): {next_bound['distinct_states']:,} states"
    if next_bound.get("skipped"):
        return f"{head}; not settled: {next_bound['skipped']}"
    moved = next_bound.get("moved", {})
    if not moved:
        return f"{head}; no verdict moves"
    return f"{head}; verdicts that move: " + ", ".join(f"{n} {a} -> {b}" for n, (a, b) in moved.items())
