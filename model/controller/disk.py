"""The disk under a truncation (issue 48 item 6; knob ``stale_tail``): what a truncation leaves in the
commitlog file past the new write position, and what a restart's recovery reads back.

Read in RocketMQ 5.3.3:

- ``DefaultMessageStore#truncateFiles`` -> ``#truncateDirtyFiles`` -> ``CommitLog#truncateDirtyFiles`` ->
  ``MappedFileQueue#truncateDirtyFiles``: in the file that holds the truncation point only the wrote,
  committed and flushed positions move (``setWrotePosition``...); its bytes past the point stay as they
  were (in the page cache, and on disk where they had been flushed); later files are deleted. A running
  broker never reads past its write position (``selectMappedBuffer``) and appends from it, overwriting.
- At load every commitlog file's positions are its size (``MappedFileQueue#doLoad``), and both recoveries
  (``CommitLog#recoverNormally``, ``#recoverAbnormally``) scan the file from its start up to the first
  record that fails ``checkMessageAndReturnSize`` (magic, size, CRC). Nothing records the write position of
  the process that stopped: the records a truncation left behind are read back as valid, and the recovered
  max offset (``processOffset``) is past them.
- The consume queues are truncated the same way (``ConsumeQueue#truncateDirtyLogicFiles`` moves positions
  only), and ``ConsumeQueue#recover`` reads back every entry with ``offset >= 0 && size > 0``; recovery
  then cuts only entries at or past ``processOffset`` (``DefaultMessageStore#truncateDirtyLogicFiles``).
  So records the consume queue had dispatched before the truncation are readable again after any
  restart, whichever recovery runs.
- ``#recoverAbnormally`` (abort file present: a crash) dispatches only records ending at or below the
  checkpoint's confirmOffset, which the truncation lowered to the truncation point (``CommitLog
  #truncateDirtyFiles`` -> ``#setConfirmOffset`` -> ``StoreCheckpoint#setConfirmPhyOffset``): none of them.
  ``#recoverNormally`` (``DefaultMessageStore#shutdown`` deleted the abort file) dispatches the records past
  the consume queues' max physical offset with no confirmOffset check.

What the model keeps, per broker: ``staleEnd`` (:data:`model.controller.fields.STALE_END`), the end of the
stale records; they are the commitlog arrays' positions ``[maxOffset, staleEnd)``, which a truncation no
longer clears. An append at the write position overwrites the first of them (:func:`overwrite_stale`).
``staleDispatched`` (:data:`~model.controller.fields.STALE_CQ`) is the end of the consume queue's stale
entries (with equal record sizes the entry of queue offset ``k`` points at position ``k``, whichever record
is there now). ``cleanShutdown`` (:data:`~model.controller.fields.CLEAN`) says which recovery the restart
runs.

What is abstracted (the simplest faithful reading at the model's granularity, one message per position):

- **Record sizes are equal**: an append overwrites exactly one stale record and the next one still starts
  on a record boundary, so it stays readable (messages of one producer with bodies of one length, as in
  benchmarks). With unequal sizes the scan would stop at the first overwritten record.
- **One commitlog file**: later files would be deleted by the truncation, so only the file of the truncation
  point keeps stale bytes.
- **A power loss drops the stale tail** (:func:`drop_stale`): stale bytes that had reached the disk (flushed
  before the truncation, or by a later flush's ``MappedByteBuffer#force``, which writes every dirty page of
  the file) would survive it and be read back too; the model keeps stale records over crashes and clean
  shutdowns only (an under-approximation).
- **recoverNormally's dispatch**: the consume queue is the model's prefix ``dispatched``; normal recovery
  makes it the whole recovered commitlog. In bytes ``doDispatch`` is ``commitLogOffset >
  maxPhyOffsetOfConsumeQueue`` where the consume queue's max physical offset is the *end* of its last entry
  (``ConsumeQueue#recover``: ``offset + size``), so the first record past the consume queue is not
  dispatched and the next ones are appended one slot early (``ConsumeQueue#putMessagePositionInfo`` appends
  at its write position, logging "[BUG]logic queue order maybe wrong"); the model dispatches them all at
  their own offsets (a consume queue with a shifted slot is not representable in a prefix).
- CRC, blank end-of-file records, torn tails: not modelled.
"""
from __future__ import annotations

from explore.native import kernel
from . import fields as F
from .params import P_CONFIRM_PERSISTED, P_STALE_TAIL
from .state import bg, bs, lower_positions, set_record_queue, truncate_log


@kernel(inline=True)
def stale_end(w, b):
    """The end of broker ``b``'s stale records (0: none)."""
    return w[F.STALE_END + b]


