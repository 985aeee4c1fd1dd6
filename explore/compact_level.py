"""The level loop of the compact visited set on several threads (:mod:`explore.compact_rounds` holds its
kernels and explains the three steps of a round): :class:`explore.rounds.LevelRounds`' loop, counter folding
and sample sort, with the compact rounds' buffers."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import compact_rounds as CR
from . import kernel as K
from . import threaded as P
from .rounds import PAD, SLICES_PER_THREAD, THREAD_ADDRESS_SPACE, LevelRounds


class CompactRounds(LevelRounds):
    """The threaded expansion of the compact set's levels (``explorer.threads`` > 1, ``explorer.compact``):
    :class:`explore.rounds.LevelRounds`' level loop, counter folding and sample sort (with no table to
    relink: the compact table holds no index), its own rounds and buffers."""

    def __init__(self, explorer: Any, team: Any, slice_states: int = CR.COMPACT_SLICE_STATES) -> None:
        self.ex = explorer
        self.team = team
        self.T = team.threads
        self.S = SLICES_PER_THREAD * self.T
        self.slice = slice_states
        nact = max(explorer.nact, 1)
        self.C = max(slice_states * min(CR.BUFFER_PER_STATE, nact), nact)   # a slice's buffered successors
        n = self.S * self.C
        self.buf_rows = np.empty((n, explorer.words), dtype=np.uint64)
        self.buf_link = np.empty(n, dtype=np.int64)
        self.buf_fps = np.empty(n, dtype=np.uint64)
        self.buf_slots = np.empty(n, dtype=np.int64)
        self.scratch(nact)
        self.functions = P.function_addresses(explorer.model.successors, explorer.props.transition_check,
                                              explorer.props.state_check)
        self.filed: tuple[int, int, int] = (-1, 0, -1)   # (LevelRounds' slots of the level: none kept here)
        self.short_rounds = 0   # rounds a full buffer ended early

    @staticmethod
    def team_bytes(threads: int, nact: int, words: int, slice_states: int = CR.COMPACT_SLICE_STATES) -> int:
        """What :class:`CompactRounds` allocates (the buffers are address space: touched as far as rounds
        fill them), and what each worker thread reserves, for the explorer's memory budget."""
        per_successor = 8 * words + 24
        room = max(slice_states * min(CR.BUFFER_PER_STATE, max(nact, 1)), nact)
        return SLICES_PER_THREAD * threads * room * per_successor + threads * THREAD_ADDRESS_SPACE

    def expand(self, level: int, lo: int, hi: int) -> int:
        """Expand the level ``[lo, hi)`` round by round (a round may end early: a slice's buffer full);
        returns a kernel status. Between rounds the explorer reports progress and checks its limits."""
        ex = self.ex
        pos = lo
        while pos < hi:
            n = self._room(min(hi - pos, self.S * self.slice))
            if n == 0:
                return K.ST_NEED_ROOM
            bounds = [pos + n * t // self.S for t in range(self.S + 1)]
            status, pos = self._round(bounds)
            if status != K.ST_LEVEL_DONE:
                return status
            ex.store.io["pos"] = pos
            ex.report(level, lo, hi)
            if pos < hi and ex.limit_inside_level():
                return K.ST_CHUNK
        return K.ST_LEVEL_DONE

    def _room(self, want: int) -> int:
        """How many states the next round may expand, up to ``want``: each files at most ``nact`` states,
        so as many as fit whatever they file; the table grows when it is past ``MAX_LOAD`` or the round's
        worst case would take it past ``CR.ROUND_LOAD``. 0 when nothing fits (``incomplete`` says why)."""
        ex, io, nact = self.ex, self.ex.store.io, max(self.ex.nact, 1)
        while True:
            count = int(io["count"])
            fit_states = (ex.store.cap - count) // nact
            fit_table = (int(len(ex.store.table) * CR.ROUND_LOAD) - count) // nact
            if count <= io["table_limit"] and fit_table >= min(want, fit_states, self.T * self.slice):
                break
            if not ex.grow_table():
                return 0
        n = min(want, fit_states, fit_table)
        if n == 0:
            ex.make_room()   # fails, saying why: the state limit or the memory budget
        return n

    def _round(self, bounds: list[int]) -> tuple[int, int]:
        """One round over the slices ``bounds``: its status and where the level's next round starts."""
        ex, store = self.ex, self.ex.store
        self.slices[:] = 0
        round_ = tuple(CR.CRound(np.array(bounds, dtype=np.int64), self.C, self.wit_src, self.wit_act, self.tallies,
                              self.tally.shape[1], self.buf_rows, self.buf_link, self.buf_fps, self.buf_slots,
                              int(ex.leaves)))
        seen = (store.states, store.table, store.fill, store.noexp)
        counter = np.zeros(PAD, dtype=np.int64)
        params = ex.model.params

        graph = ex.cgraph if ex.cgraph is not None and ex.cgraph.recording() else None   # explore/compact_graph.py
        rec = graph.round_buffers(self.S, self.slice, ex.nact) if graph is not None else None

        def expand_on(i: int) -> None:
            P_rows = self.rows[i]
            if rec is not None:   # every transition recorded too, for the graph and eventually properties
                graph.expand_slices(self.functions, params, seen, ex.masks, round_, self.slices, P_rows, counter, rec)
                return
            CR.buffer_slices(self.functions, params, seen, ex.masks, round_, self.slices, P_rows, counter)
        try:
            self.team.run(expand_on)
        except Exception:   # raised inside model code: where the first slice that failed got to
            started = np.flatnonzero(self.slices["status"] == P.S_STARTED)
            if len(started):
                store.io["pos"] = self.slices[started[0]]["pos"]
            raise
        stopped = np.flatnonzero((self.slices["status"] == P.S_ERROR) | (self.slices["status"] == CR.S_FULL))
        # one thread stops at the first error; a full buffer ends the round where its slice stopped, the
        # slices after it forgotten (the next round expands them again)
        last = int(stopped[0]) if len(stopped) else self.S - 1
        error = len(stopped) > 0 and self.slices[last]["status"] == P.S_ERROR
        end = bounds[-1]
        if len(stopped) and not error:
            end = int(self.slices[last]["pos"])
            self.short_rounds += 1
            self.slices[last + 1:] = 0
            self.tally[last + 1:] = 0
            self.wit_src[last + 1:] = -1
            self.wit_act[last + 1:] = -1
        if graph is not None and not error:
            graph.record_round(bounds, self.slices, last)
        count = store.count
        status = CR.file_buffered((store.states, store.parent, store.via, store.table, store.fill), store.counters,
                               round_, self.slices, last)
        new = store.count
        if new > count:
            cut = [count + (new - count) * t // self.T for t in range(self.T + 1)]
            self.team.run(lambda t: CR.check_filed(self.functions, params, store.states, store.noexp, ex.masks,
                                                self.wit_thread[t, :64], int(ex.leaves), cut[t], cut[t + 1]))
            P.merge_state_witnesses(store.states, ex.wit_state,
                                    np.ascontiguousarray(self.wit_thread[:, :64]).ravel())
            self.wit_thread[:] = -1
        if status != K.ST_LEVEL_DONE:
            return status, end
        if error:
            c = self.slices[last]
            io = store.io
            io["err_state"], io["err_action"], io["err_flags"] = c["err_state"], c["err_action"], c["err_flags"]
            return K.ST_ERROR, end
        self._fold_counters()
        return K.ST_LEVEL_DONE, end

    def _end_level(self, hi: int) -> None:
        """Nothing is left to do at a level's end: each round merged its state witnesses."""
