"""The toy's property set (bits from :data:`tests.toymode.declare.CHECKS`) and its availability witnesses."""
from __future__ import annotations

from invariants.base import PropertySet

from .checks import eventually_masks, state_check, transition_check
from .declare import CHECKS

PROPERTIES = PropertySet(CHECKS.properties(), state_check, transition_check, eventually_masks=eventually_masks)
AVAILABILITY_WITNESSES = CHECKS.properties(faults_only=True)
#: witness -> what a configuration that never reaches it lost
AVAILABILITY = {"write_acked": "no write is ever acknowledged"}
