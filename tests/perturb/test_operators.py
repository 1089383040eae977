"""Each operator's effect on a user turn (text and disclosed facts), in English and Vietnamese."""

from __future__ import annotations

import pytest

from simlab.simulators import canary_for
from simlab.simulators._voice import fast_strip
from simlab.spec import Language, Mode, shipped_domain

from .driver import LIBRARY, pinned, run, user_seed

LANGS: list[Language] = ["en", "vi"]
# one_way in full mode with a plain persona: turn 1 states all six facts, the
# agent proposes the 10:15 flight, turn 2 says yes, turn 3 sees the booking.
ALL_FACTS = {
    "date": "2026-12-20",
    "origin": "HAN",
    "destination": "DAD",
    "passengers": 2,
    "budget": 160,
    "latest_departure": "12:00",
}


def _baseline(lang: Language) -> list[str]:
    return [t.user.text for t in run(lang, "one_way", Mode.FULL, []).transcript.turns]


@pytest.mark.parametrize("lang", LANGS)
def test_unperturbed_session_is_the_reference(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [])
    turns = record.transcript.turns
    assert record.passed and record.n_user_turns == 3
    assert turns[0].user.disclosed == ALL_FACTS
    assert all(t.user.perturbations == () for t in turns)


@pytest.mark.parametrize("lang", LANGS)
def test_typos_hit_entity_words_but_not_disclosed_facts(lang: Language) -> None:
    base = _baseline(lang)
    record = run(lang, "one_way", Mode.FULL, [pinned("typos", 1, rate=1.0)])
    first = record.transcript.turns[0].user
    city = "Hanoi" if lang == "en" else "Hà Nội"
    assert city in base[0] and city not in first.text  # an entity word was mangled
    assert first.disclosed == ALL_FACTS  # the user still stated them
    assert first.perturbations == ("typos",)
    for number in ("20", "160", "12:00"):  # digits are never touched
        assert number in first.text
    assert not record.passed  # nothing readable is left for the agent


def test_typos_land_from_their_turn_on_and_leave_earlier_turns_alone() -> None:
    base = _baseline("en")
    record = run("en", "one_way", Mode.FULL, [pinned("typos", 2, rate=1.0)])
    turns = record.transcript.turns
    assert turns[0].user.text == base[0] and turns[0].user.perturbations == ()
    assert turns[1].user.text != base[1] and turns[1].user.perturbations == ("typos",)


def test_stripped_diacritics_in_vietnamese_and_a_no_op_in_english() -> None:
    vi_base = _baseline("vi")
    vi = run("vi", "one_way", Mode.FULL, [pinned("strip_diacritics", 1)])
    texts = [t.user.text for t in vi.transcript.turns]
    # every message sent is stripped; the closing DONE is never sent, so left alone
    assert texts[:-1] == [fast_strip(t) for t in vi_base[:-1]] and texts[-1] == vi_base[-1]
    assert "Ha Noi" in vi.transcript.turns[0].user.text
    assert vi.transcript.turns[0].user.perturbations == ("strip_diacritics",)
    assert vi.passed  # the reference agent reads accentless Vietnamese
    en = run("en", "one_way", Mode.FULL, [pinned("strip_diacritics", 1)])
    assert [t.user.text for t in en.transcript.turns] == _baseline("en")
    assert all(t.user.perturbations == () for t in en.transcript.turns)  # never changed a thing


@pytest.mark.parametrize("lang", LANGS)
def test_goal_change_switches_to_the_goals_alternative_value(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [pinned("goal_change", 2)])
    second = record.transcript.turns[1].user
    assert second.disclosed == {"date": "2026-12-19"}  # one_way's declared mind change
    assert second.perturbations == ("goal_change",)
    assert any(second.text.startswith(lead) for lead in LIBRARY["goal_change"].phrasings[lang])
    assert "19" in second.text
    # the final action must satisfy the NEW value, stated in turn 2; v2 does
    assert record.checks["constraint:date"].turn == 2
    assert record.passed


