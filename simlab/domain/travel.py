"""The travel world the reference agent knows: places and how values are written.

The travel domain's data (``domains/travel/``: slots, cue words, phrasings,
intents, tools) is what the scripted user speaks from; this module is what the
reference agent's parser and replies still read, to be replaced by that data.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class City:
    """An airport city with its names in each shipped language."""

    code: str
    en: str
    vi: str
    aliases: tuple[str, ...] = ()

    def name(self, language: str) -> str:
        """The city's name in ``language`` (``en`` or ``vi``)."""
        return self.vi if language == "vi" else self.en


CITIES: tuple[City, ...] = (
    City("HAN", "Hanoi", "Hà Nội", ("ha noi", "hanoi")),
    City("SGN", "Ho Chi Minh City", "TP Hồ Chí Minh", ("saigon", "sài gòn", "hcmc", "tp hcm")),
    City("DAD", "Da Nang", "Đà Nẵng", ("danang",)),
    City("PQC", "Phu Quoc", "Phú Quốc", ("phuquoc",)),
    City("CXR", "Nha Trang", "Nha Trang", ("cam ranh",)),
    City("BKK", "Bangkok", "Bangkok", ("băng cốc",)),
    City("SIN", "Singapore", "Singapore", ("xin-ga-po",)),
)
CITY_BY_CODE: dict[str, City] = {c.code: c for c in CITIES}

MONTHS_EN: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

FARES: dict[str, dict[str, str]] = {
    "economy": {"en": "economy", "vi": "phổ thông"},
    "business": {"en": "business", "vi": "thương gia"},
}
ROUTES: dict[str, dict[str, str]] = {
    "domestic": {"en": "domestic", "vi": "nội địa"},
    "international": {"en": "international", "vi": "quốc tế"},
}


def strip_diacritics(text: str) -> str:
    """Vietnamese as typed without accents: ``Đà Nẵng`` becomes ``Da Nang``."""
    text = text.replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    )


def iso_day_month(iso_date: str) -> tuple[int, int]:
    """``2026-12-20`` -> ``(20, 12)``."""
    _, month, day = iso_date.split("-")
    return int(day), int(month)


def year_for(month: int) -> int:
    """The travel season spans Nov 2026 - Oct 2027: the year a day/month refers to."""
    return 2026 if month >= 11 else 2027
