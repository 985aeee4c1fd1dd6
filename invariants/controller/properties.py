"""The controller mode's property set: every property ``check`` reports, in declared order (bits from
:mod:`invariants.controller.declare`), with the generated compiled checks; and the availability
witnesses of ``rmqcheck faults``. Property names, kinds and order are part of rmqcheck's interface."""
from __future__ import annotations

from ..base import PropertySet
from .checks import eventually_masks, state_check, transition_check
from .declare import CONTROLLER

#: every property ``check`` reports, the eventually property included
PROPERTIES = PropertySet(CONTROLLER.properties(), state_check, transition_check, eventually_masks=eventually_masks)

#: the availability witnesses of ``rmqcheck faults`` (not checked by ``check``): a change that closes a
#: failure mode counts only while the configuration still reaches each of them
AVAILABILITY_WITNESSES = CONTROLLER.properties(faults_only=True)
