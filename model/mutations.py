"""Seeded bugs for testing the checker itself: each breaks one mechanism on purpose.

A property that holds (or a behaviour that is reached) proves something only if the check can fail: the
tests switch on one of these mutations and expect the verdict to flip. They are not user knobs; a model
gets one through ``RocketMQModel(config, mutation=NAME)``.
"""
from __future__ import annotations

NONE = 0
ACK_WITHOUT_FLUSH = 1            # SYNC_FLUSH: a send reports SEND_OK without flushing
REPLICA_SKIPS_ENTRY = 2          # the master's push leaves out the first entry it should send
CRASH_LOSES_PAGE_CACHE = 3       # a master process crash loses unflushed data, like a power loss
COMMIT_ON_PULL_OFF_BY_ONE = 4    # commit-on-pull stores the client's offset minus one
COMMIT_ON_PULL_NEXT_BEGIN = 5    # commit-on-pull stores the end of what this pull returns
SLAVE_REFUSES_PULL = 6           # a slave answers every pull with an error
ADMIN_NEVER_SLAVE = 7            # findBrokerAddressInAdmin never falls back to a slave
MASTER_NEVER_RESTARTS = 8        # the master stays down after a failure

MUTATIONS = {
    "ack_without_flush": ACK_WITHOUT_FLUSH,
    "replica_skips_entry": REPLICA_SKIPS_ENTRY,
    "crash_loses_page_cache": CRASH_LOSES_PAGE_CACHE,
    "commit_on_pull_off_by_one": COMMIT_ON_PULL_OFF_BY_ONE,
    "commit_on_pull_next_begin": COMMIT_ON_PULL_NEXT_BEGIN,
    "slave_refuses_pull": SLAVE_REFUSES_PULL,
    "admin_never_slave": ADMIN_NEVER_SLAVE,
    "master_never_restarts": MASTER_NEVER_RESTARTS,
}


def code(name: str | None) -> int:
    if not name:
        return NONE
    try:
        return MUTATIONS[name]
    except KeyError:
        raise ValueError(f"unknown mutation '{name}'; known: {', '.join(MUTATIONS)}") from None
