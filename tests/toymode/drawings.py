"""How the toy mode's traces are drawn (:class:`reports.sequence.Drawings`, named by its registry entry):
three lifelines, every action drawn by its declaration (``drawn=``: the roles are the lifelines); no
drawing reads a step's fields, so :data:`DRAWN` is empty."""
from __future__ import annotations

from typing import Any

from reports.sequence import Drawing, Drawings, Step

LIFELINES = ["client", "primary", "backup"]
DRAWN: dict[str, Drawing] = {}


def _lifelines(view: dict[str, Any]) -> list[str] | None:
    return LIFELINES if "primary.log" in view else None


def _roles(s: Step) -> dict[str, str]:
    return {name: name for name in LIFELINES}


def _declarations() -> Any:
    from .declare import ACTIONS
    return ACTIONS.declarations()


DRAWINGS = Drawings(_lifelines, DRAWN, _roles, _declarations, fallback="client")
