"""FidelityAudit and parse_answer: each fault kind found, faithful texts left alone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.simulators import FidelityAudit, Finding, parse_answer
from simlab.simulators._audit import (
    _MAX_READ,
    _NUMBER_RE,
    _TIME_RES,
    DomainReading,
    Mentions,
    _hour,
    read_mentions,
    shipped_reading,
)
from simlab.simulators._reading import fold

from .sim_driver import BOOKING_GOAL, make_goal, make_persona

# HAN -> DAD on 2026-12-20 (may change to 12-21), 2 adults, budget 400, latest 10:00
GOAL = make_goal()
EN = FidelityAudit(GOAL, make_persona("en"))
VI = FidelityAudit(GOAL, make_persona("vi"))


def kinds(found: list[Finding]) -> list[str]:
    return [f["kind"] for f in found]


def check(audit: FidelityAudit, text: str, **kw: Any) -> list[Finding]:
    kw.setdefault("planned", {})
    kw.setdefault("stated", {})
    return audit.check(4, text, **kw)


@pytest.mark.parametrize(
    "text",
    [
        "Departing 20/12.",
        "I'd like to leave on December 20th.",
        "The 20th of Dec. please.",
        "leaving 2026-12-20",
    ],
)
def test_a_planned_date_is_found_in_its_english_forms(text: str) -> None:
    assert check(EN, text, planned={"date": "2026-12-20"}) == []


@pytest.mark.parametrize(
    "text", ["Tôi bay ngày 20/12.", "Ngày đi là ngày 20 tháng 12.", "ngay 20 thang 12"]
)
def test_a_planned_date_is_found_in_its_vietnamese_forms(text: str) -> None:
    assert check(VI, text, planned={"date": "2026-12-20"}) == []


@pytest.mark.parametrize("text", ["Tôi bay từ Hà Nội.", "Toi bay tu Ha Noi.", "Tôi bay từ Hanoi."])
def test_a_city_is_found_with_or_without_diacritics(text: str) -> None:
    assert check(VI, text, planned={"origin": "HAN"}) == []


@pytest.mark.parametrize(
    "text", ["Tôi bay từ TPHCM.", "Toi bay tu Ho Chi Minh.", "Tôi bay từ Sài Gòn.", "tu tp. hcm"]
)
def test_a_city_is_found_in_its_everyday_spellings(text: str) -> None:
    # the domain's aliases: how people write Ho Chi Minh City, with or without diacritics
    facts = [{**f, "value": "SGN"} if f["id"] == "origin" else f for f in BOOKING_GOAL["facts"]]
    audit = FidelityAudit(make_goal(facts=facts), make_persona("vi"))
    assert check(audit, text, planned={"origin": "SGN"}) == []


def test_a_day_without_its_month_is_a_dropped_date() -> None:
    found = check(EN, "I leave on the 20th.", planned={"date": "2026-12-20"})
    assert kinds(found) == ["dropped_fact"]
    assert found[0] == {
        "turn": 4,
        "kind": "dropped_fact",
        "detail": "date='2026-12-20' is planned but unsaid",
    }


def test_counts_and_times_are_found_as_words_and_clock_forms() -> None:
    planned = {"adults": 2, "latest": "10:00"}
    assert check(EN, "Two adults, leaving by 10am.", planned=planned) == []
    assert check(EN, "2 grown-ups, out by 10:00.", planned=planned) == []
    assert kinds(check(EN, "2 adults, leaving by 11am.", planned=planned)) == [
        "dropped_fact",
        "invented_constraint",
    ]


def test_a_held_back_value_is_a_leak_but_a_stated_one_may_be_repeated() -> None:
    found = check(EN, "To Da Nang, and keep it under 400 USD.", planned={"destination": "DAD"})
    assert kinds(found) == ["leaked_fact"]
    assert "budget=400" in found[0]["detail"]
    again = check(
        EN,
        "To Da Nang, and keep it under 400 USD.",
        planned={"destination": "DAD"},
        stated={"budget": [400]},
    )
    assert again == []


def test_a_mind_change_said_before_the_plan_fires_is_a_leak() -> None:
    found = check(EN, "I fly on 21 December.", stated={"date": ["2026-12-20"]})
    assert kinds(found) == ["leaked_fact"]
    assert "date='2026-12-21'" in found[0]["detail"]
    fired = check(EN, "Make it 21 December.", planned={"date": "2026-12-21"})
    assert fired == []


def test_claiming_a_held_back_id_is_a_leak_even_when_the_text_is_clean() -> None:
    found = check(EN, "From Hanoi.", planned={"origin": "HAN"}, claimed=["origin", "budget"])
    assert kinds(found) == ["leaked_fact"]
    assert "'budget'" in found[0]["detail"]


def test_values_of_no_goal_fact_are_invented_unless_the_agent_said_them() -> None:
    found = check(
        EN, "From Hanoi, and my budget is 999 USD. Or Bangkok.", planned={"origin": "HAN"}
    )
    assert sorted(f["detail"] for f in found) == [
        "number 999 is no goal value",
        "origin/destination BKK is no goal value",
    ]
    echoed = check(
        EN,
        "From Hanoi. The 999 USD one to Bangkok sounds fine.",
        planned={"origin": "HAN"},
        context=["I found a flight to Bangkok for 999 USD. Shall I book it?"],
    )
    assert echoed == []


def test_vietnamese_from_an_english_persona_is_broken_character() -> None:
    found = check(EN, "Tôi muốn bay từ Hanoi.", planned={"origin": "HAN"})
    assert kinds(found) == ["broken_character"]
    assert "Tôi" in found[0]["detail"]


def test_english_from_a_vietnamese_persona_is_broken_character() -> None:
    found = check(VI, "I want to fly from Hanoi please.", planned={"origin": "HAN"})
    assert kinds(found) == ["broken_character"]
    assert check(VI, "Toi muon bay tu Ha Noi nhe.", planned={"origin": "HAN"}) == []


def test_speaking_as_the_assistant_is_broken_character() -> None:
    found = check(EN, "Hello! How can I help you today?")
    assert kinds(found) == ["broken_character"]
    assert "how can i help" in found[0]["detail"]


def test_goodbye_before_the_plan_stops_is_a_premature_stop() -> None:
    found = check(EN, "From Hanoi. That's all I need, goodbye!", planned={"origin": "HAN"})
    assert kinds(found) == ["premature_stop"]
    assert check(EN, "That's all the information I have.") == []


def test_an_empty_message_is_only_an_empty_reply() -> None:
    assert kinds(check(EN, "  \n", planned={"origin": "HAN"})) == ["empty_reply"]


def test_mentions_read_times_in_both_languages() -> None:
    assert read_mentions("at 2pm or 14h30").times == {(14, 0), (14, 30)}
    assert read_mentions("lúc 3 giờ chiều").times == {(15, 0)}
    assert read_mentions("around noon").times == {(12, 0)}
    assert read_mentions("flight VN123 costs $1,200").numbers == {1200}


def test_parse_answer_reads_fenced_or_wrapped_json() -> None:
    fenced = '```json\n{"response": "From Hanoi.", "disclosed": ["origin"]}\n```'
    assert parse_answer(fenced) == ("From Hanoi.", ["origin"])
    assert parse_answer('Sure! {"response": "Hi", "disclosed": "origin"} ok') == ("Hi", [])


@pytest.mark.parametrize(
    "raw",
    ["From Hanoi.", '{"response": 3}', '{"text": "hi"}', '{"response": "unterminated'],
    ids=str,
)
def test_parse_answer_refuses_answers_without_a_response_string(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_answer(raw)


def test_a_persona_in_a_third_language_is_not_held_to_vietnamese() -> None:
    # an LLM user may speak any language: only en and vi have a character check
    es = FidelityAudit(GOAL, make_persona("es"))
    text = "Quiero volar desde Hanoi, please, with the family and the kids."
    assert "broken_character" not in kinds(check(es, text, planned={"origin": "HAN"}))
    assert kinds(check(VI, text, planned={"origin": "HAN"})) == ["broken_character"]


# ------------------------------------------------------- read_mentions' fast path


def _reference_mentions(text: str, reading: DomainReading) -> tuple[object, ...]:
    """read_mentions as first written: every pattern found, then cut, one after another."""
    low = fold(text)
    enums, dates, times, numbers = set(), set(), set(), set()
    rest = low
    if reading.enum_re is not None:
        enums.update(reading.forms[m] for m in reading.enum_re.findall(low))
        rest = reading.enum_re.sub(" ", low)
    for pattern, (d, m, y) in reading.dates:
        for match in pattern.finditer(rest):
            month, day = reading.month(match.group(m)), int(match.group(d))
            if 1 <= day <= 31 and 1 <= month <= 12:
                dates.add((day, month))
                if match.group(y):
                    numbers.add(int(match.group(y)))
        rest = pattern.sub(" ", rest)
    for pattern in _TIME_RES:
        for match in pattern.finditer(rest):
            hour, minute = int(match.group(1)), int(match.group(2) or 0)
            if hour <= 24 and minute < 60:
                times.add((_hour(hour, match.group(3), match.group(4)), minute))
        rest = pattern.sub(" ", rest)
    if re.search(r"\b(?:noon|midday)\b", rest):
        times.add((12, 0))
    for raw in _NUMBER_RE.findall(rest):
        value = float(raw.replace(",", ""))
        numbers.add(int(value) if value.is_integer() else value)
    return low, enums, dates, times, numbers, set(re.findall(r"[a-z']+", low))


def _fields(m: Mentions) -> tuple[object, ...]:
    return m.folded, m.enums, m.dates, m.times, m.numbers, m.words


_PIECES = [
    *"0123456789/-:.,h ",
    *("20", "12", "2026", "10", "am", "p.m.", "noon", "midday", "o'clock", "oclock", "gio"),
    *("december", "dec", "Tháng", "thang", "ngày", "nam", "chiều", "sang", "de", "of", "the"),
    *("th", "Hà Nội", "ha noi", "Đà Nẵng", "saigon", "lost", "fraud", "C10001", "1,200", "\n"),
]
READINGS = [shipped_reading(), shipped_reading("bank")]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from(READINGS))
def test_read_mentions_finds_what_the_pattern_by_pattern_reading_finds(
    pieces: list[str], reading: DomainReading
) -> None:
    text = "".join(pieces)
    assert _fields(read_mentions(text, reading)) == _reference_mentions(text, reading)


def test_a_domain_reading_remembers_texts_per_domain() -> None:
    text = "From Ha Noi on 20/12 at 10am, my card was lost: 1,200 dollars."
    travel, bank = READINGS
    first = travel.mentions(text)
    assert travel.mentions(text) is first  # read once
    assert _fields(first) == _fields(read_mentions(text, travel))
    assert first.enums == {"HAN"} and first.dates == {(20, 12)} and first.numbers == {1200}
    assert _fields(bank.mentions(text)) == _fields(read_mentions(text, bank))
    assert bank.mentions(text).enums == {"lost"}  # the bank's enums, not travel's
    # a full memory is emptied, and reads the same again
    for i in range(_MAX_READ):
        travel.mentions(f"text {i}")
    assert travel.mentions(text) is not first
    assert _fields(travel.mentions(text)) == _fields(first)
