"""The readable fields of a controller quorum (``controllers = 3``; :mod:`model.controller.quorum`), as
:mod:`model.controller.view` types them and ``ControllerModel.view`` / ``encode`` read and write them: the
running nodes, the latest term's leader and whether it serves, each node's believed leader, each broker's
controller leader address and its cut links to nodes, the cut links between nodes, and the request in flight
(its event ``ELECT`` / ``ELECT_NONE`` / ``ALTER`` or None, the broker it elects or the set it proposes, the
nodes holding it, the broker awaiting its reply). Nodes are numbered 1..3; None stands for "none"."""
from __future__ import annotations

from typing import Any

from . import fields as F

IDS, OPTIONAL, PLAIN = "ids", "optional", "plain"
EVENTS = {F.QUORUM_ELECT: "ELECT", F.QUORUM_ELECT_NONE: "ELECT_NONE", F.QUORUM_ALTER: "ALTER"}


def quorum_kinds(cfg: Any) -> dict[str, str]:
    """The fields, in order, with their kinds; none with one controller."""
    if getattr(cfg, "controllers", 1) <= 1:
        return {}
    out = {"quorum.up": PLAIN, "quorum.leader": OPTIONAL, "quorum.serving": PLAIN,
           **{f"quorum.node{c}.believedLeader": OPTIONAL for c in range(1, cfg.controllers + 1)},
           "quorum.peerLinksDown": PLAIN, "quorum.pending.event": OPTIONAL, "quorum.pending.elected": OPTIONAL,
           "quorum.pending.syncStateSet": PLAIN,
           "quorum.pending.holders": PLAIN, "quorum.pending.requester": OPTIONAL}
    for b in range(1, cfg.brokers + 1):
        out[f"broker{b}.controllerLeaderAddress"] = OPTIONAL
        out[f"broker{b}.controllerNodeLinksDown"] = PLAIN
    return out


def _nodes(mask: int) -> list[int]:
    return [c + 1 for c in range(F.MAX_CONTROLLERS) if mask >> c & 1]


def _mask(nodes: list[int]) -> int:
    return sum(1 << (c - 1) for c in nodes)


_PAIRS = ((1, 2), (1, 3), (2, 3))


def quorum_view(v: Any, cfg: Any) -> dict[str, Any]:
    """The fields' values in the field vector ``v``."""
    if getattr(cfg, "controllers", 1) <= 1:
        return {}
    event = int(v[F.Q_PEND_KIND])
    out: dict[str, Any] = {
        "quorum.up": _nodes(int(v[F.Q_UP])), "quorum.leader": int(v[F.Q_LEADER]) or None,
        "quorum.serving": bool(v[F.Q_SERVING]),
        **{f"quorum.node{c + 1}.believedLeader": int(v[F.Q_BELIEF + c]) or None for c in range(cfg.controllers)},
        "quorum.peerLinksDown": [list(p) for i, p in enumerate(_PAIRS) if int(v[F.Q_PLINK]) >> i & 1],
        "quorum.pending.event": EVENTS.get(event),
        # the elected broker's id (ELECT; None otherwise), the new SyncStateSet's ids (ALTER; [] otherwise)
        "quorum.pending.elected": int(v[F.Q_PEND_ARG]) + 1 if event == F.QUORUM_ELECT else None,
        "quorum.pending.syncStateSet": [b + 1 for b in range(cfg.brokers) if int(v[F.Q_PEND_ARG]) >> b & 1]
        if event == F.QUORUM_ALTER else [],
        "quorum.pending.holders": _nodes(int(v[F.Q_PEND_HOLDERS])),
        "quorum.pending.requester": int(v[F.Q_PEND_REQ]) or None,
    }
    for b in range(cfg.brokers):
        out[f"broker{b + 1}.controllerLeaderAddress"] = int(v[F.Q_ADDR + b]) or None
        out[f"broker{b + 1}.controllerNodeLinksDown"] = _nodes(int(v[F.Q_BLINK]) >> (b * F.MAX_CONTROLLERS) & 7)
    return out


def quorum_encode(view: dict[str, Any], v: Any, cfg: Any) -> None:
    """Write the fields of ``view`` into the field vector ``v`` (the inverse of :func:`quorum_view`)."""
    if getattr(cfg, "controllers", 1) <= 1:
        return
    v[F.Q_UP] = _mask(view["quorum.up"])
    v[F.Q_LEADER] = view["quorum.leader"] or 0
    v[F.Q_SERVING] = int(view["quorum.serving"])
    for c in range(cfg.controllers):
        v[F.Q_BELIEF + c] = view[f"quorum.node{c + 1}.believedLeader"] or 0
    v[F.Q_PLINK] = sum(1 << i for i, p in enumerate(_PAIRS) if list(p) in view["quorum.peerLinksDown"])
    event = {name: code for code, name in EVENTS.items()}.get(view["quorum.pending.event"], 0)
    v[F.Q_PEND_KIND] = event
    v[F.Q_PEND_ARG] = (view["quorum.pending.elected"] - 1 if event == F.QUORUM_ELECT else
                       _mask(view["quorum.pending.syncStateSet"]) if event == F.QUORUM_ALTER else 0)
    v[F.Q_PEND_HOLDERS] = _mask(view["quorum.pending.holders"])
    v[F.Q_PEND_REQ] = view["quorum.pending.requester"] or 0
    links = 0
    for b in range(cfg.brokers):
        v[F.Q_ADDR + b] = view[f"broker{b + 1}.controllerLeaderAddress"] or 0
        links |= _mask(view[f"broker{b + 1}.controllerNodeLinksDown"]) << (b * F.MAX_CONTROLLERS)
    v[F.Q_BLINK] = links
