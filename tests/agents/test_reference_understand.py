"""Every slot phrasing of the templates reads back: en, vi and vi without accents."""

from __future__ import annotations

from typing import Any

import pytest

from simlab.agents.reference import CITY_BY_CODE, FARES, ROUTES, read_message
from simlab.core import strip_diacritics

from .talk import load_templates

# One goal value per slot and the value the agent must read back.
VALUES: dict[str, tuple[dict[str, str], Any]] = {
    "origin": ({"city": "@DAD"}, "DAD"),
    "destination": ({"city": "@SGN"}, "SGN"),
    "date": ({"day": "21", "month": "12", "month_name": "December"}, "2026-12-21"),
    "return_date": ({"day": "3", "month": "1", "month_name": "January"}, "2027-01-03"),
    "passengers": ({"n": "3"}, 3),
    "children": ({"n": "1"}, 1),
    "child_age": ({"n": "4"}, 4),
    "budget": ({"amount": "450"}, 450),
    "latest_departure": ({"time": "09:30"}, "09:30"),
    "hotel_nights": ({"n": "5"}, 5),
    "booking_ref": ({"ref": "QX7K2P"}, "QX7K2P"),
    "fare": ({"fare": "@business"}, "business"),
    "route": ({"route": "@international"}, "international"),
    "bags": ({"n": "2"}, 2),
}


def _render(template: str, slot: str, lang: str) -> str:
    values = dict(VALUES[slot][0])
    for key, v in values.items():
        if v.startswith("@"):
            name = v[1:]
            if key == "city":
                values[key] = CITY_BY_CODE[name].name(lang)
            elif key == "fare":
                values[key] = FARES[name][lang]
            else:
                values[key] = ROUTES[name][lang]
    return template.format(**values)


def _cases(templates: dict[str, Any]) -> list[tuple[str, str, str]]:
    out = []
    for lang, book in templates.items():
        for slot, styles in book["slots"].items():
            if slot not in VALUES:
                continue
            for phrasings in styles.values():
                for template in phrasings:
                    out.append((lang, slot, template))
    return out


def test_every_slot_phrasing_reads_back() -> None:
    templates = load_templates()
    cases = _cases(templates)
    assert len(cases) > 60  # every slot in both languages
    filler_en, filler_vi = "I hope I'm doing this right.", "Xin lỗi, tôi không rành máy tính lắm."
    for lang, slot, template in cases:
        text = _render(template, slot, lang)
        filler = filler_vi if lang == "vi" else filler_en
        variants = [text, f"{filler} {text} {filler}"]
        if lang == "vi":
            variants.append(strip_diacritics(f"{filler} {text}"))
        for variant in variants:
            got = read_message(variant).slots.get(slot)
            assert got == VALUES[slot][1], f"{lang} {slot}: {variant!r} read {got!r}"


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
def test_intents(text: str, intent: str) -> None:
    assert read_message(text).intent == intent


def test_every_intent_phrasing_has_its_intent() -> None:
    templates = load_templates()
    for lang, book in templates.items():
        for tool, styles in book["intent"].items():
            for phrasings in styles.values():
                for text in phrasings:
                    assert read_message(text).intent == tool, (lang, text)
                    if lang == "vi":
                        assert read_message(strip_diacritics(text)).intent == tool, text


def test_yes_answers_and_language() -> None:
    templates = load_templates()
    for book in templates.values():
        for phrasings in book["answer_yes"].values():
            for text in phrasings:
                assert read_message(text).yes, text
                assert read_message(strip_diacritics(text)).yes, text
    for text in ("That's not what I asked for.", "Không đúng như tôi yêu cầu.", "No, none."):
        assert not read_message(text).yes
    assert read_message("Toi bay tu Ha Noi.").language == "vi"
    assert read_message("I'm flying from Hanoi.").language is None


def test_return_and_departure_dates_in_one_message() -> None:
    got = read_message("I want to leave on 20 December and I'll come back on 27 December.")
    assert got.slots["date"] == "2026-12-20"
    assert got.slots["return_date"] == "2026-12-27"
    vi = read_message("Ngay di la ngay 5 thang 1. Ngay ve la ngay 9 thang 1.")
    assert (vi.slots["date"], vi.slots["return_date"]) == ("2027-01-05", "2027-01-09")


def test_bare_answer_fills_the_asked_slot() -> None:
    assert read_message("Hanoi.", asked=("origin",)).slots == {"origin": "HAN"}
    assert read_message("Da Nang", asked=("destination",)).slots == {"destination": "DAD"}
    assert read_message("Hanoi.").slots == {}


def test_flight_ids_are_not_booking_references() -> None:
    assert "booking_ref" not in read_message("Is VJ1074 full?").slots
