"""Why a toy property fails: its conditions on the last state of a trace (:mod:`invariants.explain`)."""
from __future__ import annotations

from typing import Any

from invariants.explain import LASSO_PREFIX, Condition, Explainers, History


class Reading:
    def __init__(self, model: Any, view: dict[str, Any], history: History) -> None:
        self.model, self.view, self.history = model, view, history


def acked_write_kept(r: Reading) -> list[Condition]:
    acked, log = r.view["client.acked"], r.view["primary.log"]
    fields = {"client.acked": acked, "primary.log": log}
    return [Condition(f"the client was told ok for {acked} write(s); the primary's log holds "
                      f"{r.history.annotated('primary.log', log)}", acked <= log, fields)]


def write_reaches_backup(r: Reading) -> list[Condition]:
    log, backup = r.view["primary.log"], r.view["backup.log"]
    return [Condition(f"the backup holds {backup} of the primary's {log} message(s)", backup >= log,
                      {"primary.log": log, "backup.log": backup})]


EXPLAINED = Explainers({f.__name__: f for f in (acked_write_kept, write_reaches_backup)}, Reading,
                       {"write_reaches_backup": LASSO_PREFIX})
