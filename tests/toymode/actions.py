"""The toy's three actions, each a compiled function declared with ``@action``: it changes the work
vector ``w`` in place and returns 1 when enabled, 0 when not."""
from __future__ import annotations

from model.declare import Arrow, Note
from explore.native import kernel

from .declare import action
from .state import ACKED, BACKUP, CRASHES, P_KEEP, P_MAX_CRASHES, P_MESSAGES, P_SYNC_ACK, PRIMARY


@action("Write", kind=0, actor="client", place=(0,), rocketmq="ToyLog#append", phrase="the client writes a message",
        drawn=Arrow("client", "primary", "write"))
@kernel
def write(w, p):
    """``ToyLog#append``: the primary appends the next message; without ``sync_ack`` the client is told ok."""
    if w[PRIMARY] >= p[P_MESSAGES]:
        return 0
    w[PRIMARY] += 1
    if p[P_SYNC_ACK] == 0:
        w[ACKED] = w[PRIMARY]
    return 1


@action("Copy", kind=1, actor="primary", place=(1,), rocketmq="ToyLog#replicate",
        phrase="the primary copies its log to the backup", drawn=Arrow("primary", "backup", "copy"))
@kernel
def copy(w, p):
    """``ToyLog#replicate``: the backup takes the primary's log; with ``sync_ack`` the client is told ok."""
    if w[BACKUP] >= w[PRIMARY]:
        return 0
    w[BACKUP] = w[PRIMARY]
    if p[P_SYNC_ACK] == 1:
        w[ACKED] = w[BACKUP]
    return 1


@action("Crash", kind=2, actor="failure", place=(2,), when=lambda cfg: cfg.max_crashes > 0,
        rocketmq="ToyLog#recover", phrase="the primary crashes", drawn=Note("primary", "crash"))
@kernel
def crash(w, p):
    """``ToyLog#recover``: the primary restarts from the backup's copy (its whole log with
    ``crash_keeps_log``)."""
    if w[CRASHES] >= p[P_MAX_CRASHES]:
        return 0
    w[CRASHES] += 1
    if p[P_KEEP] == 0:
        w[PRIMARY] = w[BACKUP]
    return 1
