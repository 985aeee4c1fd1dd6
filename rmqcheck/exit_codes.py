"""The exit codes of every ``rmqcheck`` command (model-scope.md), and how a result maps to one."""
from __future__ import annotations

from explore.result import ERROR, INCOMPLETE, PASSED, VIOLATED

EXIT_OK = 0            # every property as expected (gate: every verdict as in the baseline)
EXIT_VIOLATED = 1      # a property violated (gate: a verdict differs from the baseline)
EXIT_BAD_INPUT = 2     # unknown name, bad value, unreadable file, conflicting options...
EXIT_INCOMPLETE = 3    # a limit was hit before the state space was exhausted
EXIT_MODEL_ERROR = 4   # model code failed: a bug in the model, not in RocketMQ

EXIT_FOR_OUTCOME = {PASSED: EXIT_OK, VIOLATED: EXIT_VIOLATED, INCOMPLETE: EXIT_INCOMPLETE,
                    ERROR: EXIT_MODEL_ERROR}

#: when several configurations run (matrix), the most serious outcome decides the exit code
OUTCOME_SEVERITY = (ERROR, VIOLATED, INCOMPLETE, PASSED)


def worst_outcome(outcomes: list[str]) -> str:
    """The most serious of ``outcomes``: error > violated > incomplete > passed."""
    for outcome in OUTCOME_SEVERITY:
        if outcome in outcomes:
            return outcome
    return PASSED
