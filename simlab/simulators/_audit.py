"""The fidelity audit: did an LLM-written user message say what the disclosure plan said?

Checked by code, never by another model. Each goal value has a *signature*
(a city code, a day/month, a time, a number, or literal forms); a message's
*mentions* are the cities, dates, times and numbers found in it, read in every
form the languages use (``Hà Nội``/``Ha Noi``/``Hanoi``, ``20/12``, ``20 December``,
``December 20th``, ``ngày 20 tháng 12``, ``12:00``/``12h``/``noon``). A message is
faithful when every fact planned for the turn is present, no held-back value is,
no other city, date, time or number is, and it reads as the persona talking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from simlab.domain.travel import CITIES, FARES, ROUTES, iso_day_month
from simlab.simulators._reading import fold
from simlab.spec import FactValue, Goal, Persona, Slot

FaultKind = Literal[
    "leaked_fact",
    "dropped_fact",
    "invented_constraint",
    "broken_character",
    "empty_reply",
    "premature_stop",
    "unparseable_json",
]
"""What an LLM user message got wrong."""

FAULT_KINDS: tuple[FaultKind, ...] = (
    "leaked_fact",
    "dropped_fact",
    "invented_constraint",
    "broken_character",
    "empty_reply",
    "premature_stop",
    "unparseable_json",
)


class Finding(TypedDict):
    """One fidelity fault: the user turn, its kind, and what exactly was wrong."""

    turn: int
    kind: FaultKind
    detail: str


def finding(turn: int, kind: FaultKind, detail: str) -> Finding:
    """A ``Finding`` (a plain dict, as the engine stores it)."""
    return {"turn": turn, "kind": kind, "detail": detail}


# ------------------------------------------------------------------ mentions

_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_MONTH_OF = {
    m: i + 1
    for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct"))
} | {"nov": 11, "dec": 12}
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(20\d\d))?"
# Each pattern yields (day, month[, year]) groups in its own order; see _read_dates.
_DATE_RES: tuple[tuple[re.Pattern[str], tuple[int, int, int]], ...] = (
    (re.compile(r"(?<!\d)(20\d\d)-(\d{1,2})-(\d{1,2})(?!\d)"), (3, 2, 1)),
    (re.compile(r"(?<![\d/])(\d{1,2})\s*/\s*(\d{1,2})(?:\s*/\s*(\d{2,4}))?(?![\d/])"), (1, 2, 3)),
    (re.compile(rf"(?<!\d)(\d{{1,2}}){_ORD}(?:\s+of)?\s+{_MONTH_RE}\b{_YEAR}"), (1, 2, 3)),
    (re.compile(rf"\b{_MONTH_RE}\s+(?:the\s+)?(\d{{1,2}}){_ORD}\b{_YEAR}"), (2, 1, 3)),
    (
        re.compile(r"(?<!\d)(\d{1,2})\s+thang\s+(\d{1,2})(?!\d)(?:\s+nam\s+(20\d\d))?"),
        (1, 2, 3),
    ),
)
_AMPM = r"\s*(a\.?m\.?|p\.?m\.?)?"
_PART_OF_DAY = r"(?:\s+(sang|trua|chieu|toi))?"
_TIME_RES: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?<!\d)(\d{{1,2}})[:h](\d{{2}})(?!\d){_AMPM}{_PART_OF_DAY}"),
    re.compile(r"(?<!\d)(\d{1,2})()\s*(a\.?m\.?|p\.?m\.?)(?![a-z])()"),
    re.compile(rf"(?<!\d)(\d{{1,2}})()\s*(?:h|gio|o'?clock)\b(){_PART_OF_DAY}"),
)
_NOON_RE = re.compile(r"\b(?:noon|midday)\b")
_NUMBER_RE = re.compile(r"(?<![a-z0-9.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d])")

_CITY_FORMS: dict[str, str] = {}
for _city in CITIES:
    for _form in (_city.en, _city.vi, *_city.aliases):
        _CITY_FORMS[fold(_form)] = _city.code
_CITY_FORMS |= {"ho chi minh": "SGN", "sai gon": "SGN", "tphcm": "SGN"}
_CITY_RE = re.compile(
    r"\b(" + "|".join(re.escape(f) for f in sorted(_CITY_FORMS, key=len, reverse=True)) + r")\b"
)

# Number words, used only to *accept* a planned count ("two adults"), never to
# flag a leak or an invention: "ba" or "nam" are also ordinary Vietnamese words.
_WORDS: dict[int, tuple[str, ...]] = {
    1: ("one", "a", "an", "single", "mot"),
    2: ("two", "couple", "hai", "both"),
    3: ("three", "ba"),
    4: ("four", "bon"),
    5: ("five", "nam"),
    6: ("six", "sau"),
    7: ("seven", "bay"),
    8: ("eight", "tam"),
    9: ("nine", "chin"),
    10: ("ten", "muoi"),
    11: ("eleven",),
    12: ("twelve",),
}
_WORD_RE = re.compile(r"[a-z']+")

Number = int | float


@dataclass(slots=True)
class Mentions:
    """The cities, dates, times and numbers one text mentions (folded text kept)."""

    folded: str
    cities: set[str] = field(default_factory=set)
    dates: set[tuple[int, int]] = field(default_factory=set)
    times: set[tuple[int, int]] = field(default_factory=set)
    numbers: set[Number] = field(default_factory=set)
    words: set[str] = field(default_factory=set)


def _hour(hour: int, ampm: str | None, part: str | None) -> int:
    if ampm:
        if ampm.startswith("p") and hour < 12:
            return hour + 12
        if ampm.startswith("a") and hour == 12:
            return 0
    if part in ("chieu", "toi") and hour < 12:
        return hour + 12
    return hour


def read_mentions(text: str) -> Mentions:
    """Every city, date, time and number ``text`` mentions, in any shipped language."""
    low = fold(text)
    out = Mentions(low)
    out.cities.update(_CITY_FORMS[m] for m in _CITY_RE.findall(low))
    rest = low
    for pattern, (d, m, y) in _DATE_RES:
        for match in pattern.finditer(rest):
            month_text = match.group(m)
            month = int(month_text) if month_text.isdigit() else _MONTH_OF[month_text[:3]]
            day = int(match.group(d))
            if 1 <= day <= 31 and 1 <= month <= 12:
                out.dates.add((day, month))
                if match.group(y):
                    out.numbers.add(int(match.group(y)))
        rest = pattern.sub(" ", rest)
    for pattern in _TIME_RES:
        for match in pattern.finditer(rest):
            hour, minute = int(match.group(1)), int(match.group(2) or 0)
            if hour <= 24 and minute < 60:
                out.times.add((_hour(hour, match.group(3), match.group(4)), minute))
        rest = pattern.sub(" ", rest)
    if _NOON_RE.search(rest):
        out.times.add((12, 0))
    for raw in _NUMBER_RE.findall(rest):
        value = float(raw.replace(",", ""))
        out.numbers.add(int(value) if value.is_integer() else value)
    out.words.update(_WORD_RE.findall(low))
    return out


# ------------------------------------------------------------------ signatures


@dataclass(frozen=True, slots=True)
class _Signature:
    """How one goal value shows in text.

    Attributes:
        kind: which mention set holds it (``text``: literal forms; ``none``: uncheckable).
        key: the city code, (day, month), (hour, minute) or number.
        forms: literal forms of a ``text`` value (a booking reference, a fare, a route).
        explains: numbers this value accounts for when they appear alone
            (a day, a year, an hour).
    """

    kind: Literal["city", "date", "time", "int", "text", "none"]
    key: str | int | tuple[int, int] = ""
    forms: tuple[re.Pattern[str], ...] = ()
    explains: frozenset[Number] = frozenset()


def _forms(*names: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(r"(?<![a-z0-9])" + re.escape(fold(n)) + r"(?![a-z0-9])") for n in names)


def signature(slot: Slot, value: FactValue) -> _Signature:
    """The signature of one goal value."""
    text = str(value)
    if slot in ("origin", "destination"):
        return _Signature("city", text)
    if slot in ("date", "return_date"):
        day, month = iso_day_month(text)
        return _Signature("date", (day, month), explains=frozenset({day, month, int(text[:4])}))
    if slot == "latest_departure":
        hour, minute = (int(x) for x in text.split(":", 1))
        return _Signature(
            "time", (hour, minute), explains=frozenset({hour, hour % 12 or 12, minute})
        )
    if slot == "booking_ref":
        return _Signature("text", text, _forms(text))
    if slot == "fare" and text in FARES:
        return _Signature("text", text, _forms(*FARES[text].values()))
    if slot == "route" and text in ROUTES:
        return _Signature("text", text, _forms(*ROUTES[text].values()))
    if slot == "reason" or (isinstance(value, str) and not text.isdigit()):
        return _Signature("none")
    return _Signature("int", int(value), explains=frozenset({int(value)}))


def _strictly_in(sig: _Signature, m: Mentions) -> bool:
    """The value is unmistakably in the text (used for leaks)."""
    if sig.kind == "city":
        return sig.key in m.cities
    if sig.kind == "date":
        return sig.key in m.dates
    if sig.kind == "time":
        return sig.key in m.times
    if sig.kind == "int":
        return sig.key in m.numbers
    if sig.kind == "text":
        return any(f.search(m.folded) for f in sig.forms)
    return False


def _loosely_in(sig: _Signature, m: Mentions) -> bool:
    """The value is in the text in any form a reader would take for it (used for drops)."""
    if sig.kind == "none" or _strictly_in(sig, m):
        return True
    key = sig.key
    if sig.kind == "int" and isinstance(key, int):
        return any(w in m.words for w in _WORDS.get(key, ()))
    if sig.kind == "time" and isinstance(key, tuple):
        hour, minute = key
        return minute == 0 and bool({hour, hour % 12 or 12} & m.numbers)
    return False


# ------------------------------------------------------------------ character

# Letters only Vietnamese uses in everyday text (ă â ê ô đ ơ ư, tone-marked vowels U+1EA0-U+1EF9).
_VI_LETTERS = re.compile("[ăâêôđơưĂÂÊÔĐƠƯ\u1ea0-\u1ef9]")
_VI_WORD = re.compile(r"\w*[ăâêôđơưĂÂÊÔĐƠƯ\u1ea0-\u1ef9]\w*")
_EN_WORD_LIST = (
    "the i i'm i'd want to please my and is for we it of flight need would like book "
    "with at on from can you this that"
)
_VI_WORD_LIST = (
    "toi muon ve may bay ngay nguoi lon di den tu cho la va khong co can dat giup nhe "
    "duoc roi minh ban chuyen thang gio oi a them nhung thi"
)
_EN_WORDS = frozenset(_EN_WORD_LIST.split())
_VI_WORDS = frozenset(_VI_WORD_LIST.split())
_ASSISTANT_RE = re.compile(
    r"how (?:can|may) i (?:help|assist)|what can i do for you|i can help you with"
    r"|is there anything else i can|i(?: have|'ve) (?:booked|reserved|found)"
    r"|your booking (?:is|has been) confirmed|let me (?:check|search|look)"
    r"|toi co the giup gi|co the giup gi cho|quy khach|toi da dat (?:ve|cho) cho"
)
_GOODBYE_RE = re.compile(
    r"\bgood ?bye\b|\bbye\b|that'?s (?:all|everything) i need|that is (?:all|everything) i need"
    r"|have a (?:nice|good|great) day|i'?ll (?:sort it out|do it|handle it) myself"
    r"|i'?ll (?:try|go|look) elsewhere|\bforget it\b|\bi give up\b"
    r"|tam biet|vay la xong|toi tu lo|tim cho khac|thoi bo di"
)


def _character_breaks(persona: Persona, text: str, low: str, context: str) -> list[str]:
    """How ``text`` fails to read as ``persona`` writing (``context``: raw texts it may echo)."""
    out: list[str] = []
    if persona.language == "en":
        echoed = context.lower()
        foreign = [w for w in _VI_WORD.findall(text) if w.lower() not in echoed]
        if foreign:
            out.append(f"Vietnamese from an English-speaking persona: {' '.join(foreign[:5])}")
    elif persona.language == "vi" and not _VI_LETTERS.search(text):
        words = _WORD_RE.findall(low)
        en = sum(w in _EN_WORDS for w in words)
        if en >= 3 and en > sum(w in _VI_WORDS for w in words):
            out.append("English from a Vietnamese-speaking persona")
    hit = _ASSISTANT_RE.search(low)
    if hit:
        out.append(f"speaks as the assistant: {hit.group(0)!r}")
    return out


# ------------------------------------------------------------------ the audit


class FidelityAudit:
    """Checks one session's LLM user messages against its disclosure plan.

    Args:
        goal: the session's goal; every fact value and mind-change value is known.
        persona: who speaks (the language the text must be in).
    """

    def __init__(self, goal: Goal, persona: Persona) -> None:
        self.persona = persona
        self._slot = {f.id: f.slot for f in goal.facts}
        self._sigs: dict[tuple[str, FactValue], _Signature] = {}
        for f in goal.facts:
            self._sigs[f.id, f.value] = signature(f.slot, f.value)
        for c in goal.mind_changes:
            self._sigs[c.fact, c.value] = signature(self._slot[c.fact], c.value)
        sigs = self._sigs.values()
        self._keys = {(s.kind, s.key) for s in sigs}
        self._numbers: set[Number] = {n for s in sigs for n in s.explains}

    def check(
        self,
        turn: int,
        text: str,
        *,
        planned: Mapping[str, FactValue],
        stated: Mapping[str, Iterable[FactValue]],
        claimed: Sequence[str] = (),
        context: Sequence[str] = (),
    ) -> list[Finding]:
        """Every way ``text`` departs from the plan for user turn ``turn``.

        Args:
            turn: the user turn number.
            text: the message the LLM wrote.
            planned: fact id -> value the plan discloses this turn.
            stated: fact id -> values stated in earlier turns (they may be repeated).
            claimed: the fact ids the LLM says it disclosed.
            context: texts whose values the user may echo without inventing them
                (the agent's last reply, the plan's template draft).
        """
        if not text.strip():
            return [finding(turn, "empty_reply", "the message is empty")]
        m = read_mentions(text)
        joined = "\n".join(context)
        ctx = read_mentions(joined)
        out: list[Finding] = []
        allowed = {(fid, v) for fid, vs in stated.items() for v in vs} | set(planned.items())
        for fid, value in planned.items():
            if not _loosely_in(self._sigs[fid, value], m):
                out.append(finding(turn, "dropped_fact", f"{fid}={value!r} is planned but unsaid"))
        out += self._leaks(turn, m, ctx, allowed)
        for fid in claimed:
            if fid in self._slot and fid not in planned and fid not in stated:
                out.append(finding(turn, "leaked_fact", f"claims to disclose held-back {fid!r}"))
        out += self._inventions(turn, m, ctx)
        for detail in _character_breaks(self.persona, text, m.folded, joined):
            out.append(finding(turn, "broken_character", detail))
        bye = _GOODBYE_RE.search(m.folded)
        if bye and not _GOODBYE_RE.search(ctx.folded):
            out.append(finding(turn, "premature_stop", f"ends the conversation: {bye.group(0)!r}"))
        return out

    def _leaks(
        self, turn: int, m: Mentions, ctx: Mentions, allowed: set[tuple[str, FactValue]]
    ) -> list[Finding]:
        """Held-back values in the text, unless an allowed value looks the same."""
        ok = [self._sigs[k] for k in allowed if k in self._sigs]
        ok_keys = {(s.kind, s.key) for s in ok}
        ok_numbers = {n for s in ok for n in s.explains} | ctx.numbers
        out: list[Finding] = []
        for (fid, value), sig in self._sigs.items():
            if (fid, value) in allowed or (sig.kind, sig.key) in ok_keys:
                continue
            if not _strictly_in(sig, m) or _strictly_in(sig, ctx):
                continue  # absent, or echoed from the agent's own message
            if sig.kind == "int" and sig.key in ok_numbers:
                continue  # the same number stands for a value the user may say
            out.append(finding(turn, "leaked_fact", f"{fid}={value!r} is said before the plan"))
        return out

    def _inventions(self, turn: int, m: Mentions, ctx: Mentions) -> list[Finding]:
        """Cities, dates, times and numbers that are no goal value and not echoed."""
        keys = self._keys
        found = [f"city {c}" for c in sorted(m.cities - ctx.cities) if ("city", c) not in keys]
        found += [
            f"date {d}/{mo}"
            for d, mo in sorted(m.dates - ctx.dates)
            if ("date", (d, mo)) not in keys
        ]
        found += [
            f"time {h}:{mi:02d}"
            for h, mi in sorted(m.times - ctx.times)
            if ("time", (h, mi)) not in keys
        ]
        found += [f"number {n}" for n in sorted(m.numbers - self._numbers - ctx.numbers)]
        return [finding(turn, "invented_constraint", f"{f} is no goal value") for f in found]
