"""Where the local engine's time goes on the bench preset: successor generation alone against the whole
search. Run: python bench/profile_split.py (about two minutes)."""
import dataclasses
import time

import numba as nb
import numpy as np

from explore.kernel import SUCC_T
from explore.local import LocalExplorer
from invariants import PROPERTIES
from model import RocketMQModel, preset


@nb.njit(nb.int64(SUCC_T, nb.int64[::1], nb.uint64[:, ::1], nb.uint64[:, ::1], nb.int64[::1]), nogil=True)
def generate_all(succ, params, states, out, flags):
    n = 0
    for i in range(states.shape[0]):
        succ(states[i], params, out, flags)
        for a in range(len(flags)):
            if flags[a] & 1:
                n += 1
    return n


m = RocketMQModel(preset("bench"))
props = dataclasses.replace(PROPERTIES, properties=())
LocalExplorer(  # warm up: load the compiled kernels
    RocketMQModel(preset("default").with_overrides(["messages=1"])), props).run()
ex = LocalExplorer(m, props)
t = time.perf_counter()
r = ex.run()
total = time.perf_counter() - t
states = np.ascontiguousarray(ex.store.states[:r.stats.distinct_states])
nact = len(m.actions())
out = np.zeros((nact, states.shape[1]), np.uint64)
flags = np.zeros(nact, np.int64)
generate_all(m.successors, m.params, states[:1000], out, flags)
t = time.perf_counter()
n = generate_all(m.successors, m.params, states, out, flags)
gen = time.perf_counter() - t
print(f"states {r.stats.distinct_states} transitions {r.stats.transitions} (regenerated {n})")
print(f"whole BFS {total:.1f} s; successor generation alone {gen:.1f} s ({100*gen/total:.0f}%); "
      f"{1e9*gen/r.stats.distinct_states:.0f} ns/state, {1e9*gen/n:.0f} ns/transition; "
      f"rest (hashing, lookups, stores, level sorting) {1e9*(total-gen)/r.stats.transitions:.0f} ns/transition")
