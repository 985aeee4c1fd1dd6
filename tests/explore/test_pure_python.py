"""Pure-Python mode: with NUMBA_DISABLE_JIT=1 every model and engine path (local BFS, simulation, the
Spark batch kernel, the toy models) gives exactly what the compiled kernels give, on small configurations,
so an action can be stepped through in a debugger."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("pure_python_paths.py")
ROOT = Path(__file__).resolve().parents[2]


def _run(**env: str) -> dict:
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=ROOT, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_pure_python_mode_gives_the_compiled_results():
    compiled = _run(NUMBA_DISABLE_JIT="0")
    assert compiled["one-message-no-failures"]["counts"] == [351, 1188, 13]    # the golden counts
    assert compiled["no-slave-one-power-loss"]["counts"] == [140, 284, 9]
    pure = _run(NUMBA_DISABLE_JIT="1")
    assert pure == compiled
