"""The travel world simlab's shipped goals live in: places and how values are written.

This is shared vocabulary, not a parser: the scripted verbalizer renders fact
values with it, and the reference agent recognises the same surface forms.
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


# How an agent's question names the fact it asks for. The reference agent words
# its questions so they contain one of these (lower-case, diacritics kept); the
# scripted simulator looks for them (after stripping diacritics on both sides)
# to decide which fact it was asked about. A question is a reply containing "?".
ASK_CUES: dict[str, tuple[str, ...]] = {
    "origin": ("flying from", "departure city", "bay từ đâu", "điểm khởi hành"),
    "destination": ("flying to", "destination", "muốn đi đâu", "điểm đến"),
    "date": ("which date", "departure date", "ngày nào", "ngày đi"),
    "return_date": ("return date", "ngày về"),
    "passengers": ("how many adults", "mấy người lớn"),
    "children": ("any children", "trẻ em"),
    "child_age": ("how old", "mấy tuổi"),
    "budget": ("budget", "ngân sách"),
    "latest_departure": ("departure time", "giờ khởi hành"),
    "hotel_nights": ("how many nights", "mấy đêm"),
    "booking_ref": ("booking reference", "mã đặt chỗ"),
    "fare": ("fare class", "hạng vé"),
    "route": ("domestic or international", "nội địa hay quốc tế"),
    "bags": ("how many checked bags", "mấy kiện"),
    "reason": ("reason", "lý do"),
}
# A proposal awaiting the user's go-ahead contains one of these and a "?".
CONFIRM_CUES: tuple[str, ...] = ("shall i", "should i go ahead", "xác nhận", "đồng ý không")
