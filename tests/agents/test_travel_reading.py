"""The reference agent reads the travel domain from its data (``DomainReader``, through
``DomainSkill.read``): every slot phrasing the scripted user says reads back, in en, vi
and vi without accents; every opening and yes of the domain is heard, with its language."""

from __future__ import annotations

import pytest

from simlab.agents.reference import DomainSkill
from simlab.core import strip_diacritics
from simlab.simulators._voice import render_value
from simlab.spec import Domain, FactValue, shipped_domain

# One goal value per slot: the value the agent must read back.
VALUES: dict[str, FactValue] = {
    "origin": "DAD",
    "destination": "SGN",
    "date": "2026-12-21",
    "return_date": "2027-01-03",
    "passengers": 3,
    "children": 1,
    "child_age": 4,
    "budget": 450,
    "latest_departure": "09:30",
    "hotel_nights": 5,
    "booking_ref": "QX7K2P",
    "fare": "business",
    "route": "international",
    "bags": 2,
}

FILLER = {"en": "I hope I'm doing this right.", "vi": "Xin lỗi, tôi không rành máy tính lắm."}


@pytest.fixture(scope="module")
def travel() -> Domain:
    return shipped_domain("travel")


@pytest.fixture(scope="module")
def skill(travel: Domain) -> DomainSkill:
    return DomainSkill(travel)


def _cases(travel: Domain) -> list[tuple[str, str, str]]:
    """(language, slot, the phrasing said with the slot's value), every state phrasing."""
    out = []
    for slot in travel.slots:
        if slot.type == "text":
            continue  # no value in its phrasings ("The reason is: my plans changed.")
        for lang, speech in slot.say.items():
            months = travel.languages[lang].month_names
            table = render_value(slot, VALUES[slot.name], lang, months)
            for phrasings in speech.state.values():
                out += [(lang, slot.name, p.format_map(table)) for p in phrasings]
    return out


def test_every_slot_phrasing_reads_back(travel: Domain, skill: DomainSkill) -> None:
    assert {s.name for s in travel.slots if s.type != "text"} == set(VALUES)
    cases = _cases(travel)
    assert len(cases) > 60  # every slot in both languages
    assert {lang for lang, _, _ in cases} == {"en", "vi"}
    for lang, slot, text in cases:
        filler = FILLER[lang]
        variants = [text, f"{filler} {text} {filler}"]
        if lang == "vi":
            variants.append(strip_diacritics(f"{filler} {text}"))
        for variant in variants:
            got = skill.read(variant, ()).slots.get(slot)
            assert got == VALUES[slot], f"{lang} {slot}: {variant!r} read {got!r}"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I'd like to book a flight.", "hold_booking"),
        (
            "Hello, I want to go somewhere by plane but I'm not sure how this works. "
            "Can you book a flight for me?",
            "hold_booking",
        ),
        ("I need a flight booked, quickly please.", "hold_booking"),
        ("Can I move my flight to another day?", "change_booking"),
        ("I'd like to cancel my ticket and get a refund.", "refund"),
        ("How much luggage can I bring?", "baggage_policy"),
        ("Tôi cần đặt một chuyến bay.", "hold_booking"),
        ("Toi can doi ngay bay cua ve da dat.", "change_booking"),
        ("Tôi muốn hủy vé và được hoàn tiền.", "refund"),
        ("Toi duoc mang bao nhieu hanh ly?", "baggage_policy"),
    ],
)
def test_intents(skill: DomainSkill, text: str, intent: str) -> None:
    assert skill.read(text, ()).intent == intent


def test_every_opening_has_its_intent(travel: Domain, skill: DomainSkill) -> None:
    for intent in travel.intents:
        for lang, styles in intent.openings.items():
            for text in (t for phrasings in styles.values() for t in phrasings):
                assert skill.read(text, ()).intent == intent.tool, (lang, text)
                if lang == "vi":
                    assert skill.read(strip_diacritics(text), ()).intent == intent.tool, text


def test_yes_answers_and_language(travel: Domain, skill: DomainSkill) -> None:
    for speech in travel.languages.values():
        for text in (t for phrasings in speech.phrases["answer_yes"].values() for t in phrasings):
            assert skill.read(text, ()).yes, text
            assert skill.read(strip_diacritics(text), ()).yes, text
    for text in ("That's not what I asked for.", "Không đúng như tôi yêu cầu.", "No, none."):
        assert not skill.read(text, ()).yes
    assert skill.read("Toi bay tu Ha Noi.", ()).language == "vi"
    # the language of the phrasing heard; none heard, none known
    assert skill.read("I'm flying from Hanoi.", ()).language == "en"
    assert skill.read("Hmm.", ()).language is None


def test_return_and_departure_dates_in_one_message(skill: DomainSkill) -> None:
    got = skill.read("I want to leave on 20 December and I'll come back on 27 December.", ())
    assert (got.slots["date"], got.slots["return_date"]) == ("2026-12-20", "2026-12-27")
    vi = skill.read("Ngay di la ngay 5 thang 1. Ngay ve la ngay 9 thang 1.", ())
    assert (vi.slots["date"], vi.slots["return_date"]) == ("2027-01-05", "2027-01-09")


def test_bare_answer_fills_the_asked_slot(skill: DomainSkill) -> None:
    assert skill.read("Hanoi.", ("origin",)).slots == {"origin": "HAN"}
    assert skill.read("Da Nang", ("destination",)).slots == {"destination": "DAD"}
    assert skill.read("Hanoi.", ()).slots == {}


def test_flight_ids_are_not_booking_references(skill: DomainSkill) -> None:
    assert "booking_ref" not in skill.read("Is VJ1074 full?", ()).slots
