"""How the properties read retention (model-scope.md "Scope, wave 2"): deletion by age is no loss, replicas
are compared by offset, and catching up is asked from the master's min offset on."""
from __future__ import annotations

from hand_built import flagged, model
from invariants import readable

R = model(messages=3, commitlog_file_messages=2, max_file_deletions=1, max_master_crashes=0,
          max_master_power_losses=0)
FILES = model(messages=3, commitlog_file_messages=2, max_master_crashes=0, max_master_power_losses=0)

# message 1 and 2 told SEND_OK, their file deleted on the master, no slave copy
EXPIRED = {"master.commitlog": [3], "master.minOffset": 2, "producer.nextMessage": 4, "producer.sendOk": [1, 2, 3],
           "history.expired": [1, 2], "retention.fileDeletions": 1}


def test_a_message_retention_deleted_is_not_lost():
    assert not flagged(R, "acked_message_never_lost", EXPIRED)
    assert not flagged(R, "consumed_message_never_lost", {**EXPIRED, "history.delivered": [1]})
    # the same state had the messages been lost otherwise: a violation
    assert flagged(R, "acked_message_never_lost", {**EXPIRED, "history.expired": []})
    assert flagged(R, "consumed_message_never_lost", {**EXPIRED, "history.expired": [], "history.delivered": [1]})


def test_replicas_are_compared_on_the_offsets_both_hold():
    # the slave started at the master's last file: it holds [3] at offset 2, the master [1, 2, 3] from 0
    late = {"master.commitlog": [1, 2, 3], "producer.nextMessage": 4, "slave1.commitlog": [3], "slave1.minOffset": 2}
    assert not flagged(FILES, "replicas_agree", late)
    assert flagged(FILES, "replicas_agree", {**late, "slave1.commitlog": [2], "slave1.minOffset": 2})
    # by position the two lists [1, 2, 3] and [3] are not prefix-related: by offset they agree
    view = {**FILES.view(FILES.initial()[0]), **late}
    assert readable.replicas_agree(view, FILES.config)


def test_catching_up_is_asked_from_the_masters_min_offset():
    late = {"master.commitlog": [1, 2, 3], "producer.nextMessage": 4, "slave1.commitlog": [3], "slave1.minOffset": 2}
    assert not flagged(FILES, "replication_can_catch_up", late)        # the slave lacks offsets 0 and 1
    after_deletion = {**late, "master.commitlog": [3], "master.minOffset": 2}
    assert flagged(R, "replication_can_catch_up", {**after_deletion, "history.expired": [1, 2],
                                                   "retention.fileDeletions": 1})


def test_the_explanation_says_why_an_empty_slave_cannot_catch_up():
    from invariants.explain import conditions
    view = {**FILES.view(FILES.initial()[0]), "master.commitlog": [1, 2], "producer.nextMessage": 3}
    (c,) = conditions("replication_can_catch_up", FILES, view)
    assert not c.holds and "pushed from offset 2, the start of the master's last commitlog file" in c.text
