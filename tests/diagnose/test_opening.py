"""Truncation of the user's opening: the agent lost what the user came for and asks again.

Hand-built travel sessions (the travel domain's ``open_cues``: "how can i help",
"anything else"); the agent reports its view on every reply.
"""

from simlab.diagnose import Cause, classify_multi_turn, first_failure, without_internals
from simlab.spec import shipped_domain
from simlab.store import SessionRecord
from tests.diagnose._build import CONFIRMED, GOAL, GOOD, T, booking, search, session

TRAVEL = shipped_domain("travel")
BASICS = {"origin": "HAN", "passengers": 2}
AGAIN = "Hello! How can I help you today?"
PROPOSAL = "I found VJ1074 for {n} adults, 138 USD. Shall I book it?"


def _classify(rec: SessionRecord) -> tuple[Cause | None, str]:
    f = first_failure(GOAL, rec)
    assert f is not None
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True, domain=TRAVEL)
    return (found.cause, found.evidence) if found else (None, "")


def _asks_again(seen_turn_1: bool) -> SessionRecord:
    """Never books: after turn 2 the agent's view drops turn 1 (or keeps it) and it asks
    what the user wants."""
    return session(
        [
            T(BASICS, reply="Which date would you like to fly?", seen=[1]),
            T(reply="Which date?", seen=[1, 2]),
            T(reply=AGAIN, seen=[1, 2, 3] if seen_turn_1 else [2, 3]),
            T(reply=AGAIN, seen=[1, 3, 4] if seen_turn_1 else [3, 4]),
        ]
    )


def test_a_lost_opening_and_an_open_question_is_truncation() -> None:
    cause, evidence = _classify(_asks_again(seen_turn_1=False))
    assert cause is Cause.TRUNCATION
    assert evidence == (
        "turn 3: the user's opening (turn 1: what they came for) was outside the agent's "
        "context (it saw turns 2-3), and it asked again what the user wants "
        "('How can I help you today?'), and still did in its last reply (turn 4)"
    )


def test_the_same_open_question_with_the_opening_in_view_is_not_truncation() -> None:
    assert _classify(_asks_again(seen_turn_1=True)) == (None, "")


def test_a_black_box_gets_no_such_evidence_from_the_words_alone() -> None:
    rec = without_internals(_asks_again(seen_turn_1=False))
    f = first_failure(GOAL, rec)
    assert classify_multi_turn(GOAL, rec, f, True, domain=TRAVEL) is None
    # the experiment stands in for the view it lacks
    found = classify_multi_turn(GOAL, rec, f, True, window_alone=True, domain=TRAVEL)
    assert found is not None and found.cause is Cause.TRUNCATION
    assert "reports no view" in found.evidence


def test_a_dead_end_before_the_opening_left_is_not_truncation() -> None:
    # Nothing fitted while it saw everything: it offered "anything else" already.
    dead_end = "Sorry, nothing fits your request. Is there anything else I can do?"
    rec = session(
        [
            T(BASICS, reply=dead_end, calls=[search()], seen=[1]),
            T(reply=dead_end, calls=[search()], seen=[1, 2]),
            T(reply=AGAIN, seen=[2, 3]),
        ]
    )
    assert _classify(rec) == (None, "")


def _corrected(took_it_up: bool) -> SessionRecord:
    """Booked for 2; the user says 3 in turn 3; the opening leaves the view in turn 4."""
    turn_3 = PROPOSAL.format(n=3) if took_it_up else "Your booking AB12CD is held."
    return session(
        [
            T(BASICS, reply=PROPOSAL.format(n=2), calls=[search()], seen=[1]),
            T(reply=CONFIRMED, calls=[booking(GOOD)], seen=[1, 2]),
            T({"passengers": 3}, reply=turn_3, seen=[1, 2, 3]),
            T(reply=AGAIN, seen=[2, 3, 4]),
            T(reply=AGAIN, seen=[3, 4, 5]),
        ]
    )


def test_a_correction_taken_up_then_lost_with_the_opening_is_truncation_not_anchoring() -> None:
    rec = _corrected(took_it_up=True)
    f = first_failure(GOAL, rec)
    assert f is not None and (f.kind, f.fact, f.turn, f.stated_turn) == (
        "constraint",
        "passengers",
        3,
        3,
    )
    cause, evidence = _classify(rec)
    assert cause is Cause.TRUNCATION
    assert evidence.startswith("turn 4: the user's opening (turn 1: what they came for)")
    assert "(it saw turns 2-4)" in evidence


def test_a_correction_ignored_while_the_opening_was_in_view_stays_anchoring() -> None:
    # It never took the 3 up while it still saw everything: losing the opening later
    # does not explain the booking for 2.
    cause, evidence = _classify(_corrected(took_it_up=False))
    assert cause is Cause.ANCHORING, evidence
