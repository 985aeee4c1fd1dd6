"""The toy state: four small fields in one ``uint64`` word, and the parameter vector's slots."""
from __future__ import annotations

import numpy as np

from explore.native import kernel

#: (name, bits): the readable names of :meth:`tests.toymode.model.ToyModel.view`
FIELDS = (("primary.log", 2), ("backup.log", 2), ("client.acked", 2), ("failures.crashes", 2))
PRIMARY, BACKUP, ACKED, CRASHES = range(len(FIELDS))
NFIELDS = len(FIELDS)
WIDTH = np.array([w for _, w in FIELDS], dtype=np.int64)
SHIFT = np.array([sum(w for _, w in FIELDS[:i]) for i in range(NFIELDS)], dtype=np.int64)
WORDS = 1

#: the parameter vector: the knobs, then the action table (rows of kind and one argument)
P_MESSAGES, P_SYNC_ACK, P_KEEP, P_MAX_CRASHES, P_ACTIONS = range(5)
ACTION_STRIDE = 2


def build_params(cfg, codes) -> np.ndarray:
    head = [cfg.messages, int(cfg.sync_ack), int(cfg.crash_keeps_log), cfg.max_crashes, len(codes)]
    return np.array(head + [x for code in codes for x in code], dtype=np.int64)


def slot(name: str) -> tuple[int, int, int]:
    """Field ``name``'s (word, shift, width)."""
    i = [n for n, _ in FIELDS].index(name)
    return 0, int(SHIFT[i]), int(WIDTH[i])


@kernel
def unpack(state, v):
    for f in range(NFIELDS):
        v[f] = np.int64((state[0] >> np.uint64(SHIFT[f])) & ((np.uint64(1) << np.uint64(WIDTH[f])) - np.uint64(1)))


@kernel
def pack(v, out):
    """Pack ``v`` into ``out``; False when a value does not fit its field."""
    out[0] = 0
    for f in range(NFIELDS):
        if v[f] < 0 or v[f] >= (np.int64(1) << WIDTH[f]):
            return False
        out[0] |= np.uint64(v[f]) << np.uint64(SHIFT[f])
    return True
