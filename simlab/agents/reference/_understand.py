"""Rule-based understanding of one user message: intent, slot values, yes.

Matching runs on the message lower-cased with Vietnamese diacritics stripped,
so ``Đà Nẵng``, ``Da Nang`` and ``da nang`` read the same. Every pattern is
compiled once at import; a message costs a handful of regex scans.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

from simlab.agents.reference._skill import Reading
from simlab.agents.reference._travel_world import CITIES, FARES, MONTHS_EN, ROUTES, year_for
from simlab.core import strip_diacritics
from simlab.spec import FactValue

# ``strip_diacritics`` as one translate table over the Latin letters Vietnamese
# uses (precomposed and combining marks): a tenth of its cost per message.
_STRIP_TABLE: dict[int, str | None] = {
    cp: strip_diacritics(chr(cp)) or None
    for cp in range(0x80, 0x2000)
    if strip_diacritics(chr(cp)) != chr(cp)
}


def _norm(text: str) -> str:
    return (text if text.isascii() else text.translate(_STRIP_TABLE)).lower()


def _alternation(forms: dict[str, str]) -> str:
    # Longest first, so "ho chi minh city" wins over "ho chi minh".
    return "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))


_CITY_FORMS: dict[str, str] = {}
for _c in CITIES:
    for _form in (_c.en, _c.vi, *_c.aliases):
        _CITY_FORMS[_norm(_form)] = _c.code
_CITY_FORMS.setdefault("ho chi minh", "SGN")
_CITY = rf"(?P<city>{_alternation(_CITY_FORMS)})"
_MONTH_FORMS = {m.lower(): str(i) for i, m in enumerate(MONTHS_EN, 1)}
_MONTH_FORMS.update({m.lower()[:3]: str(i) for i, m in enumerate(MONTHS_EN, 1)})
_MONTH = _alternation(_MONTH_FORMS)
_MONTH_KEYS = tuple(m.lower()[:3] for m in MONTHS_EN)
_FARE_FORMS = {_norm(v): k for k, names in FARES.items() for v in names.values()}
_ROUTE_FORMS = {_norm(v): k for k, names in ROUTES.items() for v in names.values()}


class _Gated:
    """A pattern that only runs when one of its keywords occurs in the text.

    Python's ``re`` cannot skip ahead on patterns that start with ``\\b`` and an
    alternation, so each costs microseconds per message; a substring test
    rules most of them out for a fraction of that.
    """

    __slots__ = ("keys", "pattern")

    def __init__(self, keys: tuple[str, ...], pattern: str) -> None:
        self.keys = keys
        self.pattern = re.compile(pattern)

    def search(self, text: str) -> re.Match[str] | None:
        # A plain loop: ``any()`` over a generator costs more than the tests themselves.
        for k in self.keys:
            if k in text:
                return self.pattern.search(text)
        return None


_DIGIT_RE = re.compile(r"\d")
# ``\b(\d{1,2})`` written digit first: ``(\d(?<!\w\d)\d?)`` matches the same text at the
# same places (the look-behind is the word boundary before the first digit), but a
# pattern that starts with a character class lets ``re`` skip ahead to the next digit
# instead of trying the boundary at every position: two to three times faster.
_NUM = r"(\d(?<!\w\d)\d?)"
_ORIGIN_RE = _Gated(("from", "tu "), rf"\b(?:from|tu)\s+(?:the\s+)?{_CITY}\b")
_DEST_RE = _Gated(
    ("to ", "den", "visit", "destination", "choi o"),
    rf"\b(?:to|den(?:\s+la)?|visit|destination is|choi o)\s+(?:the\s+)?{_CITY}\b",
)
_BARE_CITY_RE = re.compile(rf"\b{_CITY}\b")
_ORD = r"(?:st|nd|rd|th)?"
# Every date starts with a digit, a month name or "ngay": the look-ahead on that first
# character rules out most word starts before the four alternatives are tried.
_DATE_START = re.escape("".join(sorted({f[0] for f in _MONTH_FORMS} | {"n"})))
_DATE_RE = re.compile(
    rf"\b(?=[\d{_DATE_START}])(?:(?P<d1>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<m1>{_MONTH})"
    rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}}){_ORD}"
    r"|ngay\s+(?P<d4>\d{1,2})\s+thang\s+(?P<m4>\d{1,2})"
    r"|(?P<d3>\d{1,2})/(?P<m3>\d{1,2})(?:/\d{2,4})?)\b"
)
_RETURN_MARK_RE = re.compile(r"\b(?:back|return|returning|ve)\b")
_CLAUSE_END_RE = re.compile(r"[.!?;]")
_PASSENGERS_RE = _Gated(
    ("adult", "grown", "people", "person", "passenger", "nguoi"),
    _NUM + r"\s+(?:adults?|grown-ups?|grownups?|people|persons|passengers|nguoi(?:\s+lon)?)\b",
)
_CHILDREN_RE = _Gated(
    ("child", "kid", "tre em", "be", "chau"),
    _NUM + r"\s+(?:child(?:ren)?|kids?|tre em|be|chau)\b",
)
_NO_CHILDREN_RE = _Gated(
    ("no ", "without", "khong co"),
    r"\b(?:no|without)\s+(?:children|kids)\b|\bkhong co (?:tre em|be)\b",
)
_CHILD_AGE_RE = _Gated(
    ("old", "tuoi", "age"), r"\b(\d{1,2})\s+(?:years?\s+old|tuoi)\b|\bchild age\s+(\d{1,2})\b"
)
_BUDGET_RE = _Gated(
    ("usd", "dollar", "$"),
    r"(?:\$\s*(\d[\d,.]*\d|\d)|\b(\d[\d,.]*\d|\d)\s*(?:usd|us dollars|dollars|\$))",
)
# Not gated: on the messages users write the gate costs more than the pattern it spares.
_TIME_RE = re.compile(r"\b(\d{1,2})(?::|h)(\d{2})\b|\b(\d{1,2})\s*(am|pm)\b")
_NIGHTS_RE = _Gated(("night", "dem"), _NUM + r"\s+(?:nights?|dem)\b")
_FLIGHT_ID_RE = re.compile(r"(?:vn|vj|qh)\d")
_FARE_RE = _Gated(
    ("economy", "business", "pho thong", "thuong gia"), rf"\b({_alternation(_FARE_FORMS)})\b"
)
_ROUTE_RE = _Gated(
    ("domestic", "international", "noi dia", "quoc te"), rf"\b({_alternation(_ROUTE_FORMS)})\b"
)
_BAGS_RE = _Gated(("bag", "kien"), _NUM + r"\s+(?:checked\s+)?(?:bags?|kien)\b")
_REASON_RE = _Gated(
    ("reason", "plans", "came up", "ly do", "dot xuat", "ke hoach"),
    r"\b(?:reason is|plans changed|something came up|ly do|viec dot xuat|doi ke hoach)\b",
)
_YES_RE = _Gated(
    ("yes", "yeah", "yep", "ahead", "ok", "sure", "please do", "vang", "dong y"),
    r"\b(?:yes|yeah|yep|go ahead|ok|okay|sure|please do|vang|dong y)\b",
)
# Checked in this order: "cancel my ticket and get a refund" is a refund, not a booking.
_INTENTS: tuple[tuple[str, _Gated], ...] = (
    (
        "refund",
        _Gated(
            ("refund", "cancel", "hoan tien", "huy ve"),
            r"\b(?:refund|cancel my (?:ticket|booking)|hoan tien|huy ve)\b",
        ),
    ),
    (
        "change_booking",
        _Gated(
            ("change", "move", "doi ngay"),
            r"\b(?:change (?:the date|my flight)|move my flight|doi ngay)\b",
        ),
    ),
    (
        "baggage_policy",
        _Gated(("baggage", "luggage", "hanh ly"), r"\b(?:baggage|luggage|hanh ly)\b"),
    ),
    (
        "hold_booking",
        _Gated(
            ("book", "dat "),
            r"\b(?:book(?:ed)? (?:a|my|the)? ?(?:flight|trip)|flight booked|dat ve|dat mot chuyen)",
        ),
    ),
)
# Not gated: its keywords ("tu", "den", "hang") occur in most English messages.
_VI_WORDS_RE = re.compile(
    r"\b(?:toi|muon|ngay|thang|nguoi lon|chuyen bay|may bay|khach san|hanh ly|hoan tien"
    r"|tre em|dem|hang|chang|tu|den|vang|dong y|cam on|ma ve|ma dat cho|kien)\b",
)


def _number(raw: str) -> int:
    return int(raw.replace(",", "").replace(".", ""))


def _iso(day: int, month: int) -> str | None:
    try:
        return date(year_for(month), month, day).isoformat()
    except ValueError:
        return None


def _read_dates(text: str, asked: tuple[str, ...], slots: dict[str, FactValue]) -> None:
    # A date is a return date when its own clause, since the previous date, says "back".
    if "/" not in text and "thang" not in text and not any(m in text for m in _MONTH_KEYS):
        return
    start = 0
    for m in _DATE_RE.finditer(text):
        g = m.groupdict()
        day = g["d1"] or g["d2"] or g["d3"] or g["d4"]
        month = _MONTH_FORMS.get(g["m1"] or g["m2"] or "") or g["m3"] or g["m4"]
        iso = _iso(int(day), int(month)) if day and month else None
        lead = text[start : m.start()]
        cut = max((e.end() for e in _CLAUSE_END_RE.finditer(lead)), default=0)
        start = m.end()
        if iso is None:
            continue
        if _RETURN_MARK_RE.search(lead[cut:]) or (
            "return_date" in asked and "date" not in asked and "return_date" not in slots
        ):
            slots["return_date"] = iso
        else:
            slots["date"] = iso


def _read_cities(text: str, asked: tuple[str, ...], slots: dict[str, FactValue]) -> None:
    if m := _ORIGIN_RE.search(text):
        slots["origin"] = _CITY_FORMS[m["city"]]
    if m := _DEST_RE.search(text):
        slots["destination"] = _CITY_FORMS[m["city"]]
    if ("origin" in slots or "origin" not in asked) and (
        "destination" in slots or "destination" not in asked
    ):
        return
    # A bare city answers whichever of the two was asked and is still open.
    for m in _BARE_CITY_RE.finditer(text):
        code = _CITY_FORMS[m["city"]]
        if code in (slots.get("origin"), slots.get("destination")):
            continue
        for slot in ("origin", "destination"):
            if slot in asked and slot not in slots:
                slots[slot] = code
                break


def _read_numbers(text: str, slots: dict[str, FactValue]) -> None:
    if m := _PASSENGERS_RE.search(text):
        slots["passengers"] = int(m[1])
    if m := _CHILDREN_RE.search(text):
        slots["children"] = int(m[1])
    elif _NO_CHILDREN_RE.search(text):
        slots["children"] = 0
    if m := _CHILD_AGE_RE.search(text):
        slots["child_age"] = int(m[1] or m[2])
    if m := _BUDGET_RE.search(text):
        slots["budget"] = _number(m[1] or m[2])
    if m := _TIME_RE.search(text):
        if m[1] is not None:
            hour, minute = int(m[1]), int(m[2])
        else:
            hour, minute = int(m[3]) % 12 + (12 if m[4] == "pm" else 0), 0
        if hour < 24 and minute < 60:
            slots["latest_departure"] = f"{hour:02d}:{minute:02d}"
    if m := _NIGHTS_RE.search(text):
        slots["hotel_nights"] = int(m[1])
    if m := _BAGS_RE.search(text):
        slots["bags"] = int(m[1])


def _reference(text: str) -> str | None:
    # A six-character code mixing letters and digits (flight ids like VJ1074 excluded);
    # a token scan is several times cheaper than a lookahead regex here.
    for raw in text.split():
        token = raw.strip(".,;:!?()\"'")
        if (
            len(token) == 6
            and token.isalnum()
            and token.isascii()
            and not token.isdigit()
            and not token.isalpha()
            and not _FLIGHT_ID_RE.match(token)
        ):
            return token.upper()
    return None


def read_message(text: str, asked: tuple[str, ...] = ()) -> Reading:
    """Read one user message.

    Args:
        text: The message as the user wrote it.
        asked: The slots the agent's previous reply asked for; a bare value
            ("Hanoi.", "20/12") fills the asked slot.

    Returns:
        The intent, the slot values stated (values as goal facts write them:
        city codes, ISO dates, ``HH:MM``, integers, fare and route keys) and
        whether the message says yes. A fresh ``Reading`` the caller may change.
    """
    slots, intent, yes, vietnamese = _parse(text, asked)
    return Reading(dict(slots), intent, yes, "vi" if vietnamese else None)


_Parsed = tuple[tuple[tuple[str, FactValue], ...], str | None, bool, bool]


# Scripted users repeat their messages across repetitions and sessions: a
# reading is a pure function of (text, asked), so each is parsed once.
@lru_cache(maxsize=8192)
def _parse(text: str, asked: tuple[str, ...]) -> _Parsed:
    t = _norm(text)
    slots: dict[str, FactValue] = {}
    _read_cities(t, asked, slots)
    if _DIGIT_RE.search(t):  # dates, numbers and references all have digits
        _read_dates(t, asked, slots)
        _read_numbers(t, slots)
        if ref := _reference(t):
            slots["booking_ref"] = ref
    if m := _FARE_RE.search(t):
        slots["fare"] = _FARE_FORMS[m[1]]
    if m := _ROUTE_RE.search(t):
        slots["route"] = _ROUTE_FORMS[m[1]]
    if _REASON_RE.search(t):
        slots["reason"] = "stated"
    intent = next((name for name, pattern in _INTENTS if pattern.search(t)), None)
    vietnamese = not text.isascii() or _VI_WORDS_RE.search(t) is not None
    return tuple(slots.items()), intent, _YES_RE.search(t) is not None, vietnamese
