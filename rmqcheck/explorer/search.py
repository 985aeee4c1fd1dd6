""""Shortest path to a property": the normal check (the local engine, as ``rmqcheck check`` runs it) of one
property, in a background thread, with its progress readable while it runs.

The engine's BFS finds a shortest counterexample (an always or graph property violated) or a shortest
witness (a sometimes property reached); its trace becomes the page's path. A property that holds, or a
sometimes property never reached, has no path: the search says so. One search runs at a time (the
machine's cores go to it); its result stays readable until the next one starts.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

RUNNING, DONE, FAILED = "running", "done", "failed"


class SearchBusy(RuntimeError):
    """A search is already running."""


@dataclass
class Search:
    """One search: its property, state (running, done, failed), last progress and, once done, the verdict,
    the path (action labels) and a sentence for the page."""

    id: int
    property: str
    state: str = RUNNING
    progress: dict[str, Any] = field(default_factory=dict)
    status: str = ""
    path: list[str] | None = None
    message: str = ""
    started: float = field(default_factory=time.monotonic)

    def on_progress(self, p: Any) -> None:
        """The engine's listener: keep the latest snapshot (engines call it from their own thread)."""
        self.progress = {"level": p.level, "distinct": p.distinct, "transitions": p.transitions,
                         "frontier": p.frontier, "expanded": p.expanded, "seconds": round(p.seconds, 2)}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "property": self.property, "state": self.state, "progress": self.progress,
                "status": self.status, "path": self.path, "message": self.message,
                "seconds": round(time.monotonic() - self.started, 2)}


class Searches:
    """The searches of one explorer session, run one at a time."""

    def __init__(self, session: Any, limits: Any) -> None:
        self.session = session
        self.limits = limits
        self._lock = threading.Lock()
        self._all: dict[int, Search] = {}
        self._running: Search | None = None

    def start(self, name: str) -> Search:
        """Start the check of property ``name`` (known: the caller checked); :class:`SearchBusy` while
        another runs."""
        with self._lock:
            if self._running is not None and self._running.state == RUNNING:
                raise SearchBusy(f"a search for {self._running.property} is still running; wait for it to end")
            search = Search(len(self._all) + 1, name)
            self._all[search.id] = search
            self._running = search
        threading.Thread(target=self._run, args=(search,), name=f"explorer-search-{search.id}", daemon=True).start()
        return search

    def get(self, search_id: int) -> Search | None:
        return self._all.get(search_id)

    def _run(self, search: Search) -> None:
        from explore.result import REACHED, S_VIOLATED

        from ..engines import build_explorer
        from ..setup import CheckJob

        job = CheckJob(self.session.config, self.session.properties.select([search.property]), self.limits)
        try:
            result = build_explorer(job, "local", search).run()
        except Exception as exc:   # reported on the page; the server goes on
            search.message, search.state = f"the check failed: {type(exc).__name__}: {exc}", FAILED
            return
        if result.error is not None:
            search.message = f"model error: {result.error.message} (action {result.error.action})"
            search.state = FAILED
            return
        prop = result.property(search.property)
        s = result.stats
        explored = f"{s.distinct_states:,} states explored in {s.seconds:.1f} s"
        search.status = prop.status
        if prop.status in (S_VIOLATED, REACHED) and prop.trace is not None:
            search.path = prop.trace.actions
            what = "counterexample" if prop.status == S_VIOLATED else "witness"
            search.message = f"{prop.name} {prop.status}: shortest {what}, {len(prop.trace)} steps ({explored})"
        else:
            why = f": {result.incomplete_reason}" if result.incomplete_reason else ""
            search.message = f"{prop.name} {prop.status}: no path to show ({explored}{why})"
        search.state = DONE