@kernel
def truncate_dirty_files(w, b, offset, params):
    """``DefaultMessageStore#truncateFiles`` at ``offset`` on broker ``b`` (the HA handshake's
    ``AutoSwitchHAClient#doTruncate``). ``stale_tail`` off: the records past ``offset`` are gone
    (:func:`model.controller.state.truncate_log`). On: ``MappedFileQueue#truncateDirtyFiles`` moves only the
    positions (:func:`model.controller.state.lower_positions`); the records from ``offset`` to the old max,
    and any stale records already past it, stay as the stale tail."""
    if params[P_STALE_TAIL] == 0:
        truncate_log(w, b, offset)
        return
    end = bg(w, b, F.B_LEN)
    if offset >= end:
        return
    if stale_end(w, b) > end:
        end = stale_end(w, b)
    if bg(w, b, F.B_REPUT) > offset and bg(w, b, F.B_REPUT) > w[F.STALE_CQ + b]:
        w[F.STALE_CQ + b] = bg(w, b, F.B_REPUT)
    lower_positions(w, b, offset)
    w[F.STALE_END + b] = end


@kernel(inline=True)
def overwrite_stale(w, b):
    """After an append on broker ``b`` (``CommitLog#asyncPutMessage``, or a slave's
    ``HAClientReader#processReadResult``): the record written at the old write position replaced the first
    stale record (equal sizes: the rest stay readable); none left once the write position reaches the
    stale end."""
    if w[F.STALE_END + b] <= bg(w, b, F.B_LEN):
        w[F.STALE_END + b] = 0


@kernel
def drop_stale(w, b):
    """A power loss on broker ``b``: the stale tail is lost with the page cache (the model's
    under-approximation: see the module docstring); its positions cleared."""
    for i in range(bg(w, b, F.B_LEN), stale_end(w, b)):
        bs(w, b, F.B_LOG_MSG + i, 0)
        bs(w, b, F.B_LOG_EP + i, 0)
        set_record_queue(w, b, i, 0, 0)
    w[F.STALE_END + b] = 0
    w[F.STALE_CQ + b] = 0


@kernel
def recover_reading_stale(w, b, params):
    """The recovery of :func:`model.controller.actions.broker_restart` with ``stale_tail`` on (the broker
    already up and fenced).

    Both recoveries scan the whole commitlog file (``CommitLog#recoverNormally`` / ``#recoverAbnormally``
    over ``MappedFile#sliceByteBuffer``) and find the stale records valid: the max offset
    (``processOffset``) becomes their end. Their epochs and queue offsets are the ones written in them; the
    epoch file, truncated with the log (``EpochFileCache#truncateSuffixByOffset``), is not restored. The
    consume queue's stale entries are read back (``ConsumeQueue#recover``) up to the recovered max
    (``DefaultMessageStore#truncateDirtyLogicFiles(processOffset)``) by either recovery. Then:

    - after a clean shutdown, ``#recoverNormally``: every record past the consume queue dispatched (no
      confirmOffset check), confirmOffset clamped to ``processOffset``;
    - after a crash, ``#recoverAbnormally``: as :func:`model.controller.actions.broker_restart` (confirmOffset
      clamped, records ending at or below it dispatched; up to 5.1.0, switch
      ``confirm_offset_persisted_and_bounds_recovery`` off, every record), plus the consume queue's stale
      entries."""
    if stale_end(w, b) > bg(w, b, F.B_LEN):
        bs(w, b, F.B_LEN, stale_end(w, b))
    w[F.STALE_END + b] = 0
    cq = w[F.STALE_CQ + b]
    w[F.STALE_CQ + b] = 0
    if cq > bg(w, b, F.B_LEN):
        cq = bg(w, b, F.B_LEN)
    if w[F.CLEAN + b] == 1:
        w[F.CLEAN + b] = 0
        if bg(w, b, F.B_CONFIRM) > bg(w, b, F.B_LEN):
            bs(w, b, F.B_CONFIRM, bg(w, b, F.B_LEN))
        bs(w, b, F.B_REPUT, bg(w, b, F.B_LEN))
        return
    if params[P_CONFIRM_PERSISTED] == 0:
        bs(w, b, F.B_CONFIRM, 0)
        bs(w, b, F.B_REPUT, bg(w, b, F.B_LEN))
        return
    if bg(w, b, F.B_CONFIRM) > bg(w, b, F.B_LEN):
        bs(w, b, F.B_CONFIRM, bg(w, b, F.B_LEN))
    bs(w, b, F.B_REPUT, bg(w, b, F.B_CONFIRM))
    if cq > bg(w, b, F.B_REPUT):
        bs(w, b, F.B_REPUT, cq)
