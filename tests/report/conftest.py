"""A small hand-built run: 2 personas x 2 modes x 3 reps of one goal, one error."""

from __future__ import annotations

import pytest

from simlab.core import Check, SessionKey
from simlab.spec import Bucket
from simlab.store import SessionRecord, StopReason

BUCKETS = [
    Bucket(name="2-4", min=2, max=4),
    Bucket(name="5-9", min=5, max=9),
    Bucket(name="10+", min=10),
]


def record(
    persona: str,
    mode: str,
    rep: int,
    score: float | None,
    turns: int,
    stop: StopReason | None = None,
    *,
    planned: int | None = -1,
    **extra: object,
) -> SessionRecord:
    """An ok session passing iff score == 100, or an error session when score is None.

    Its planned length is ``turns`` unless ``planned`` is given (None: no plan).
    """
    extra["planned_turns"] = turns if planned == -1 else planned
    key = SessionKey(persona=persona, goal="g", mode=mode, rep=rep)
    if score is None:
        return SessionRecord(
            key=key,
            seed=rep,
            status="error",
            stop_reason=stop or StopReason.INFRA_ERROR,
            n_user_turns=turns,
            **extra,
        )
    passed = score == 100
    default = StopReason.GOAL_REACHED if passed else StopReason.MAX_TURNS
    return SessionRecord(
        key=key,
        seed=rep,
        status="ok",
        stop_reason=stop or default,
        n_user_turns=turns,
        score=score,
        passed=passed,
        **extra,
    )


def small_run(alice: str = "alice") -> list[SessionRecord]:
    """The run every report test reads; cells worked by hand in test_report_summary."""
    gave_up = StopReason.USER_GAVE_UP
    return [
        record(alice, "full", 0, 100, 1),
        record(alice, "full", 1, 50, 3),
        record(alice, "full", 2, 0, 6),
        record(alice, "sharded", 0, 100, 5),
        record(alice, "sharded", 1, 100, 6, meta={"retries": 1}),
        record(alice, "sharded", 2, 80, 12),
        record("bob", "full", 0, 100, 2),
        record("bob", "full", 1, 0, 4),
        record("bob", "full", 2, None, 3, error="HTTP 503 | <upstream> `x`", meta={"retries": 2}),
        # gave up on a wrong booking (the final action exists)...
        record("bob", "sharded", 0, 60, 10, gave_up, checks={"goal_completed": Check(passed=True)}),
        # ...and before the agent did anything (no final action)
        record("bob", "sharded", 1, 90, 11),
        record("bob", "sharded", 2, 30, 4, gave_up),
    ]


@pytest.fixture
def records() -> list[SessionRecord]:
    return small_run()
