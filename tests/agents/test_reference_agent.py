"""The reference agent end to end: v2 solves the goals; each v1 defect and its true cause."""

from __future__ import annotations

from typing import Any

import pytest

from simlab.agents.reference import (
    PRESETS,
    AgentConfig,
    DomainSkill,
    Plan,
    ReferenceAgent,
    reference_agent,
)
from simlab.core import AgentReply, Knobs, ToolCall, strip_diacritics
from simlab.graders import violations
from simlab.simulators._voice import render_value
from simlab.spec import FactValue, Goal, shipped_domain

from .talk import chat, load_goal, travel_cues

ASK_CUES, CONFIRM_CUES = travel_cues()

GOALS = [
    "one_way",
    "round_trip_hotel",
    "family_child",
    "change_date",
    "refund",
    "baggage_allowance",
]
BOOK = "I'd like to book a flight. I'm flying from Hanoi. I want to go to Da Nang. "
YES = "Yes, please go ahead."
TRAVEL = shipped_domain("travel")


def say(slot: str, value: FactValue, lang: str = "en") -> str:
    """A goal value in the travel domain's first neutral phrasing of its slot."""
    spec = TRAVEL.slot(slot)
    assert spec is not None, slot
    template = spec.say[lang].state["neutral"][0]
    return template.format_map(render_value(spec, value, lang, TRAVEL.languages[lang].month_names))


def full_message(goal: Goal, wants: dict[str, FactValue], lang: str) -> str:
    intent = TRAVEL.intent(goal.final_tool)
    assert intent is not None, goal.final_tool
    opening = intent.openings[lang]["neutral"][0]
    slot_of = {f.id: f.slot for f in goal.facts}
    return " ".join([opening] + [say(slot_of[fid], v, lang) for fid, v in wants.items()])


def final_call(replies: list[AgentReply], tool: str) -> Any:
    calls = [c for r in replies for c in r.tool_calls if c.name == tool and c.error is None]
    return calls[-1] if calls else None


def causes(replies: list[AgentReply], kind: str) -> list[dict[str, Any]]:
    return [c for r in replies for c in r.meta["true_causes"] if c["cause"] == kind]


def is_question_for(text: str, slot: str) -> bool:
    low = strip_diacritics(text).lower()
    return "?" in text and any(strip_diacritics(c) in low for c in ASK_CUES[slot])


def wants_after_changes(goal: Goal, n_changes: int) -> dict[str, FactValue]:
    wants = {f.id: f.value for f in goal.facts}
    for change in goal.mind_changes[:n_changes]:
        wants[change.fact] = change.value
    return wants


@pytest.mark.parametrize("lang", ["en", "vi", "vi-stripped"])
@pytest.mark.parametrize("goal_id", GOALS)
def test_full_information_is_solved_by_v2(goal_id: str, lang: str) -> None:
    goal = load_goal(goal_id)
    for n_changes in range(len(goal.mind_changes) + 1):  # satisfiable after every mind change
        wants = wants_after_changes(goal, n_changes)
        first = full_message(goal, wants, lang[:2])
        if lang == "vi-stripped":
            first = strip_diacritics(first)
        replies = chat(reference_agent("v2", 7), [first, YES])
        call = final_call(replies, goal.final_tool)
        assert call is not None, replies[-1].text
        assert violations(goal, call, wants) == []
        stated = replies[-1].text.lower() if goal.final_tool != "baggage_policy" else ""
        stated = stated or next(
            r.text for r in replies if r.tool_calls and r.tool_calls[-1] is call
        )
        for field in goal.confirm_fields:
            assert str(call.result[field]).lower() in stated.lower(), (field, stated)
        if goal.final_tool != "baggage_policy":  # a write waits for the go-ahead
            assert "?" in replies[0].text
            assert any(cue in replies[0].text.lower() for cue in CONFIRM_CUES)
            assert final_call(replies[:1], goal.final_tool) is None


@pytest.mark.parametrize("goal_id", ["one_way", "round_trip_hotel", "family_child", "change_date"])
def test_constraints_bite(goal_id: str) -> None:
    """Dropping the latest departure books a flight that breaks it, so ignoring it fails."""
    goal = load_goal(goal_id)
    wants = wants_after_changes(goal, 0)
    loose = {k: v for k, v in wants.items() if k != "latest_departure"}
    replies = chat(reference_agent("v2", 7), [full_message(goal, loose, "en"), YES])
    broken = violations(goal, final_call(replies, goal.final_tool), wants)
    assert [c.fact for c in broken] == ["latest_departure"]


