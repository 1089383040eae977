"""ScriptedSimulator: what each user turn says and records, against scripted agent replies."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from simlab.contracts import SimState
from simlab.core import AgentReply, StopSignal, Transcript
from simlab.simulators import DisclosurePlan, ScriptedSimulator, read_reply
from simlab.spec import Goal, Mode, Persona

from .sim_driver import GOOD_ARGS, booking, make_goal, make_persona, play

PERSONA_DIR = Path(__file__).resolve().parents[2] / "personas"
ALL_FACTS = {
    "origin": "HAN",
    "destination": "DAD",
    "date": "2026-12-20",
    "adults": 2,
    "budget": 400,
    "latest": "10:00",
}
REQUIRED_ONLY: list[dict[str, Any]] = [
    {"id": "origin", "slot": "origin", "value": "HAN"},
    {"id": "destination", "slot": "destination", "value": "DAD"},
    {"id": "date", "slot": "date", "value": "2026-12-20"},
    {"id": "adults", "slot": "passengers", "value": 2},
]
QUIET: dict[str, Any] = {"verbosity": 0.0}


def required_goal() -> Goal:
    return make_goal(facts=REQUIRED_ONLY, mind_changes=[], constraints=[])


def test_same_seed_same_turns_other_seed_other_turns() -> None:
    persona = make_persona(verbosity=0.6, change_mind=0.5)
    replies = ["Which date?", "Noted.", "Shall I book it?", "ok"]
    a = play(ScriptedSimulator(persona, make_goal(), Mode.SHARDED, 7), replies, max_turns=8)
    b = play(ScriptedSimulator(persona, make_goal(), Mode.SHARDED, 7), replies, max_turns=8)
    c = play(ScriptedSimulator(persona, make_goal(), Mode.SHARDED, 8), replies, max_turns=8)
    assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
    assert [t.text for t in a] != [t.text for t in c]


def test_next_turn_is_the_async_protocol_entry() -> None:
    persona, goal = make_persona(**QUIET), make_goal()
    sim = ScriptedSimulator(persona, goal, Mode.FULL, 1)
    state = SimState(persona, goal, Mode.FULL, Transcript(), turn=1, max_turns=20)
    turn = anyio.run(sim.next_turn, state)
    assert turn.disclosed == ALL_FACTS


def test_full_mode_states_every_fact_with_the_intent() -> None:
    turn = ScriptedSimulator(make_persona(**QUIET), make_goal(), Mode.FULL, 2).write(
        1, Transcript()
    )
    assert turn.disclosed == ALL_FACTS
    assert turn.text.startswith(("I'd like to book a flight.", "I need to book a trip."))
    for rendered in ("Hanoi.", "Da Nang.", "2 adults.", "400 USD", "10:00"):
        assert rendered in turn.text
    assert "20 December" in turn.text or "December 20" in turn.text
    assert turn.stop is None


def test_vietnamese_rendering() -> None:
    persona = make_persona("vi", style="terse", **QUIET)
    text = ScriptedSimulator(persona, make_goal(), Mode.FULL, 2).write(1, Transcript()).text
    # terse vi has one phrasing per slot: hand-rendered
    for piece in ("Đặt vé máy bay.", "từ Hà Nội", "đến Đà Nẵng", "ngày 20/12", "2 người lớn"):
        assert piece in text
    assert "tối đa 400 USD" in text and "bay trước 10:00" in text


def test_sharded_drip_reveals_one_fact_per_turn_then_nothing() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    turns = play(ScriptedSimulator(persona, required_goal(), Mode.SHARDED, 4), ["Noted."], 5)
    assert [len(t.disclosed) for t in turns] == [1, 1, 1, 1, 0]
    seen = {k: v for t in turns for k, v in t.disclosed.items()}
    assert seen == {f["id"]: f["value"] for f in REQUIRED_ONLY}
    assert turns[4].text == "That's all the information I have."


def test_late_optional_fact_waits_for_its_earliest_turn() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    goal = make_goal(mind_changes=[])
    for seed in range(40):
        plan = DisclosurePlan.draw(persona.traits, goal, Mode.SHARDED, seed)
        turns = play(ScriptedSimulator(persona, goal, Mode.SHARDED, seed), ["Noted."], 14)
        for fact, earliest in plan.earliest.items():
            first = next(i for i, t in enumerate(turns, 1) if fact in t.disclosed)
            assert first >= earliest


def test_planned_mind_change_states_the_new_value() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=2, change_mind=1.0, **QUIET)
    goal = make_goal()
    plan = DisclosurePlan.draw(persona.traits, goal, Mode.SHARDED, 9)
    turns = play(ScriptedSimulator(persona, goal, Mode.SHARDED, 9), ["Noted."], 10)
    first = next(i for i, t in enumerate(turns, 1) if "date" in t.disclosed)
    assert turns[first - 1].disclosed["date"] == "2026-12-20"
    changed = turns[first + plan.changes[0].delay - 1]
    assert changed.disclosed["date"] == "2026-12-21"
    assert "21" in changed.text
    assert (
        "Actually, I changed my mind." in changed.text or "Sorry, change of plan." in changed.text
    )


def test_no_mind_change_when_change_mind_is_zero() -> None:
    persona = make_persona(change_mind=0.0, **QUIET)
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.SHARDED, 9), ["Noted."], 12)
    assert all(t.disclosed.get("date", "2026-12-20") == "2026-12-20" for t in turns)


def test_gives_up_when_patience_runs_out() -> None:
    persona = make_persona(patience=3, **QUIET)
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.FULL, 1), ["Noted."], 10)
    assert [t.stop for t in turns] == [None, None, None, StopSignal.GAVE_UP]
    assert turns[-1].text in (
        "This is taking too long. I'll sort it out myself.",
        "Never mind, I'll try elsewhere.",
    )
    assert turns[-1].disclosed == {}


def test_being_asked_again_costs_patience() -> None:
    persona = make_persona(patience=3, **QUIET)
    # everything was said in turn 1, so "Which date?" asks again: turn 3 is the last straw
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.FULL, 1), ["Which date?", "Noted."])
    assert turns[1].disclosed == {"date": "2026-12-20"}  # restated
    assert [t.stop for t in turns] == [None, None, StopSignal.GAVE_UP]


def test_done_when_the_booking_satisfies_the_user() -> None:
    reply = AgentReply(text="Booked!", tool_calls=[booking(**GOOD_ARGS)])
    turns = play(ScriptedSimulator(make_persona(**QUIET), make_goal(), Mode.FULL, 1), [reply])
    assert len(turns) == 2
    assert turns[1].stop is StopSignal.DONE
    assert turns[1].text in ("Great, that's all I needed. Thanks!", "Perfect, thank you.")


def test_reassert_when_the_booking_breaks_a_constraint() -> None:
    over = AgentReply(text="Booked!", tool_calls=[booking(**{**GOOD_ARGS, "total_price": 520})])
    good = AgentReply(text="Rebooked.", tool_calls=[booking(**GOOD_ARGS)])
    turns = play(ScriptedSimulator(make_persona(**QUIET), make_goal(), Mode.FULL, 1), [over, good])
    assert turns[1].stop is None
    assert turns[1].disclosed == {"budget": 400}
    assert turns[1].text.startswith("That's not what I asked for. ")
    assert "400 USD" in turns[1].text
    assert turns[2].stop is StopSignal.DONE


def test_failed_or_other_tool_calls_are_not_bookings() -> None:
    failed = booking(**GOOD_ARGS).model_copy(update={"error": "sold out"})
    other = booking(**GOOD_ARGS).model_copy(update={"name": "search_flights"})
    reply = AgentReply(text="Hmm.", tool_calls=[failed, other])
    turns = play(ScriptedSimulator(make_persona(**QUIET), make_goal(), Mode.FULL, 1), [reply], 2)
    assert turns[1].stop is None


def test_mind_change_fires_on_seeing_the_booking() -> None:
    persona = make_persona(change_mind=1.0, **QUIET)
    first = AgentReply(text="Booked!", tool_calls=[booking(**GOOD_ARGS)])
    moved = AgentReply(text="Moved.", tool_calls=[booking(**{**GOOD_ARGS, "date": "2026-12-21"})])
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.FULL, 1), [first, moved])
    assert turns[1].stop is None
    assert turns[1].disclosed == {"date": "2026-12-21"}
    assert turns[2].stop is StopSignal.DONE  # the new date is now what the user wants


def test_booking_on_the_old_value_after_a_change_is_reasserted() -> None:
    persona = make_persona(change_mind=1.0, **QUIET)
    first = AgentReply(text="Booked!", tool_calls=[booking(**GOOD_ARGS)])
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.FULL, 1), [first], 3)
    assert turns[2].disclosed == {"date": "2026-12-21"}
    assert turns[2].text.startswith("That's not what I asked for.")


def _seed_where(persona: Persona, goal: Goal, cond: object) -> int:
    return next(
        s
        for s in range(200)
        if cond(DisclosurePlan.draw(persona.traits, goal, Mode.SHARDED, s))  # type: ignore[operator]
    )


def test_an_asked_slot_is_answered() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    goal = required_goal()
    seed = _seed_where(persona, goal, lambda p: p.order[0] != "date")
    turns = play(ScriptedSimulator(persona, goal, Mode.SHARDED, seed), ["Which date?"], 2)
    assert turns[1].disclosed == {"date": "2026-12-20"}


def test_several_slots_asked_at_once_in_vietnamese() -> None:
    persona = make_persona("vi", disclosure="drip", facts_per_turn=1, **QUIET)
    goal = required_goal()
    seed = _seed_where(persona, goal, lambda p: p.order[0] not in ("origin", "date"))
    sim = ScriptedSimulator(persona, goal, Mode.SHARDED, seed)
    turns = play(sim, ["Anh chị bay từ đâu, và bay ngày nào ạ?"], 2)
    assert turns[1].disclosed == {"origin": "HAN", "date": "2026-12-20"}
    assert "Hà Nội" in turns[1].text


def test_asked_for_something_the_goal_lacks_says_none() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    turns = play(ScriptedSimulator(persona, required_goal(), Mode.SHARDED, 1), ["Any children?"], 2)
    assert turns[1].text == "No, none."
    assert turns[1].disclosed == {}


def test_held_back_fact_is_not_given_when_asked() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    goal = make_goal(mind_changes=[])
    seed = _seed_where(persona, goal, lambda p: p.earliest["budget"] > 2)
    plan = DisclosurePlan.draw(persona.traits, goal, Mode.SHARDED, seed)
    turns = play(ScriptedSimulator(persona, goal, Mode.SHARDED, seed), ["What is your budget?"], 2)
    expected = next(f for f in plan.order[1:] if plan.earliest[f] <= 2)
    assert list(turns[1].disclosed) == [expected]


def test_confirmation_is_accepted_once_everything_is_out() -> None:
    sim = ScriptedSimulator(make_persona(**QUIET), make_goal(), Mode.FULL, 1)
    turns = play(sim, ["Flying from Hanoi on 20 Dec. Shall I book it?"], 2)
    assert turns[1].text in ("Yes, please go ahead.", "Yes, that works, go ahead.")
    assert turns[1].disclosed == {}


def test_confirmation_with_facts_left_discloses_them_first() -> None:
    persona = make_persona(disclosure="drip", facts_per_turn=1, **QUIET)
    turns = play(ScriptedSimulator(persona, required_goal(), Mode.SHARDED, 1), ["Shall I?"], 2)
    assert len(turns[1].disclosed) == 1
    assert "go ahead" not in turns[1].text


def test_typos_never_touch_slot_sentences() -> None:
    persona = make_persona(typo_rate=1.0, **QUIET)
    text = ScriptedSimulator(persona, required_goal(), Mode.FULL, 2).write(1, Transcript()).text
    assert not text.startswith(("I'd like to book a flight.", "I need to book a trip."))
    assert "I'm flying from Hanoi." in text or "Departing from Hanoi." in text
    assert "I want to go to Da Nang." in text or "The destination is Da Nang." in text
    assert "We are 2 adults." in text or "It's for 2 adults." in text


def test_chatty_voice_adds_fillers() -> None:
    persona = make_persona(style="chatty", verbosity=1.0)
    text = ScriptedSimulator(persona, make_goal(), Mode.FULL, 2).write(1, Transcript()).text
    fillers = (
        "By the way, it's my first trip this year.",
        "I've been planning this for weeks!",
        "My sister recommended your service.",
    )
    assert any(f in text for f in fillers)


def _persona(pid: str) -> Persona:
    with (PERSONA_DIR / f"{pid}.yaml").open(encoding="utf-8") as fh:
        return Persona.model_validate(yaml.safe_load(fh))


def test_nodiacritics_vi_types_without_accents() -> None:
    persona = _persona("nodiacritics_vi")
    replies = ["Bạn muốn đi đâu?", "Ghi nhận.", "Bạn xác nhận nhé?", "Có trẻ em không?"]
    for seed in range(5):
        for turn in play(ScriptedSimulator(persona, make_goal(), Mode.SHARDED, seed), replies, 8):
            decomposed = unicodedata.normalize("NFD", turn.text)
            assert not any(unicodedata.category(ch) == "Mn" for ch in decomposed), turn.text
            assert "đ" not in turn.text.lower()
    first = ScriptedSimulator(persona, make_goal(), Mode.FULL, 0).write(1, Transcript()).text
    assert "Ha Noi" in first and "Da Nang" in first


def test_unknown_final_tool_fails_at_construction() -> None:
    with pytest.raises(ValueError, match="final_tool 'teleport' has no 'en' opening in domain"):
        ScriptedSimulator(make_persona(), make_goal(final_tool="teleport"), Mode.FULL, 0)


def test_read_reply_prefers_question_sentences() -> None:
    assert read_reply("Noted, flying from Hanoi.").slots == ()  # no "?": not a question
    recap = read_reply("Flying from Hanoi to Da Nang, departure time 08:30. Shall I book it?")
    assert recap.slots == () and recap.confirm
    both = read_reply("You're flying from Hanoi. Which date, and how many adults?")
    assert both.slots == ("date", "passengers")
    fallback = read_reply("I need your departure city. Could you tell me?")
    assert fallback.slots == ("origin",) and not fallback.confirm
    assert read_reply("Điểm đến của bạn là đâu?").slots == ("destination",)
