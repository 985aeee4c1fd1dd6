"""The step every engine shares: generate, check and file the successors of one frontier state.

:func:`expand_state` is the one expansion step of every engine and thread count. :func:`generate` runs the model's compiled ``successors`` on ``states[i]`` into the successor rows
``out`` / ``oflags`` (one per action), stops at the first model error, counts the enabled transitions and
checks each against the watched transition properties, keeping per property bit the canonical witness
(smallest source key, then smallest action), and adds what the state contributes to the coverage
``tally``: its transitions per action, its pruned rows per reason, whether it is terminal. Every distinct
state is generated once, so the tally is the same on every engine and thread count.
:func:`expand_state` then counts the state in its counter record (:mod:`explore.counters`) and files each
enabled successor with an **insert policy**, three compiled functions passed as arguments (numba compiles
the step once per policy, each call direct and inlined):

- ``home(place, row)``: where the successor's lookup starts, ``(slot, tag)``; every home is computed (and
  its cache line fetched) before the first lookup;
- ``insert(place, c, states, src, a, row, slot, tag)``: find it or file it, record its parent, edge and
  witness; False when the state limit stops the run;
- ``note_terminal(place, c, states, src)``: a state with no enabled action.

The policies are the one-thread visited set's (:mod:`explore.kernel`: the first finder files a state,
since a level is expanded in key order), the threads' shared table (:mod:`explore.threaded`: atomic claims,
the smallest (source, action) kept), and a Spark batch's (its ``expand_batch``: duplicates removed inside the
batch, the canonical parent kept by key). Simulation takes one step at a time (:func:`generate_one`).

It works one state at a time on purpose: the local engine starts the hash lookups of one state's
successors before probing any of them (README, Performance), which needs the rows of that state only
while they are still in cache.
"""
from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba import types

from .flags import PRUNE_REASON_MASK, PRUNE_REASON_SHIFT, PRUNED
from explore.native import kernel
from explore.packed import SUCCESSORS_SIG, TRANSITION_CHECK_SIG

ENABLED = 1
ERROR = 2

# what an expansion step returns (and the local kernel, for a chunk of a level)
ST_CHUNK = 0        # the step (or the chunk) is done; the level is not finished
ST_LEVEL_DONE = 1
ST_NEED_ROOM = 2    # grow the arrays or the table, then call again
ST_LIMIT = 3        # the state limit was reached
ST_ERROR = 4        # the model flagged an error (the counters' ``err_*``)

# slots of the coverage tally (one int64 array; tallies of batches add up slot by slot)
T_TERMINAL = 0              # generated states with no enabled action
T_PRUNED = 1                # successor rows a bound of the model left out, one slot per reason code
T_ACTIONS = T_PRUNED + 256  # transitions, one slot per action index


def tally_size(actions: int) -> int:
    return T_ACTIONS + max(actions, 1)


SUCC_T = types.FunctionType(SUCCESSORS_SIG)
TCHECK_T = types.FunctionType(TRANSITION_CHECK_SIG)
U64_2D = types.uint64[:, ::1]
I64_1D = types.int64[::1]


@kernel(inline=True)
def key_less(a, b):
    """Canonical order of packed states: words as signed 64-bit integers, lexicographically."""
    for i in range(len(a)):
        x = np.int64(a[i])
        y = np.int64(b[i])
        if x != y:
            return x < y
    return False


@kernel(inline=True)
def rows_equal(a, b):
    for i in range(len(a)):
        if a[i] != b[i]:
            return False
    return True


@kernel(inline=True)
def lowest_bit_index(bits):
    """Index of the lowest set bit of a non-zero ``uint64``."""
    b = 0
    while not bits & np.uint64(1):
        bits >>= np.uint64(1)
        b += 1
    return b


@kernel
def note_transition_witness(wit_src, wit_act, states, src, a, hits):
    """Per property bit of ``hits``, keep the transition with the smallest ``(source key, action)``."""
    while hits:
        b = lowest_bit_index(hits)
        cur = wit_src[b]
        if cur < 0 or key_less(states[src], states[cur]) or (cur == src and a < wit_act[b]):
            wit_src[b] = src
            wit_act[b] = a
        hits &= hits - np.uint64(1)


