"""The RocketMQ property set: every property of model-scope.md, with its compiled checks.

Each property is declared once, by ``@check`` above its predicate in a concern module
(:mod:`invariants.durability`, ``replication``, ``offsets``, ``witnesses``); its bit is its position in
the declared order, and ``state_check`` / ``transition_check`` are generated from the declarations
(:mod:`invariants.checks`). Property names, kinds and order are part of rmqcheck's interface.
"""
from __future__ import annotations

from .base import PropertySet
from .checks import eventually_masks, state_check, transition_check
from .declare import ROCKETMQ_44

__all__ = ["AVAILABILITY_WITNESSES", "PROPERTIES", "state_check", "transition_check"]


#: every property is in the default selection, the eventually properties included (docs/liveness.md, Cost)
PROPERTIES = PropertySet(ROCKETMQ_44.properties(), state_check, transition_check, eventually_masks=eventually_masks)

#: the availability witnesses ``rmqcheck faults`` weighs a closing change by: the sometimes and eventually
#: properties :data:`invariants.witnesses.AVAILABILITY` names, the ``faults_only`` ones (which ``check`` does
#: not report) among them; they keep their bits of the compiled checks
AVAILABILITY_WITNESSES = tuple(PROPERTIES) + ROCKETMQ_44.properties(faults_only=True)
