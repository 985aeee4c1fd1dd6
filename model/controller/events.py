"""The controller kernel's events: flag bits 2..15 of a fired action that the ``sometimes`` properties
observe (bit 0 is ``OK``, the outcome note sits at bits 16 and up: :mod:`model.controller.actions`)."""
from __future__ import annotations

#: a put taken and answered SEND_OK at once while the master is alone in its SyncStateSet
#: (``inSyncReplicasNums`` 1): the availability that minInSyncReplicas above 1 gives up. (A put that
#: waited and is completed on a set shrunk to one member is not counted: it was taken with the set whole.)
EV_ACKED_WITH_SLAVE_AWAY = 4