@kernel(inline=True)
def generate(succ, tcheck, params, states, i, out, oflags, trans_watch, wit_src, wit_act, tally):
    """Successors of ``states[i]`` into ``out`` / ``oflags``, transitions checked and tallied; returns the
    number of enabled transitions, or ``-1 - a`` when action ``a`` reports a model error (the first one)."""
    succ(states[i], params, out, oflags)
    enabled = 0
    for a in range(len(oflags)):
        f = oflags[a]
        if f & ERROR:
            return -1 - a
        if not f & ENABLED:
            if f & PRUNED:
                tally[T_PRUNED + ((f & PRUNE_REASON_MASK) >> PRUNE_REASON_SHIFT)] += 1
            continue
        enabled += 1
        tally[T_ACTIONS + a] += 1
        if trans_watch:
            hits = tcheck(states[i], f, out[a], params) & trans_watch
            if hits:
                note_transition_witness(wit_src, wit_act, states, i, a, hits)
    if enabled == 0:
        tally[T_TERMINAL] += 1
    return enabled


#: the successor rows of one state and each one's lookup start (slot, tag)
Rows = namedtuple("Rows", "out oflags homes tags")
ROWS_T = types.NamedTuple((U64_2D, I64_1D, I64_1D, types.uint64[::1]), Rows)

#: what :func:`generate` needs besides the state: the model's successors and transition check, its
#: parameters, the transition bits watched and their witness candidates (source index, action)
Generator = namedtuple("Generator", "succ tcheck params trans_watch wit_src wit_act")


@kernel(inline=True)
def expand_state(gen, states, src, rows, c, tally, home, insert, note_terminal, place):
    """Expand ``states[src]``: generate and check its successors (:func:`generate`) into ``rows``, count
    them in the counter record ``c``, and file each enabled one with the insert policy (``home``,
    ``insert``, ``note_terminal`` over its ``place``). Returns ``ST_CHUNK``, or ``ST_ERROR`` (the error in
    ``c``), or ``ST_LIMIT`` (the state limit met while filing: the state is to be expanded again)."""
    out = rows.out
    oflags = rows.oflags
    enabled = generate(gen.succ, gen.tcheck, gen.params, states, src, out, oflags, gen.trans_watch, gen.wit_src,
                       gen.wit_act, tally)
    if enabled < 0:
        c.err_state = src
        c.err_action = -1 - enabled
        c.err_flags = oflags[-1 - enabled]
        return ST_ERROR
    c.trans += enabled   # with the whole state, like the tally (a state limit may stop it midway)
    if enabled == 0:
        note_terminal(place, c, states, src)
    nact = len(oflags)
    # every lookup's cache miss started before the first probe (the probes then mostly hit the cache)
    for a in range(nact):
        if oflags[a] & ENABLED:
            slot, tag = home(place, out[a])
            rows.homes[a] = slot
            rows.tags[a] = tag
    for a in range(nact):
        if oflags[a] & ENABLED:
            if not insert(place, c, states, src, a, out[a], rows.homes[a], rows.tags[a]):
                return ST_LIMIT
    return ST_CHUNK


@kernel(inline=True)
def first_terminal(place, c, states, src):
    """``note_terminal`` of a policy that expands a level in key order: the first terminal state met."""
    if c.terminal == 0:
        c.terminal = src + 1


GENERATE_ONE_SIG = types.int64(SUCC_T, TCHECK_T, I64_1D, U64_2D, types.int64, U64_2D, I64_1D, types.uint64,
                               I64_1D, I64_1D, I64_1D)


@nb.njit(GENERATE_ONE_SIG, cache=True, nogil=True, _nrt=False)
def generate_one(succ, tcheck, params, states, i, out, oflags, trans_watch, wit_src, wit_act, tally):
    """:func:`generate` callable from Python (simulation takes one step at a time)."""
    return generate(succ, tcheck, params, states, i, out, oflags, trans_watch, wit_src, wit_act, tally)
