"""What an exploration produces: outcome, statistics, one verdict per property, traces.

Engine-neutral: the local and the Spark explorers fill the same objects, and ``reports/`` renders them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASSED = "passed"
VIOLATED = "violated"
INCOMPLETE = "incomplete"
ERROR = "error"

HOLDS = "holds"
S_VIOLATED = "violated"
REACHED = "reached"
UNREACHED = "unreached"
UNKNOWN = "unknown"

INITIAL_ACTION = "INIT"


@dataclass
class Step:
    """One step of a trace: the action that led here (``INIT`` for the initial state) and the state."""

    index: int
    action: str
    state: tuple[int, ...]
    view: dict[str, Any]
    changes: dict[str, list[Any]]
    outcome: str = ""
    action_index: int = -1


@dataclass
class Trace:
    """A path of the model from an initial state, rebuilt by replaying its actions."""

    steps: list[Step]

    def __len__(self) -> int:
        """Number of actions (the initial state is not an action)."""
        return max(len(self.steps) - 1, 0)

    @property
    def actions(self) -> list[str]:
        return [s.action for s in self.steps[1:]]


@dataclass
class PropertyResult:
    name: str
    kind: str
    status: str
    summary: str = ""
    trace: Trace | None = None
    note: str = ""
    loop_start: int | None = None   # an eventually property's lasso: the trace repeats from this step for ever
    fairness: Any = None            # an eventually property's invariants.base.Fairness


@dataclass
class Stats:
    distinct_states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    states_per_second: float = 0.0
    peak_rss_bytes: int = 0
    levels: list[int] = field(default_factory=list)
    exact: bool = True                   # the visited set is keyed on whole states (or a bijection of them)
    collision_probability: float = 0.0   # only non-zero for a hash-keyed visited set
    visited: str = "exact"               # the local engine's visited set: exact (whole states) or compact
    visited_note: str = ""               # why the visited set is not the one asked for (one line), if so
    unexpanded: int = 0                  # states left unexpanded because they violate every property checked
    level_engines: list[str] = field(default_factory=list)   # where each level ran (spark: driver/cluster)
    level_seconds: list[float] = field(default_factory=list)
    stopped_early: bool = False          # ended with states unexpanded because every property was settled
    stop_reason: str | None = None       # why, when stopped_early
    coverage: dict[str, dict[str, int]] = field(default_factory=dict)   # action kind -> transitions, new_states
    terminal_states: int = 0             # expanded states with no enabled action
    pruned_transitions: int = 0          # successor rows a bound of the model left out
    pruned_reasons: dict[str, int] = field(default_factory=dict)   # reason -> pruned transitions
    #: the resident memory the run added (the process's peak less its resident memory when the run started),
    #: per distinct state: what a state costs, the visited set, edges, level buffers and threads included
    bytes_per_state: float = 0.0
    disk_bytes: int = 0                  # what the run keeps on disk (a Spark work directory, a compact run's links)


@dataclass
class ModelError:
    """An exception or error flag raised by model code: the state it happened in and the action."""

    message: str
    action: str
    state_view: dict[str, Any]
    trace: Trace | None = None


@dataclass
class CheckResult:
    engine: str
    outcome: str
    stats: Stats
    properties: list[PropertyResult]
    config: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    incomplete_reason: str = ""
    error: ModelError | None = None
    terminal_trace: Trace | None = None   # shortest path to a terminal state (smallest key at its depth)
    #: what the verdicts rest on: the counts and failure budgets (explore.faults.bounds; as faults writes them)
    bounds: dict[str, Any] = field(default_factory=dict)
    #: ``check --next-bound``: the exploration with one more message and the verdicts that move there
    next_bound: dict[str, Any] | None = None

    def property(self, name: str) -> PropertyResult:
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    def verdicts(self) -> dict[str, str]:
        return {p.name: p.status for p in self.properties}

    def above_state_limit(self) -> bool:
        """Whether the space has more states than the state limit let the run keep (the engines stop at
        the last whole level, so the count alone may be below the limit)."""
        return self.incomplete_reason.startswith(STATE_LIMIT_PREFIX)


STATE_LIMIT_PREFIX = "state limit "


def state_limit_reason(max_states: int) -> str:
    return f"{STATE_LIMIT_PREFIX}{max_states} reached"


def outcome_of(properties: list[PropertyResult], incomplete_reason: str, error: ModelError | None) -> str:
    """error > violated (a definite violation, or a sometimes property never reached) > incomplete > passed."""
    if error is not None:
        return ERROR
    if any(p.status in (S_VIOLATED, UNREACHED) for p in properties):
        return VIOLATED
    if incomplete_reason:
        return INCOMPLETE
    return PASSED
