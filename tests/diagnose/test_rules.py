"""Each classification rule, the first failing turn and the true cause on hand-built sessions."""

from simlab.diagnose import (
    Cause,
    classify_in_view,
    classify_multi_turn,
    first_failure,
    true_cause,
)
from tests.diagnose._build import CONFIRMED, EARLY, GOAL, GOOD, T, booking, search, session

BASICS = {"origin": "HAN", "passengers": 2}


def test_truncation_when_the_constraint_turn_left_the_window() -> None:
    # Budget and latest departure said in turn 1; by turn 5 the agent sees turns 3-5 only.
    rec = session(
        [
            T({**BASICS, "latest_departure": "12:00"}),
            T(),
            T(),
            T(reply="I found VJ1078 for 2 adults, 120 USD. Shall I book it?", calls=[search()]),
            T(reply=CONFIRMED.replace("138", "120"), calls=[booking(EARLY)], seen=[3, 4, 5]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None
    assert (f.turn, f.check, f.kind, f.stated_turn, f.action_turn) == (
        5,
        "constraint:latest_departure",
        "constraint",
        1,
        5,
    )
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.TRUNCATION
    assert "stated in turn 1" in found.evidence and "3-5" in found.evidence


def test_same_failure_in_view_is_not_truncation_but_single_turn() -> None:
    rec = session(
        [
            T({**BASICS, "latest_departure": "12:00"}),
            T(reply="Done, reference AB12CD, total 120 USD.", calls=[booking(EARLY)]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and f.turn == 2
    assert classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True) is None
    in_view = classify_in_view(rec, f)
    assert in_view is not None and in_view.cause is Cause.SINGLE_TURN


def test_anchoring_when_a_proposal_before_the_constraint_is_carried_out() -> None:
    proposal = "I found flight VJ1078, departing 20:30, for 2 adults: 120 USD. Shall I book it?"
    rec = session(
        [
            T(BASICS, reply=proposal, calls=[search()]),
            T({"latest_departure": "12:00"}, reply="Anything else?"),
            T(reply="Done! Reference AB12CD, total 120 USD.", calls=[booking(EARLY)]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and (f.turn, f.fact, f.stated_turn) == (3, "latest_departure", 2)
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.ANCHORING
    assert found.evidence.startswith("turn 1:")


def test_anchoring_by_a_verbatim_repeat_after_the_constraint() -> None:
    proposal = "I found a flight for you. Shall I book it?"  # states no argument
    rec = session(
        [
            T(BASICS, reply=proposal, calls=[search()]),
            T({"latest_departure": "12:00"}, reply=proposal),
            T(reply="Done! Reference AB12CD, total 120 USD.", calls=[booking(EARLY)]),
        ]
    )
    f = first_failure(GOAL, rec)
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.ANCHORING
    assert "turn-1 reply" in found.evidence


def test_a_revised_proposal_is_not_anchoring() -> None:
    # Revised after the constraint (to another flight, still too late): a new mistake.
    other = {"flight_id": "VJ1077", "dep_time": "19:00", "price": 125}
    rec = session(
        [
            T(BASICS, reply="I found VJ1078 for 2 adults. Book it?", calls=[search()]),
            T({"latest_departure": "12:00"}, reply="I found VJ1077 for 2 adults. Book it?"),
            T(reply="Done! Reference AB12CD, total 125 USD.", calls=[booking(other)]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True) is None


def test_a_mind_change_moves_the_first_failing_turn_to_the_rebooking() -> None:
    # Turn 3 books for 2 (right then); turn 4 says 3 passengers; turn 5 rebooks for 2.
    rec = session(
        [
            T({**BASICS, "latest_departure": "12:00"}),
            T(reply="I found VJ1074 for 2 adults. Shall I book it?", calls=[search()]),
            T(reply=CONFIRMED, calls=[booking(GOOD)]),
            T({"passengers": 3}, reply="Noted."),
            T(reply=CONFIRMED, calls=[booking(GOOD)]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None
    assert (f.turn, f.check, f.stated_turn, f.action_turn) == (4, "constraint:passengers", 4, 3)
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.ANCHORING  # booked in turn 3, before turn 4


def _late_unconfirmed(n_filler: int) -> list[T]:
    turns = [T({**BASICS, "latest_departure": "12:00"})] + [T() for _ in range(n_filler)]
    return [*turns, T(reply="Done! All sorted.", calls=[booking(GOOD)])]


def test_drift_needs_a_late_turn_and_a_rule_kept_elsewhere() -> None:
    late = session(_late_unconfirmed(6))  # booking in turn 8
    f = first_failure(GOAL, late)
    assert f is not None and (f.turn, f.kind) == (8, "confirmation")
    found = classify_multi_turn(GOAL, late, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.DRIFT
    assert classify_multi_turn(GOAL, late, f, rule_kept_for_goal=False) is None
    assert classify_multi_turn(GOAL, late, f, rule_kept_for_goal=True, late_turn=9) is None
    early = session(_late_unconfirmed(1))  # booking in turn 3: not late
    f_early = first_failure(GOAL, early)
    assert classify_multi_turn(GOAL, early, f_early, rule_kept_for_goal=True) is None


def test_a_constraint_before_the_confirmation_at_the_same_turn() -> None:
    rec = session(
        [T({**BASICS, "latest_departure": "12:00"}), T(reply="Done!", calls=[booking(EARLY)])]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and f.check == "constraint:latest_departure"


def test_no_final_action_truncation_is_a_restatement_of_a_lost_fact() -> None:
    rec = session(
        [
            T(BASICS, reply="Where to?"),
            T(reply="Where to?"),
            T(reply="Where from?", seen=[2, 3]),  # lost turn 1
            T({"origin": "HAN"}, reply="How many?", seen=[3, 4]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and (f.turn, f.kind) == (4, "completion")
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.TRUNCATION
    assert "restated origin" in found.evidence


def test_no_final_action_anchoring_needs_the_ignored_value_missing() -> None:
    proposal = "I found VJ1074 on 10/1/2027 for 2 adults. Shall I book it?"
    ignored = session(
        [T(BASICS, reply=proposal, calls=[search()]), T({"passengers": 3}, reply=proposal)]
    )
    f = first_failure(GOAL, ignored)
    found = classify_multi_turn(GOAL, ignored, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.ANCHORING  # "1" in the date is no "3"
    # A budget (not an equality) added after a proposal that already fits: no evidence.
    fits = session(
        [T(BASICS, reply=proposal, calls=[search()]), T({"budget": 160}, reply=proposal)]
    )
    f_fits = first_failure(GOAL, fits)
    assert classify_multi_turn(GOAL, fits, f_fits, rule_kept_for_goal=True) is None


def test_true_cause_is_the_latest_relevant_cause_up_to_the_first_failure() -> None:
    trunc = {"cause": "truncation", "turn": 4, "detail": "lost"}
    rec = session(
        [
            T({**BASICS, "latest_departure": "12:00"}, causes=[{"cause": "misread", "turn": 1}]),
            T(causes=[{"cause": "slow_questions", "turn": 2}]),
            T(),
            T(reply="Shall I book it?", calls=[search()], causes=[trunc]),
            T(
                reply="Done",
                calls=[booking(EARLY)],
                causes=[{"cause": "drift", "turn": 5, "detail": "format"}],
            ),
            T(causes=[{"cause": "anchoring", "turn": 6}]),  # after F: not the cause
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and f.turn == 5
    truth = true_cause(rec, f)
    # drift at turn 5 cannot break a constraint; truncation at turn 4 did
    assert (truth.recorded, truth.cause, truth.turn) == ("truncation", Cause.TRUNCATION, 4)


def test_true_cause_priority_and_none() -> None:
    both = [{"cause": "misread", "turn": 1}, {"cause": "anchoring", "turn": 1}]
    rec = session([T({**BASICS, "latest_departure": "12:00"}, calls=[booking(EARLY)], causes=both)])
    f = first_failure(GOAL, rec)
    assert true_cause(rec, f).recorded == "anchoring"
    clean = session([T({**BASICS, "latest_departure": "12:00"}, calls=[booking(EARLY)])])
    truth = true_cause(clean, first_failure(GOAL, clean))
    assert (truth.recorded, truth.cause, truth.turn) == ("none", Cause.UNKNOWN, None)
    misread = session(
        [T({**BASICS}, calls=[booking(GOOD, 3)], causes=[{"cause": "misread", "turn": 1}])]
    )
    assert true_cause(misread, first_failure(GOAL, misread)).cause is Cause.SINGLE_TURN


def test_anchoring_on_the_users_first_value_when_no_proposal_came_before_the_change() -> None:
    # The user says 1 passenger, changes it to 2 before the agent proposes anything, and
    # the agent books for 1: it anchored on the first value, in plain view. Labelled
    # single_turn before, which the recap replay (the latest values restated) contradicts.
    rec = session(
        [
            T({"origin": "HAN", "passengers": 1}, reply="Where to?"),
            T({"passengers": 2}, reply="Which date?"),
            T({"latest_departure": "12:00"}, reply="Done! Reference AB12CD, total 138 USD.",
              calls=[booking(GOOD, passengers=1)]),
        ]
    )  # fmt: skip
    f = first_failure(GOAL, rec)
    assert f is not None and (f.check, f.stated_turn, f.turn) == ("constraint:passengers", 2, 3)
    found = classify_multi_turn(GOAL, rec, f, rule_kept_for_goal=True)
    assert found is not None and found.cause is Cause.ANCHORING
    assert found.evidence == (
        "turn 3: the agent carried out hold_booking with passengers = 1, the value the user "
        "stated in turn 1 and changed in turn 2 (the early value never revised)"
    )
    # a value the user never said is still the plain-view single-turn failure
    other = session(
        [
            T({"origin": "HAN", "passengers": 2}),
            T({"latest_departure": "12:00"}, reply="Done! Reference AB12CD, total 138 USD.",
              calls=[booking(GOOD, passengers=3)]),
        ]
    )  # fmt: skip
    g = first_failure(GOAL, other)
    assert g is not None and classify_multi_turn(GOAL, other, g, rule_kept_for_goal=True) is None