def test_budget_bites_on_the_earliest_flight() -> None:
    # one_way: the 06:00 flight costs 2 x 88 = 176 > 160.
    goal = load_goal("one_way")
    replies = chat(
        ReferenceAgent(), [BOOK + "I want to leave on 20 December. We are 2 adults.", YES]
    )
    day = Plan(
        "search_flights", (("origin", "HAN"), ("destination", "DAD"), ("date", "2026-12-20"))
    )
    first = DomainSkill(TRAVEL).execute(day).result[0]
    assert (first["dep_time"], first["price_adult"]) == ("06:00", 88)
    # the hold of the earliest flight for two, as the domain's rules price it
    earliest = ToolCall(
        name="hold_booking",
        args={"flight_id": first["id"], "passengers": 2},
        result={"dep_time": first["dep_time"], "total_price": 2 * first["price_adult"]},
    )
    assert [c.fact for c in violations(goal, earliest, {"budget": 160})] == ["budget"]
    assert final_call(replies, "hold_booking").result["total_price"] == 106


def test_v2_asks_for_every_missing_slot_at_once_in_the_users_language() -> None:
    (en,) = chat(reference_agent("v2", 1), ["I'd like to book a flight."])
    assert all(is_question_for(en.text, s) for s in ("origin", "destination", "date", "passengers"))
    assert en.meta["true_causes"] == ()
    (vi,) = chat(reference_agent("v2", 1), ["Toi muon dat ve may bay."])
    assert all(is_question_for(vi.text, s) for s in ("origin", "destination", "date", "passengers"))
    assert "bạn" in vi.text.lower()


def test_one_question_per_turn_is_slow_and_says_so() -> None:
    (reply,) = chat(ReferenceAgent(AgentConfig(one_question_per_turn=True)), ["Book a flight."])
    asked = [
        s for s in ("origin", "destination", "date", "passengers") if is_question_for(reply.text, s)
    ]
    assert asked == ["origin"]
    (cause,) = causes([reply], "slow_questions")
    assert cause["turn"] == 1 and "destination, date, passengers" in cause["detail"]


def test_later_statement_overrides_and_v2_rebooks() -> None:
    msgs = [
        BOOK + "I want to leave on 20 December. We are 2 adults.",
        YES,
        "Actually, I changed my mind. I want to leave on 21 December.",
    ]
    replies = chat(reference_agent("v2", 3), msgs)
    holds = [c for r in replies for c in r.tool_calls if c.name == "hold_booking"]
    assert [h.result["date"] for h in holds] == ["2026-12-20", "2026-12-21"]


TRUNCATION_TALK = [
    "I'd like to book a flight. My budget is 150 USD in total.",
    "I'm flying from Hanoi.",
    "I want to go to Da Nang.",
    "I want to leave on 20 December.",
    "The flight must leave no later than 12:00. We are 2 adults.",
]


def test_context_window_drops_an_early_budget() -> None:
    replies = chat(ReferenceAgent(AgentConfig(context_window=4)), TRUNCATION_TALK)
    # Without turn 1 the agent proposes the 10:15 flight at 2 x 76 = 152 > 150.
    assert "VJ1078" in replies[-1].text and "152 USD" in replies[-1].text
    (cause,) = causes(replies, "truncation")
    assert cause["turn"] == 5 and "budget=150 (turn 1)" in cause["detail"]
    assert replies[-1].context is not None and replies[-1].context.seen_user_turns == (
        2,
        3,
        4,
        5,
    )


@pytest.mark.parametrize("knobs", [Knobs(context_window=0), Knobs(constraint_recap=True)])
def test_knobs_defeat_truncation(knobs: Knobs) -> None:
    replies = chat(ReferenceAgent(AgentConfig(context_window=4)), TRUNCATION_TALK, knobs)
    assert "150 USD" in replies[-1].text and "152" in replies[-1].text  # over budget, says so
    assert not replies[-1].tool_calls or replies[-1].tool_calls[-1].name == "search_flights"
    assert "?" in replies[-1].text and not any(c in replies[-1].text.lower() for c in CONFIRM_CUES)
    assert causes(replies, "truncation") == []


def test_a_request_told_by_its_facts_alone_is_lost_with_them_and_says_so() -> None:
    # no intent word: the request is inferred from the facts; once the window has dropped
    # them the agent greets again, and its hidden truth says why
    talk = ["I'm flying from Hanoi. I want to go to Da Nang.", "Hmm.", "Well."]
    replies = chat(ReferenceAgent(AgentConfig(context_window=2)), talk)
    assert replies[0].text != replies[-1].text
    (cause,) = causes(replies, "truncation")
    assert cause["turn"] == 3 and "origin=HAN (turn 1)" in cause["detail"]
    assert causes(chat(ReferenceAgent(AgentConfig(context_window=0)), talk), "truncation") == []


