"""What the controller properties observe of the cluster, read from the field vector only: a broker's
field, whether a broker accepts writes, and the controller's current master once it has taken the role.
Never the model's own helpers (:mod:`model.controller.state`), so a bug in an action cannot make a
property agree with it."""
from __future__ import annotations

from model.controller import fields as F
from explore.native import kernel


@kernel(inline=True)
def field(v, b, off):
    """Field ``off`` of broker ``b`` (0-based)."""
    return v[F.BROKER_BASE + b * F.STRIDE + off]


@kernel(inline=True)
def writer(v, b):
    """Broker ``b`` accepts writes: running, unfenced, in the master role."""
    return field(v, b, F.B_UP) == 1 and field(v, b, F.B_FENCED) == 0 and field(v, b, F.B_MASTER) == 1


@kernel
def current_master(v):
    """The controller's master once it has taken the role (running, master, at the controller's epoch),
    else -1."""
    b = v[F.CTL_MASTER] - 1
    if b >= 0 and writer(v, b) and field(v, b, F.B_EPOCH) == v[F.CTL_EPOCH]:
        return b
    return -1
