"""The RocketMQ 4.4 master/slave model of one configuration, as the engines see it."""
from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from . import fields as F
from .actions import Action, Rebalance, actions_for
from .config import Config
from .declare import ROCKETMQ_44
from .events import PRUNE_REASON_TEXT, describe
from .layout import Layout, pack, unpack
from explore.packed import PackedModel, State
from .params import build_params
from .successors import successors
from .view import decode_vector, encode_vector


class RocketMQModel(PackedModel):
    """Master, slaves, producer, consumers and failures of RocketMQ 4.4 under one :class:`Config`."""

    name = "rocketmq-4.4"
    prune_reasons = PRUNE_REASON_TEXT   # the names of its prune reason codes (stats.pruned_reasons)

    def __init__(self, config: Config | None = None, strict: bool = False, mutation: str | None = None) -> None:
        self.config = config if config is not None else Config()
        self.mutation = mutation or ""
        self.layout = Layout.for_config(self.config)
        self.words = self.layout.words
        self._actions = actions_for(self.config)
        self.params = build_params(self.config, self.layout, ROCKETMQ_44.mutated_codes(self._actions, mutation), strict)
        self.successors = successors

    def __repr__(self) -> str:
        extra = f", mutation={self.mutation}" if self.mutation else ""
        return f"RocketMQModel({self.config.short()}{extra})"

    # -- the Model protocol ---------------------------------------------------------------------------
    def actions(self) -> tuple[Action, ...]:
        return self._actions

    def parse_action(self, label: str) -> Action:
        """The action of this configuration whose trace label is ``label`` (spaces ignored); ValueError
        naming the known kinds otherwise (:func:`model.actions.parse_action`)."""
        from .actions import parse_action
        return parse_action(label, self.config)

    def started_vector(self) -> np.ndarray:
        """Every process started: the master registered with the name server, each slave's registration
        has given it the master's addresses, each consumer holds a route listing every broker; HA links not
        connected yet, no queue taken yet."""
        cfg = self.config
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        v[F.M_UP] = 1
        v[F.NS_ROUTE] = (1 << (cfg.slaves + 1)) - 1
        v[F.NS_TOPIC] = 1
        for s in range(cfg.slaves):
            v[F.S_UP + s] = 1
            v[F.S_HA_ADDR + s] = 1
            v[F.S_SYNC_ADDR + s] = 1
        v[F.P_NEXT] = 1
        for c in range(cfg.consumers):
            v[F.C_UP + c] = 1
            v[F.C_ROUTE + c] = v[F.NS_ROUTE]
        return v

    def initial_states(self) -> np.ndarray:
        """The started cluster after each consumer's start-up rebalance (``RebalanceService`` runs at
        start, before the producer's first send): every queue taken at offset 0 (``queryConsumerOffset``
        answers 0 for an empty queue), so the group is subscribed before any message exists."""
        state = tuple(int(x) for x in self.pack_vector(self.started_vector()))
        for action in self._actions:
            if isinstance(action, Rebalance):
                state = self.next_state(state, action) or state
        return np.array([state], dtype=np.uint64)

    def view(self, state: State) -> dict[str, Any]:
        return decode_vector(self.unpack_state(state), self.config)

    def encode(self, view: dict[str, Any]) -> State:
        """The packed state of a readable view (the inverse of :meth:`view`)."""
        return tuple(int(x) for x in self.pack_vector(encode_vector(view, self.config)))

    def describe_outcome(self, flags: int) -> str:
        return describe(flags)

    # -- packing --------------------------------------------------------------------------------------
    def unpack_state(self, state: State) -> np.ndarray:
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        unpack(np.asarray(state, dtype=np.uint64), self.params, v)
        return v

    def pack_vector(self, v: np.ndarray) -> np.ndarray:
        out = np.zeros(self.words, dtype=np.uint64)
        if not pack(np.asarray(v, dtype=np.int64), self.params, out, True):
            raise ValueError("a field value does not fit this configuration's layout")
        return out

    @cached_property
    def state_bits(self) -> int:
        return self.layout.bits
