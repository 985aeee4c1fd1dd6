"""Real processes under an address-space cap (``prlimit --as``, as ``ulimit -v`` sets it): the run budgets
from the cap, and whatever still fails to allocate ends the run as incomplete with its verdicts, never a
MemoryError traceback (before: 10 of 15 capped ``--preset bench`` runs died with one)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

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
                        "--quiet", "--json", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr, p.stderr
    assert p.returncode in (1, 3), (p.returncode, p.stdout, p.stderr)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"] == ("violated" if p.returncode == 1 else "incomplete")
    reason = data["incomplete_reason"]
    assert "memory budget reached" in reason or "out of memory" in reason, reason
    assert all(p["status"] != "holds" for p in data["properties"] if p["kind"] == "graph")