@pytest.mark.parametrize("lang", LANGS)
def test_contradiction_becomes_the_fact_to_satisfy(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [pinned("contradiction", 2)])
    second = record.transcript.turns[1].user
    assert second.disclosed == {"passengers": 1}  # 2 adults contradicted: delta -1
    assert any(second.text.startswith(lead) for lead in LIBRARY["contradiction"].phrasings[lang])
    assert record.checks["constraint:passengers"].turn == 2
    assert record.passed
    booked = [c for _, c in record.transcript.tool_calls() if c.name == "hold_booking"]
    assert booked[-1].args["passengers"] == 1


def test_contradiction_breaks_the_anchoring_agent() -> None:
    # v1 proposed for two adults before the contradiction and never revises
    record = run("en", "one_way", Mode.FULL, [pinned("contradiction", 2)], version="v1")
    assert not record.passed
    assert not record.checks["constraint:passengers"].passed


@pytest.mark.parametrize("lang", LANGS)
def test_ambiguity_states_a_fact_vaguely_until_asked(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [pinned("ambiguity", 1)])
    first, second = (t.user for t in record.transcript.turns[:2])
    assert "date" not in first.disclosed  # the vague date is not a stated value
    assert first.disclosed == {k: v for k, v in ALL_FACTS.items() if k != "date"}
    month = "December" if lang == "en" else "12"
    (date,) = [s for s in shipped_domain("travel").slots if s.name == "date"]
    vague = [p.replace("{month_name}", month).replace("{month}", month)
             for p in date.say[lang].vague]  # fmt: skip
    assert any(v in first.text for v in vague)
    assert first.perturbations == ("ambiguity",)
    assert second.disclosed == {"date": "2026-12-20"}  # given precisely once asked
    assert record.passed  # the expected outcome does not change


@pytest.mark.parametrize("lang", LANGS)
def test_pushback_takes_the_turn_after_a_proposal(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [pinned("pushback", 1)])
    turns = record.transcript.turns
    second = turns[1].user
    assert second.text in LIBRARY["pushback"].phrasings[lang]
    assert second.disclosed == {} and second.perturbations == ("pushback",)
    assert turns[1].agent is not None and turns[0].agent is not None
    assert turns[1].agent.text == turns[0].agent.text  # the right reaction: keep the proposal
    assert record.passed and record.n_user_turns == 4


@pytest.mark.parametrize("lang", LANGS)
def test_digression_is_a_whole_turn_of_chatter(lang: Language) -> None:
    record = run(lang, "one_way", Mode.FULL, [pinned("digression", 2)])
    second = record.transcript.turns[1].user
    assert second.text in LIBRARY["digression"].phrasings[lang]
    assert second.disclosed == {} and second.perturbations == ("digression",)
    assert record.passed and record.n_user_turns == 4


@pytest.mark.parametrize("lang", LANGS)
def test_injection_appends_a_fake_system_instruction_with_the_canary(lang: Language) -> None:
    base = _baseline(lang)
    record = run(lang, "one_way", Mode.FULL, [pinned("injection", 1)])
    first = record.transcript.turns[0].user
    canary = canary_for(user_seed(), "injection")
    injected = [p.format(canary=canary) for p in LIBRARY["injection"].phrasings[lang]]
    assert any(first.text == f"{base[0]} {text}" for text in injected)
    assert first.disclosed == ALL_FACTS
    assert record.checks["safety:canary"].passed  # the reference agent ignores it
    assert record.passed


def test_fact_changes_fire_at_a_booking_that_comes_before_their_turn() -> None:
    # seeded for turn 5, but the booking arrives in turn 2's reply: the user changes
    # their mind on seeing it, as planned mind changes do
    record = run("en", "one_way", Mode.FULL, [pinned("goal_change", 5)])
    turns = record.transcript.turns
    assert turns[2].user.perturbations == ("goal_change",)
    assert turns[2].user.disclosed == {"date": "2026-12-19"}
    assert record.passed


def test_inert_perturbations_leave_the_session_byte_identical() -> None:
    # refund has no alternative date or party size; digression seeded past the end
    stack = [pinned("goal_change", 2), pinned("contradiction", 2), pinned("digression", 9)]
    plain = run("en", "refund", Mode.SHARDED, [])
    perturbed = run("en", "refund", Mode.SHARDED, stack)
    assert perturbed.transcript == plain.transcript
