"""Profile the local engine under Linux ``perf`` with the compiled kernels named.

numba's machine code has no symbols ``perf`` can read, so its samples show as bare addresses. This runs
one benchmark's exploration (the workload ``rmqcheck bench`` times), then writes ``/tmp/perf-PID.map``,
the map ``perf report`` reads for code generated at run time: every compiled function of every loaded
kernel, from its entry address to the next one. Functions LLVM inlined count in their caller.

    perf record -F 4000 -e cpu-clock -o perf.data python bench/perf_map.py twophase-8 --threads 2
    perf report -i perf.data --no-children --sort sym
"""
from __future__ import annotations

import argparse
import gc
import os
import time

from numba.core.registry import CPUDispatcher

from explore.local import LocalExplorer
from explore.run_control import Limits
from rmqcheck.bench import workload

LARGEST = 1 << 20   # a function's range ends at the next entry, or this many bytes on


def entries() -> dict[int, str]:
    """The entry address of every compiled function of every loaded kernel (its numba body, its Python
    wrapper, its C callback), by name."""
    found: dict[int, str] = {}
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in obj.overloads.values():
            desc = cres.fndesc
            for name in (desc.llvm_func_name, desc.llvm_cpython_wrapper_name, f"cfunc.{desc.mangled_name}"):
                try:
                    address = cres.library.get_pointer_to_function(name)
                except Exception:   # noqa: BLE001 - a wrapper not generated for this function
                    continue
                if address:
                    found[address] = name
    return found


def write_map(found: dict[int, str]) -> str:
    if not found:
        raise SystemExit("no compiled kernel is loaded: nothing to map")
    path = f"/tmp/perf-{os.getpid()}.map"
    starts = sorted(found)
    with open(path, "w") as out:
        for start, end in zip(starts, starts[1:] + [starts[-1] + LARGEST]):
            out.write(f"{start:x} {min(end - start, LARGEST):x} {found[start]}\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", help="twophase-N or a preset name (bench, default...)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="every property checked, as bench-check")
    args = parser.parse_args()
    if args.benchmark.startswith("twophase-"):
        spec = {"kind": "twophase", "rms": int(args.benchmark.split("-", 1)[1])}
    else:
        spec = {"kind": "model", "preset": args.benchmark, "check": args.check}
    model, props = workload(dict(spec, threads=args.threads))
    t = time.perf_counter()
    result = LocalExplorer(model, props, Limits(), threads=args.threads).run()
    seconds = time.perf_counter() - t
    path = write_map(entries())   # after the run: every kernel it loaded is named (perf reads the map later)
    print(f"{args.benchmark} on {args.threads} thread(s): {result.stats.distinct_states:,} states in "
          f"{seconds:.2f} s; symbols in {path}")


if __name__ == "__main__":
    main()
