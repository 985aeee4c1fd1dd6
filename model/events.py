"""What the 4.4 kernel reports about one fired action, packed in one ``int64`` of flags.

Bit 0 says the action is enabled; bit 1 flags a model error; bits 40 and up are the engine's (discarded
and pruned rows): :mod:`explore.flags`. Bits 2..15 are *events* that the ``sometimes`` properties observe
(a slave served a pull, an offset commit reached a slave...). Bits 16..31 carry an *outcome note* for the
trace reader only (the send status, the pull status and broker...): the engines ignore it.
"""
from __future__ import annotations

from explore.flags import DISCARD, ENABLED, ERROR, PRUNE_REASON_MASK, PRUNE_REASON_SHIFT, PRUNED, reason_text

__all__ = ["DISCARD", "ENABLED", "ERROR", "PRUNE_REASON_MASK", "PRUNE_REASON_SHIFT", "PRUNED"]
EV_SLAVE_SERVED_PULL = 4
EV_OFFSET_COMMITTED_TO_SLAVE = 8
EV_MASTER_RECOVERED = 16
EV_SLAVE_SYNC_LOWERED_OFFSET = 32
EV_ACKED_WITH_SLAVE_AWAY = 64   # SEND_OK at once while the master holds no HA connection

NOTE_SHIFT = 16
NOTE_BROKER_SHIFT = 8   # inside the note: outcome | broker << 8

# outcome notes
OUT_NONE = 0
OUT_SEND_OK = 1
OUT_FLUSH_DISK_TIMEOUT = 2
OUT_FLUSH_SLAVE_TIMEOUT = 3
OUT_SLAVE_NOT_AVAILABLE = 4
OUT_SEND_FAILED = 5
OUT_WAIT_FOR_SLAVE = 6
OUT_FOUND = 7
OUT_NO_NEW_MSG = 8
OUT_NO_MATCHED_MSG = 9
OUT_OFFSET_ILLEGAL = 10
OUT_PULL_FAILED = 11
OUT_MISMATCH_CLOSE = 12
OUT_REPORT_REJECTED = 13
OUT_ONEWAY_LOST = 14
OUT_DELIVERED = 15
OUT_COMMITTED = 16

# model error codes (carried in the note when ERROR is set)
ERR_FIELD_RANGE = 1      # a field value does not fit its bit width
ERR_LOG_ORDER = 2        # an append would break the increasing order of a commitlog
ERR_WRITE_WHEN_DISABLED = 3   # an action changed the state but reported itself not enabled

OUTCOME_TEXT = {
    OUT_SEND_OK: "SEND_OK",
    OUT_FLUSH_DISK_TIMEOUT: "FLUSH_DISK_TIMEOUT",
    OUT_FLUSH_SLAVE_TIMEOUT: "FLUSH_SLAVE_TIMEOUT",
    OUT_SLAVE_NOT_AVAILABLE: "SLAVE_NOT_AVAILABLE",
    OUT_SEND_FAILED: "send failed: master down",
    OUT_WAIT_FOR_SLAVE: "stored; producer waits for a slave",
    OUT_FOUND: "FOUND",
    OUT_NO_NEW_MSG: "NO_NEW_MSG",
    OUT_NO_MATCHED_MSG: "NO_MATCHED_MSG",
    OUT_OFFSET_ILLEGAL: "OFFSET_ILLEGAL",
    OUT_PULL_FAILED: "no pull: broker not reachable",
    OUT_MISMATCH_CLOSE: "offset mismatch: slave closes the connection",
    OUT_REPORT_REJECTED: "report beyond master max: connection closed (V5)",
    OUT_ONEWAY_LOST: "oneway to a dead broker lost",
    OUT_DELIVERED: "delivered to the application",
    OUT_COMMITTED: "committed",
}

ERROR_TEXT = {
    ERR_FIELD_RANGE: "a state field overflowed its bit width",
    ERR_LOG_ORDER: "an append would break the increasing order of a commitlog",
    ERR_WRITE_WHEN_DISABLED: "an action changed the state but reported itself not enabled",
}


# why a transition was pruned (``stats.pruned_reasons`` keys)
PRUNE_THIRD_CORRECTION = 1   # a third pending OFFSET_ILLEGAL correction task for one queue

PRUNE_REASON_TEXT = {
    PRUNE_THIRD_CORRECTION: "third_pending_offset_correction",
}


def prune_reason(flags: int) -> str:
    """The ``stats.pruned_reasons`` key of a pruned successor row's flags, or "" for a row not pruned."""
    if not flags & PRUNED:
        return ""
    return reason_text((flags & PRUNE_REASON_MASK) >> PRUNE_REASON_SHIFT, PRUNE_REASON_TEXT)


def note(outcome: int, broker: int = 0) -> int:
    return (outcome | (broker << NOTE_BROKER_SHIFT)) << NOTE_SHIFT


def describe(flags: int) -> str:
    """Readable outcome of a fired action, e.g. ``FOUND from broker 1``; empty when there is none."""
    value = (flags >> NOTE_SHIFT) & 0xFFFF
    outcome = value & 0xFF
    broker = value >> NOTE_BROKER_SHIFT
    if flags & ERROR:
        return "model error: " + ERROR_TEXT.get(outcome, f"code {outcome}")
    text = OUTCOME_TEXT.get(outcome, "")
    if text and outcome in (OUT_FOUND, OUT_NO_NEW_MSG, OUT_NO_MATCHED_MSG, OUT_OFFSET_ILLEGAL):
        text += f" from broker {broker}"
    elif text and outcome in (OUT_COMMITTED, OUT_ONEWAY_LOST):
        text += f" (broker {broker})"
    return text
