"""Two-phase commit as in Lamport's TwoPhase.tla, packed in one word.

State: each resource manager (RM) working/prepared/committed/aborted (2 bits each), the transaction
manager (TM) init/committed/aborted, the set of RMs the TM knows prepared, and the message set
(Prepared(i) per RM, Commit, Abort). Actions, in order: TMCommit, TMAbort, then per RM TMRcvPrepared,
RMPrepare, RMChooseToAbort, RMRcvCommitMsg, RMRcvAbortMsg. As in TLC, a transition that leaves the state
unchanged (e.g. RMRcvCommitMsg by a committed RM) still counts.

Known counts (design.md): N=3: 288 states, 1,145 transitions, depth 10; N=6: 50,816 / 402,305 / 19;
N=8: 1,745,408 / 18,507,777.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from explore.packed import STATE_CHECK_SIG, SUCCESSORS_SIG, TRANSITION_CHECK_SIG, PackedModel
from invariants.base import ALWAYS, SOMETIMES, Property, PropertySet

WORKING, PREPARED, COMMITTED, ABORTED = 0, 1, 2, 3
TM_INIT, TM_COMMITTED, TM_ABORTED = 0, 1, 2


@nb.njit(cache=True, nogil=True, inline="always")
def _u(x):
    return np.uint64(x)


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def twophase_successors(state, params, out, flags):
    n = params[0]
    s = state[0]
    tm_shift = _u(2 * n)
    prep_shift = _u(2 * n + 2)
    msg_shift = _u(3 * n + 2)
    commit_bit = _u(1) << _u(4 * n + 2)
    abort_bit = _u(1) << _u(4 * n + 3)
    all_rms = (_u(1) << _u(n)) - _u(1)
    tm = (s >> tm_shift) & _u(3)
    tm_prepared = (s >> prep_shift) & all_rms
    # TMCommit
    if tm == _u(TM_INIT) and tm_prepared == all_rms:
        out[0, 0] = (s & ~(_u(3) << tm_shift)) | (_u(TM_COMMITTED) << tm_shift) | commit_bit
        flags[0] = 1
    else:
        flags[0] = 0
    # TMAbort
    if tm == _u(TM_INIT):
        out[1, 0] = (s & ~(_u(3) << tm_shift)) | (_u(TM_ABORTED) << tm_shift) | abort_bit
        flags[1] = 1
    else:
        flags[1] = 0
    for i in range(n):
        a = 2 + 5 * i
        rm_shift = _u(2 * i)
        rm = (s >> rm_shift) & _u(3)
        clear = s & ~(_u(3) << rm_shift)
        prepared_msg = _u(1) << (msg_shift + _u(i))
        # TMRcvPrepared(i)
        if tm == _u(TM_INIT) and s & prepared_msg:
            out[a, 0] = s | (_u(1) << (prep_shift + _u(i)))
            flags[a] = 1
        else:
            flags[a] = 0
        # RMPrepare(i)
        if rm == _u(WORKING):
            out[a + 1, 0] = clear | (_u(PREPARED) << rm_shift) | prepared_msg
            flags[a + 1] = 1
        else:
            flags[a + 1] = 0
        # RMChooseToAbort(i)
        if rm == _u(WORKING):
            out[a + 2, 0] = clear | (_u(ABORTED) << rm_shift)
            flags[a + 2] = 1
        else:
            flags[a + 2] = 0
        # RMRcvCommitMsg(i)
        if s & commit_bit:
            out[a + 3, 0] = clear | (_u(COMMITTED) << rm_shift)
            flags[a + 3] = 1
        else:
            flags[a + 3] = 0
        # RMRcvAbortMsg(i)
        if s & abort_bit:
            out[a + 4, 0] = clear | (_u(ABORTED) << rm_shift)
            flags[a + 4] = 1
        else:
            flags[a + 4] = 0
    return 2 + 5 * n


@nb.njit(STATE_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def twophase_state_check(state, params):
    """bit 0: TCConsistent violated (one RM committed, another aborted); bit 1: all RMs committed."""
    n = params[0]
    s = state[0]
    committed = 0
    aborted = 0
    for i in range(n):
        rm = (s >> _u(2 * i)) & _u(3)
        if rm == _u(COMMITTED):
            committed += 1
        elif rm == _u(ABORTED):
            aborted += 1
    bits = _u(0)
    if committed > 0 and aborted > 0:
        bits |= _u(1)
    if committed == n:
        bits |= _u(2)
    return bits


@nb.njit(TRANSITION_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def twophase_transition_check(source, flags, target, params):
    return np.uint64(0)


@dataclass(frozen=True)
class TwoPhaseAction:
    name: str
    rm: int = -1

    def __str__(self) -> str:
        return f"{self.name}()" if self.rm < 0 else f"{self.name}({self.rm + 1})"


class TwoPhase(PackedModel):
    name = "twophase"
    words = 1

    def __init__(self, rms: int = 3) -> None:
        if not 1 <= rms <= 15:
            raise ValueError("rms must be 1..15 to fit one word")
        self.rms = rms
        self.params = np.array([rms], dtype=np.int64)
        self.successors = twophase_successors
        acts = [TwoPhaseAction("TMCommit"), TwoPhaseAction("TMAbort")]
        for i in range(rms):
            acts += [TwoPhaseAction(n, i) for n in ("TMRcvPrepared", "RMPrepare", "RMChooseToAbort",
                                                    "RMRcvCommitMsg", "RMRcvAbortMsg")]
        self._actions = tuple(acts)

    def initial_states(self) -> np.ndarray:
        return np.zeros((1, 1), dtype=np.uint64)

    def actions(self):
        return self._actions

    def view(self, state):
        s, n = int(state[0]), self.rms
        names = ("working", "prepared", "committed", "aborted")
        return {
            "rmState": [names[(s >> (2 * i)) & 3] for i in range(n)],
            "tmState": ("init", "committed", "aborted", "?")[(s >> (2 * n)) & 3],
            "tmPrepared": [i + 1 for i in range(n) if s >> (2 * n + 2 + i) & 1],
            "msgs": [f"Prepared({i + 1})" for i in range(n) if s >> (3 * n + 2 + i) & 1]
                    + (["Commit"] if s >> (4 * n + 2) & 1 else []) + (["Abort"] if s >> (4 * n + 3) & 1 else []),
        }


TWOPHASE_PROPERTIES = PropertySet(
    (Property("tc_consistent", ALWAYS, 0, "no RM has committed while another has aborted"),
     Property("all_committed", SOMETIMES, 1, "every RM commits")),
    twophase_state_check, twophase_transition_check)
