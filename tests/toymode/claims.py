"""The toy's properties, each a compiled predicate over the field vector declared with ``@check``."""
from __future__ import annotations

from invariants.base import ALWAYS, EVENTUALLY, SOMETIMES
from explore.native import kernel

from .declare import check
from .state import ACKED, BACKUP, PRIMARY


@check(kind=ALWAYS, summary="every write the client was told ok for stays in the primary's log",
       reads=r"^client\.acked$|^primary\.log$")
@kernel
def acked_write_kept(v, p):
    """The client's acknowledged writes are all in the primary's log (``ToyLog#append``)."""
    return v[ACKED] <= v[PRIMARY]


@check(kind=SOMETIMES, summary="the backup holds a copy")
@kernel
def backup_has_copy(v, p):
    """A witness that replication happens: the backup holds a message."""
    return v[BACKUP] >= 1


@check(kind=SOMETIMES, summary="the client is told ok for a write", faults_only=True)
@kernel
def write_acked(v, p):
    """The availability witness of ``faults``: some write is acknowledged."""
    return v[ACKED] >= 1


@kernel
def backup_caught_up(v, p):
    """Q of ``write_reaches_backup``: the backup holds the primary's whole log."""
    return 1 if v[BACKUP] >= v[PRIMARY] else 0


@check(kind=EVENTUALLY, summary="a write the backup lacks reaches it", leads_to=backup_caught_up)
@kernel
def write_reaches_backup(v, p):
    """P: the primary holds a write the backup lacks; on fair runs ``Copy`` (``ToyLog#replicate``) takes it."""
    return 1 if v[PRIMARY] > v[BACKUP] else 0
