"""One line per failure mode, in RocketMQ terms, read off the mode's own trace.

The line names the breaking step's action and what that step does in RocketMQ 4.4, then the fields the
property reads that the step changed, with their values before and after, as the trace shows them. So a
meaning can be checked against its trace (tests do): nothing in it is written from expectation.
"""
from __future__ import annotations

import re
from typing import Any

from explore.result import Trace

from .console import fmt_value

#: what each action kind stands for (model/actions.py has the code paths)
ACTION_PHRASES: dict[str, str] = {
    "SendMessage": "the producer's send is appended to the master's commitlog",
    "SyncMasterAck": "the slave's ack releases a SYNC_MASTER send",
    "SyncMasterTimeout": "a SYNC_MASTER send times out waiting for the slave",
    "FlushCommitLog": "a broker flushes its commitlog to disk",
    "SlaveConnect": "the slave opens its HA connection to the master",
    "SlaveReportOffset": "the slave reports its commitlog max offset to the master",
    "MasterPushData": "the master pushes commitlog data to the slave",
    "HaDisconnect": "the HA connection drops",
    "SlaveRegister": "the slave registers with the name server and learns the master's address",
    "SlaveSyncAll": "the slave's syncAll copies the master's consumer offsets over its own",
    "PersistConsumerOffset": "a broker writes consumerOffset.json",
    "NameServerExpireMaster": "the name server drops the master from the route",
    "NameServerExpireSlave": "the name server drops a powered-off slave from the route",
    "RefreshRoute": "a consumer refreshes its route from the name server",
    "Rebalance": "a consumer rebalances its queues",
    "Pull": "a consumer pulls",
    "Consume": "the consumer consumes a pulled message",
    "ConsumeDropped": "the consumer consumes a message of a dropped ProcessQueue",
    "PersistAllOffsets": "the consumer commits its offsets (persistAll) to the broker its route names",
    "CorrectIllegalOffset": "the delayed OFFSET_ILLEGAL fix commits the broker's offset",
    "MasterCrash": "the master process is killed (kill -9; the page cache survives)",
    "MasterPowerLoss": "the master loses power (only its flushed commitlog survives)",
    "MasterRestart": "the master restarts, recovers its commitlog and loads consumerOffset.json",
    "SlaveCrash": "a slave process is killed (kill -9)",
    "SlavePowerLoss": "a slave loses power (only its flushed commitlog survives)",
    "SlaveRestart": "a slave restarts and recovers its commitlog",
    "ConsumerCrash": "a consumer process is killed",
    "ConsumerRestart": "a consumer restarts and reads its committed offset",
}

#: the state fields each always property reads (view names; model-scope.md "Properties")
DECIDING_FIELDS: dict[str, str] = {
    "acked_message_never_lost": r"\.commitlog$|^producer\.sendOk$",
    "consumed_message_never_lost": r"\.commitlog$|^history\.delivered$",
    "replicas_agree": r"\.commitlog$",
    "committed_offset_never_regresses": r"consumerOffset\[|^history\.highestCommitted|"
                                        r"^nameserver\.|\.up$|\.route$",
    "no_message_skipped": r"consumerOffset\[|^history\.delivered$|^history\.highestCommitted|\.commitlog$",
}

MAX_FIELDS = 3


def action_kind(label: str) -> str:
    """``Pull(consumer=1, queue=0)`` -> ``Pull``."""
    return label.split("(", 1)[0]


def deciding_changes(prop: str, trace: Trace) -> list[tuple[str, Any, Any]]:
    """The last step's changes to fields ``prop`` reads (else its first changes), in the trace's order."""
    changes = trace.steps[-1].changes
    pattern = re.compile(DECIDING_FIELDS.get(prop, r"$^"))
    picked = [(f, b, a) for f, (b, a) in changes.items() if pattern.search(f)]
    if not picked:
        picked = [(f, b, a) for f, (b, a) in changes.items() if not f.startswith("failures.")]
    return picked[:MAX_FIELDS]


def change_text(field: str, before: Any, after: Any) -> str:
    return f"{field} {fmt_value(before)} -> {fmt_value(after)}"


def meaning(prop: str, trace: Trace) -> str:
    """``Kind: what it does in RocketMQ; field before -> after, ...`` for the trace's last step."""
    step = trace.steps[-1]
    kind = action_kind(step.action)
    text = f"{kind}: {ACTION_PHRASES.get(kind, kind)}"
    if step.outcome:
        text += f" ({step.outcome})"
    fields = [change_text(*c) for c in deciding_changes(prop, trace)]
    if fields:
        text += "; " + ", ".join(fields)
    return text
