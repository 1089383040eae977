"""Specific verification (every replay on every failure) and the black-box view, by hand."""

from __future__ import annotations

import pytest

from simlab.diagnose import (
    REPLAYS,
    Cause,
    Replay,
    classify_in_view,
    classify_multi_turn,
    first_failure,
    fixes,
    specific_verdict,
    without_internals,
)
from simlab.store import SessionRecord
from tests.diagnose._build import CONFIRMED, EARLY, GOAL, T, booking, search, session

BASICS = {"origin": "HAN", "passengers": 2}
W, R, ONE, TOLD, D = REPLAYS  # window, reminder, one turn, one turn as told, agent redrawn


def _fixed(*which: Replay) -> dict[Replay, bool | None]:
    return {r: r in which for r in REPLAYS}


@pytest.mark.parametrize(
    ("fixed_by", "verified"),
    [
        ((W,), {Cause.TRUNCATION}),
        ((W, ONE, TOLD), {Cause.TRUNCATION}),  # one turn also ends a truncation
        ((R,), {Cause.DRIFT}),
        ((R, ONE), {Cause.DRIFT}),
        ((ONE,), {Cause.ANCHORING}),
        ((ONE, TOLD), set()),  # one turn fixes it whatever the later changes: not specific
        ((ONE, D), set()),  # a re-drawn agent fixes it too: a bad draw, not anchoring
        ((W, R), set()),  # two narrow fixes: neither is specific
        ((), {Cause.SINGLE_TURN}),
        ((D,), {Cause.SINGLE_TURN}),  # a misread fails in one turn with the same draws
        ((TOLD,), {Cause.SINGLE_TURN}),  # the settled one turn still fails
    ],
)
def test_a_cause_is_verified_only_when_its_own_replay_alone_fixes_the_failure(
    fixed_by: tuple[Replay, ...], verified: set[Cause]
) -> None:
    got = {c for c in Cause if specific_verdict(c, _fixed(*fixed_by))[0]}
    assert got == verified


def test_a_replay_in_error_or_a_missing_knob_cannot_verify() -> None:
    fixed = _fixed(W)
    fixed[R] = None
    ok, why = specific_verdict(Cause.TRUNCATION, fixed)
    assert not ok and "instruction_reminder replay ended in error" in why
    fixed = {r: v for r, v in _fixed(ONE).items() if r != W}
    ok, why = specific_verdict(Cause.ANCHORING, fixed, {W: "context_window"})
    assert not ok and "does not honour context_window" in why
    assert specific_verdict(Cause.UNKNOWN, _fixed(ONE)) == (False, "nothing to verify")
    ok, why = specific_verdict(Cause.ANCHORING, _fixed(ONE))
    assert ok and why.startswith("fixed by one_turn; not by unlimited_window")


def _truncated() -> SessionRecord:
    # Latest departure said in turn 1; by turn 5 the agent sees turns 3-5 only.
    return session(
        [
            T({**BASICS, "latest_departure": "12:00"}),
            T(),
            T(),
            T(reply="I found VJ1078 for 2 adults, 120 USD. Shall I book it?", calls=[search()]),
            T(reply=CONFIRMED.replace("138", "120"), calls=[booking(EARLY)], seen=[3, 4, 5]),
        ]
    )


def test_fixes_reads_the_located_check_and_an_action_no_longer_taken() -> None:
    rec = _truncated()
    f = first_failure(GOAL, rec)
    assert f is not None and f.check == "constraint:latest_departure"
    assert fixes(f, rec) is False  # the same session: nothing fixed
    no_action = session([T({**BASICS, "latest_departure": "12:00"}), T(), T()])
    assert fixes(f, no_action) is True  # no action breaks the constraint any more
    assert fixes(f, no_action.model_copy(update={"status": "error"})) is None


def test_without_internals_keeps_words_and_tool_calls_only() -> None:
    rec = _truncated()
    box = without_internals(rec)
    for mine, theirs in zip(box.transcript.turns, rec.transcript.turns, strict=True):
        if theirs.agent is None:
            continue
        assert mine.agent is not None and mine.agent.context is None and mine.agent.meta == {}
        assert mine.agent.text == theirs.agent.text
        assert mine.agent.tool_calls == theirs.agent.tool_calls
    assert rec.transcript.turns[4].agent is not None
    assert rec.transcript.turns[4].agent.context is not None  # the original is untouched


def test_a_black_box_truncation_is_told_by_the_window_replay_alone() -> None:
    box = without_internals(_truncated())
    f = first_failure(GOAL, box)
    assert f is not None
    # Without the view, the transcript alone cannot say truncation...
    assert classify_multi_turn(GOAL, box, f, rule_kept_for_goal=True) is None
    # ...the experiment can: the unlimited window fixes it and the reminder does not.
    found = classify_multi_turn(GOAL, box, f, rule_kept_for_goal=True, window_alone=True)
    assert found is not None and found.cause is Cause.TRUNCATION
    assert "unlimited-window replay fixes" in found.evidence
    assert classify_multi_turn(GOAL, box, f, rule_kept_for_goal=True, window_alone=False) is None
    # A window that does not fix it means the fact was in view: a single-turn failure.
    in_view = classify_in_view(box, f, window_fixes=False)
    assert in_view is not None and in_view.cause is Cause.SINGLE_TURN
    assert classify_in_view(box, f, window_fixes=None) is None
    # A target that reports its view is judged by the view, whatever the replays say.
    seen = classify_multi_turn(GOAL, _truncated(), f, rule_kept_for_goal=True, window_alone=False)
    assert seen is not None and seen.cause is Cause.TRUNCATION
