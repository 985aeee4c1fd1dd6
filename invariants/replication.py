"""Replication: the slaves' commitlogs against the master's."""
from __future__ import annotations


from explore.native import kernel

from .declare import ALWAYS, EVENTUALLY, GRAPH, check
from model import fields as F
from model.bits import count, from_position, lowest
from model.slots import K_SLAVES


@kernel
def held_between(log, first, start, end):
    """The ids a commitlog holding ``log`` from offset ``first`` on has at offsets ``[start, end)``."""
    return lowest(from_position(log, start - first), end - start)


@check(kind=ALWAYS, summary="each slave's commitlog and the master's agree on every offset both hold",
       reads=r"\.commitlog$")
@kernel
def replicas_agree(v, p):
    """Each slave's commitlog and the master's hold the same message at every offset both still hold
    (without retention: one log is a prefix of the other), so the slave holds the master's history (or
    the master holds the slave's). 4.4 never truncates a slave: after a master power loss the master
    re-uses offsets the slave already filled with other messages, and the slave's offset report makes the
    master push from there, so the two logs diverge for good. Offsets below a broker's min offset (files
    retention deleted, or never copied to a slave that started at the master's last file) are not compared."""
    m_first = v[F.M_MIN]
    m_end = m_first + count(v[F.M_LOG])
    for s in range(p[K_SLAVES]):
        s_first = v[F.S_MIN + s]
        s_end = s_first + count(v[F.S_LOG + s])
        start = max(m_first, s_first)
        end = min(m_end, s_end)
        if start < end and held_between(v[F.M_LOG], m_first, start, end) != \
                held_between(v[F.S_LOG + s], s_first, start, end):
            return False
    return True


@check(kind=GRAPH, name="replication_can_catch_up",
       summary="from every state, the live slaves can still come to hold exactly the master's log")
@kernel
def replication_caught_up(v, p):
    """Goal of ``replication_can_catch_up``: every live slave holds exactly the master's commitlog from the
    master's min offset on (what retention deleted on the master is not asked of a slave)."""
    m_first = v[F.M_MIN]
    m_end = m_first + count(v[F.M_LOG])
    for s in range(p[K_SLAVES]):
        if v[F.S_UP + s] == 0:
            continue
        s_first = v[F.S_MIN + s]
        if s_first > m_first or s_first + count(v[F.S_LOG + s]) != m_end:
            return False
        if held_between(v[F.S_LOG + s], s_first, m_first, m_end) != v[F.M_LOG]:
            return False
    return True


@kernel
def caught_up(v, p):
    """Q of ``slaves_eventually_catch_up``: 1 when every live slave holds exactly the master's log."""
    return 1 if replication_caught_up(v, p) else 0


@check(kind=EVENTUALLY, summary="every live slave infinitely often holds exactly the master's log",
       leads_to=caught_up)
@kernel
def slaves_eventually_catch_up(v, p):
    """On every fair run, infinitely often every live slave holds exactly the master's commitlog from the
    master's min offset on (the goal of ``replication_can_catch_up``): the HA service (``HAClient``
    reporting its offset, ``HAConnection`` pushing data) does not merely keep catching up possible, it
    gets there, again and again, whatever the failures the budgets allow did before. It fails when a
    slave can diverge from the master for good (4.4 never truncates a slave after a master power loss),
    or when, with ``--unfair MasterRestart``, a master that stays down leaves a slave behind."""
    return 1
