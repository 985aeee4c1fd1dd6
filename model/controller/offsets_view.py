"""The readable fields of consumer offsets (``consumer_offsets = on``; :mod:`model.controller.offsets`), as
:mod:`model.controller.view` types them and ``ControllerModel.view`` / ``encode`` read and write them. Named
as the 4.4 mode's (model/view.py): per broker and queue the group's offset in memory and in
consumerOffset.json (None: no entry), the offset the group ever committed highest per queue, the message ids
ever delivered to the application, and the consumer restarts used."""
from __future__ import annotations

from typing import Any

from . import fields as F

IDS, OPTIONAL, PLAIN = "ids", "optional", "plain"


def offset_kinds(cfg: Any) -> dict[str, str]:
    """The fields, in order, with their kinds; none when the knob is off."""
    if getattr(cfg, "consumer_offsets", "OFF") != "ON":
        return {}
    queues = range(cfg.queues)
    out = {"history.delivered": IDS, **{f"history.highestCommitted[{q}]": PLAIN for q in queues},
           "budget.consumerRestarts": PLAIN}
    for b in range(1, cfg.brokers + 1):
        out.update({f"broker{b}.consumerOffset[{q}]": OPTIONAL for q in queues})
        out.update({f"broker{b}.consumerOffsetJson[{q}]": OPTIONAL for q in queues})
    return out


def _slots(cfg: Any) -> dict[str, int]:
    """Each field's slot in the field vector (the history's ids are a mask, the tables offset + 1)."""
    out = {"history.delivered": F.H_DELIVERED, "budget.consumerRestarts": F.USED_CONSUMER}
    for q in range(cfg.queues):
        out[f"history.highestCommitted[{q}]"] = F.H_HIGH + q
        for b in range(cfg.brokers):
            out[f"broker{b + 1}.consumerOffset[{q}]"] = F.OFF_MEM + b * F.MAX_QUEUES + q
            out[f"broker{b + 1}.consumerOffsetJson[{q}]"] = F.OFF_JSON + b * F.MAX_QUEUES + q
    return out


def offset_view(v: Any, cfg: Any) -> dict[str, Any]:
    """The fields' values in the field vector ``v``."""
    kinds = offset_kinds(cfg)
    slots = _slots(cfg)
    out: dict[str, Any] = {}
    for name, kind in kinds.items():
        x = int(v[slots[name]])
        if kind == IDS:
            out[name] = [m + 1 for m in range(cfg.messages) if x >> m & 1]
        elif kind == OPTIONAL:
            out[name] = x - 1 if x else None
        else:
            out[name] = x
    return out


def offset_encode(view: dict[str, Any], v: Any, cfg: Any) -> None:
    """Write the fields of ``view`` into the field vector ``v`` (the inverse of :func:`offset_view`)."""
    slots = _slots(cfg)
    for name, kind in offset_kinds(cfg).items():
        x = view[name]
        if kind == IDS:
            v[slots[name]] = sum(1 << (m - 1) for m in x)
        elif kind == OPTIONAL:
            v[slots[name]] = 0 if x is None else x + 1
        else:
            v[slots[name]] = x