def test_v2_sees_the_early_budget() -> None:
    replies = chat(reference_agent("v2", 0), TRUNCATION_TALK)
    assert "comes to 152 USD, above your limit of 150 USD" in replies[-1].text


ANCHOR_TALK = [
    BOOK + "I want to leave on 20 December. We are 2 adults.",
    "The flight must leave no later than 12:00.",
    YES,
]


def test_anchoring_keeps_the_first_proposal() -> None:
    replies = chat(ReferenceAgent(AgentConfig(anchoring=True)), ANCHOR_TALK)
    assert "VJ1080" in replies[0].text and "VJ1080" in replies[1].text  # 20:30, never revised
    assert final_call(replies, "hold_booking").args["flight_id"] == "VJ1080"
    (cause,) = causes(replies, "anchoring")
    assert cause["turn"] == 2 and "VJ1078" in cause["detail"]


def test_v2_revises_the_proposal() -> None:
    replies = chat(reference_agent("v2", 0), ANCHOR_TALK)
    assert "VJ1078" in replies[1].text
    assert final_call(replies, "hold_booking").result["dep_time"] == "10:15"


def test_anchoring_rebooks_the_same_flight_after_a_correction() -> None:
    talk = [
        ANCHOR_TALK[0],
        YES,
        "That's not what I asked for. The flight must leave no later than 12:00.",
    ]
    replies = chat(ReferenceAgent(AgentConfig(anchoring=True)), talk)
    holds = [c.args["flight_id"] for r in replies for c in r.tool_calls if c.name == "hold_booking"]
    assert holds == ["VJ1080", "VJ1080"]
    assert [c["turn"] for c in causes(replies, "anchoring")] == [3]
    fixed = chat(reference_agent("v2", 0), talk)
    assert [
        c.args["flight_id"] for r in fixed for c in r.tool_calls if c.name == "hold_booking"
    ] == [
        "VJ1080",
        "VJ1078",
    ]


DRIFT_TALK = [
    "I'd like to book a flight.",
    "I'm flying from Hanoi. I want to go to Da Nang.",
    "I want to leave on 20 December. We are 2 adults.",
    YES,
]


def test_drift_drops_the_reference_and_total() -> None:
    replies = chat(ReferenceAgent(AgentConfig(drift_after_turns=3)), DRIFT_TALK)
    result = final_call(replies, "hold_booking").result
    assert result["reference"] not in replies[-1].text and "106" not in replies[-1].text
    (cause,) = causes(replies, "drift")
    assert cause["turn"] == 4


def test_instruction_reminder_defeats_drift() -> None:
    agent = ReferenceAgent(AgentConfig(drift_after_turns=3))
    replies = chat(agent, DRIFT_TALK, Knobs(instruction_reminder=True))
    result = final_call(replies, "hold_booking").result
    assert result["reference"] in replies[-1].text and "106 USD" in replies[-1].text
    assert causes(replies, "drift") == []


def test_misread_date_is_off_by_one_and_recorded() -> None:
    (reply,) = chat(
        ReferenceAgent(AgentConfig(misread_rate=1.0)), [BOOK + "I want to leave on 20 December."]
    )
    assert any(
        c["detail"] == "date 2026-12-20 read as 2026-12-21" for c in causes([reply], "misread")
    )


def test_children_question_answered_without_children_means_none() -> None:
    talk = [BOOK + "I want to leave on 20 December.", "We are 2 adults. No, none.", YES]
    replies = chat(reference_agent("v2", 0), talk)
    assert is_question_for(replies[0].text, "children")
    assert final_call(replies, "hold_booking").result["children"] == 0


def test_same_seed_same_conversation() -> None:
    talk = [
        *TRUNCATION_TALK,
        YES,
        "Actually, I changed my mind. I want to leave on 19 December.",
        YES,
    ]
    noisy = AgentConfig(context_window=3, misread_rate=0.3, one_question_per_turn=True)
    a = chat(ReferenceAgent(noisy, seed=11), talk)
    b = chat(ReferenceAgent(noisy, seed=11), talk)
    assert [r.model_dump() for r in a] == [r.model_dump() for r in b]
    others = [chat(ReferenceAgent(noisy, seed=s), talk) for s in range(12, 20)]
    assert any([r.model_dump() for r in o] != [r.model_dump() for r in a] for o in others)


def test_presets_and_capabilities() -> None:
    assert PRESETS["v1"].anchoring and PRESETS["v1"].context_window == 4
    assert PRESETS["v2"] == AgentConfig()
    agent = reference_agent("v1", 0)
    assert agent.capabilities.context_window and agent.capabilities.constraint_recap
    assert agent.capabilities.instruction_reminder
    with pytest.raises(ValueError, match="choose from"):
        reference_agent("v9", 0)
