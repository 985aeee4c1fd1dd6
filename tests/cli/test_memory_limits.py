"""Real processes under an address-space cap (``prlimit --as``, as ``ulimit -v`` sets it): the run budgets
from the cap, and whatever still fails to allocate ends the run as incomplete with its verdicts, never a
MemoryError traceback (before: 10 of 15 capped ``--preset bench`` runs died with one)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) not installed")

PROBE = """
from explore.local import explore
from explore.run_control import Limits
from invariants import PROPERTIES
from model import Config, RocketMQModel
explore(RocketMQModel(Config(messages=3, consumers=2)), PROPERTIES, Limits(max_states=1000))
print([l for l in open('/proc/self/status') if l.startswith('VmSize:')][0].split()[1])
"""


#: the sources under test, not an installed copy (the runs below start in a temporary directory)
SOURCES = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="module")
def mapped_at_start() -> int:
    """Bytes of address space a process has mapped once the kernels are loaded."""
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip()) * 1024


@pytest.mark.parametrize("headroom_mib", [120, 250, 500])
def test_an_address_space_cap_ends_the_run_as_incomplete_not_a_traceback(tmp_path, mapped_at_start, headroom_mib):
    cap = mapped_at_start + headroom_mib * (1 << 20)
    p = subprocess.run(["prlimit", f"--as={cap}", sys.executable, "-m", "rmqcheck", "check", "--preset", "bench",
                        "--quiet", "--json", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=900,
                       env=SOURCES)
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr, p.stderr
    assert p.returncode in (1, 3), (p.returncode, p.stdout, p.stderr)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"] == ("violated" if p.returncode == 1 else "incomplete")
    reason = data["incomplete_reason"]
    assert "memory budget reached" in reason or "out of memory" in reason, reason
    assert all(p["status"] != "holds" for p in data["properties"] if p["kind"] == "graph")


def test_the_large_preset_on_two_threads_stops_at_its_memory_and_writes_its_result(tmp_path, mapped_at_start):
    """``check --preset large --threads 2`` (225 million states) with 600 MiB of address space to grow in:
    the run stops at its memory budget within seconds, exit 3, its result printed and written, the reason
    naming the flags that would bound it. (Unbounded on a 24 GiB machine, it was killed by the kernel
    after five minutes at 24.3 GB resident, with no output.)"""
    cap = mapped_at_start + 600 * (1 << 20)
    p = subprocess.run(["prlimit", f"--as={cap}", sys.executable, "-m", "rmqcheck", "check", "--preset", "large",
                        "--threads", "2", "--property", "consumption_eventually_completes", "--json", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300, env=SOURCES)
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr, p.stderr
    assert p.returncode == 3, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    data = json.loads((tmp_path / "r.json").read_text())
    reason = data["incomplete_reason"]
    assert data["outcome"] == "incomplete" and reason.startswith("memory budget reached"), reason
    assert "--max-states" in reason and "--max-depth" in reason and "--set" in reason
    assert data["properties"][0]["status"] == "unknown"
    assert "memory budget reached" in p.stdout
