"""Election claims of the controller mode (the mechanisms page's §9.5): one writer per master epoch,
epoch files that agree with the logs, and failover that happens."""
from __future__ import annotations

from model.controller import fields as F
from model.controller.params import P_BROKERS
from explore.native import kernel

from .declare import check
from .observations import current_master, field, writer
from ..base import ALWAYS, EVENTUALLY, SOMETIMES


@check(kind=ALWAYS, summary="at most one broker per master epoch accepts writes",
       reads=r"\.role$|\.masterEpoch$|\.fenced$|\.up$")
@kernel
def one_master_per_epoch(v, p):
    """At most one broker per master epoch accepts writes: no two running, unfenced brokers in the
    master role hold the same master epoch (a deposed master with an older epoch may still accept
    writes: controller mode has no write lease, §1.8)."""
    for b in range(p[P_BROKERS]):
        for c in range(b + 1, p[P_BROKERS]):
            if writer(v, b) and writer(v, c) and field(v, b, F.B_EPOCH) == field(v, c, F.B_EPOCH):
                return False
    return True


@check(kind=ALWAYS, summary="each running broker's epoch file covers its messages with the entries of their epochs",
       reads=r"\.epochFile$|\.commitlog$")
@kernel
def epoch_file_agrees_with_log(v, p):
    """Every running broker's epoch file agrees with its commitlog on the epochs both contain: when the
    file has an entry for the epoch a message was written in, that entry's range (its start up to the
    next entry's start) covers the message's offset (``EpochFileCache#findEpochEntryByOffset`` then finds
    the right epoch for it, as the handshake's ``findConsistentPoint`` and the master's push rely on)."""
    for b in range(p[P_BROKERS]):
        if field(v, b, F.B_UP) == 0:
            continue
        n = field(v, b, F.B_EF_N)
        for i in range(field(v, b, F.B_LEN)):
            e = field(v, b, F.B_LOG_EP + i)
            for j in range(n):
                if field(v, b, F.B_EF_EP + j) != e:
                    continue
                if i < field(v, b, F.B_EF_START + j) or (j + 1 < n and i >= field(v, b, F.B_EF_START + j + 1)):
                    return False
    return True


@check(kind=SOMETIMES, summary="the controller elects a master after a failover (masterEpoch >= 2)")
@kernel
def new_master_elected(v, p):
    """A witness that failover happens in the explored space: some state has a master at master epoch 2
    or more."""
    return v[F.CTL_EPOCH] >= 2 and v[F.CTL_MASTER] != 0


@kernel
def master_serving(v, p):
    """Q of ``master_eventually_elected``: a broker is master at the controller's master epoch and accepts
    writes."""
    return 1 if current_master(v) >= 0 else 0


@check(kind=EVENTUALLY, summary="after a master failure, with a live SyncStateSet member and the controller "
       "reachable, some broker becomes master", leads_to=master_serving)
@kernel
def master_eventually_elected(v, p):
    """After a master failure, while the controller can still elect from the SyncStateSet, some broker
    becomes master again. P: the broker the controller names master has crashed or lost power, the
    controller is up, and another member of the controller's SyncStateSet is running and reaches it (its
    link is up). Q: a broker is master at the controller's master epoch and accepts writes. In 5.3.3 the
    controller finds the master inactive (``DefaultBrokerHeartbeatManager``), and
    ``ControllerManager#triggerElectMaster`` / ``ElectMasterEventHandler`` have
    ``ReplicasInfoManager#electMaster`` pick a live SyncStateSet member with ``DefaultElectPolicy``; the
    member learns its new role (``ReplicasManager#changeToMaster``) on its next metadata poll. Checked on
    fair runs: the controller's and brokers' periodic work (heartbeats, the inactive-broker scan, the
    election, the metadata poll, restarts) keeps happening, while crashes, power losses, controller
    outages, link losses, HA disconnects and lost replies need never happen."""
    m = v[F.CTL_MASTER] - 1
    if v[F.CTL_EPOCH] < 1 or m < 0 or field(v, m, F.B_UP) == 1 or v[F.CTL_UP] == 0:
        return 0
    for b in range(p[P_BROKERS]):
        if b != m and v[F.CTL_SSS] >> b & 1 and field(v, b, F.B_UP) == 1 and field(v, b, F.B_LINK_DOWN) == 0:
            return 1
    return 0
