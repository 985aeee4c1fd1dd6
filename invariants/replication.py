"""Replication: the slaves' commitlogs against the master's."""
from __future__ import annotations


from model.native import kernel

from .declare import ALWAYS, GRAPH, check
from model import fields as F
from model.bits import prefix_related
from model.params import K_SLAVES


@check(kind=ALWAYS, summary="each slave's commitlog and the master's are prefix-related")
@kernel
def replicas_agree(v, p):
    """Each slave's commitlog and the master's are prefix-related: one is a prefix of the other, so the
    slave holds the master's history (or the master holds the slave's). 4.4 never truncates a slave:
    after a master power loss the master re-uses offsets the slave already filled with other messages,
    and the slave's offset report makes the master push from there, so the two logs diverge for good."""
    for s in range(p[K_SLAVES]):
        if not prefix_related(v[F.S_LOG + s], v[F.M_LOG]):
            return False
    return True


@check(kind=GRAPH, name="replication_can_catch_up",
       summary="from every state, the live slaves can still come to hold exactly the master's log")
@kernel
def replication_caught_up(v, p):
    """Goal of ``replication_can_catch_up``: every live slave holds exactly the master's commitlog."""
    for s in range(p[K_SLAVES]):
        if v[F.S_UP + s] != 0 and v[F.S_LOG + s] != v[F.M_LOG]:
            return False
    return True
