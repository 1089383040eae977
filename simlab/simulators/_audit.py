"""The fidelity audit: did an LLM-written user message say what the disclosure plan said?

Checked by code, never by another model. Each goal value has a *signature*, from
its slot's type in the goal's domain (an enum value, a day/month, a time, a
number, an identifier's literal form); a message's *mentions* are the enum values
(in any language's words or alias the domain gives), dates, times and numbers
found in it, read in every form the languages use (``20/12``, ``20 December``,
``December 20th``, the domain's month names, ``ngày 20 tháng 12``,
``12:00``/``12h``/``noon``). A message is faithful when every fact planned for the
turn is present, no held-back value is, no other value of the goal's enum slots,
date, time or number is, and it reads as the persona talking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, TypedDict

from simlab.simulators._reading import fold
from simlab.spec import (
    DEFAULT_DOMAIN,
    Domain,
    DomainSlot,
    FactValue,
    Goal,
    Persona,
    Slot,
    shipped_domain,
)

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

_EN_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_ABBREVIATIONS = r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(20\d\d))?"


def _date_patterns(
    month_re: str,
) -> tuple[tuple[re.Pattern[str], tuple[int, int, int]], ...]:
    """Each pattern yields (day, month[, year]) groups in its own order; see read_mentions."""
    month = rf"({month_re})\.?"
    return (
        (re.compile(r"(?<!\d)(20\d\d)-(\d{1,2})-(\d{1,2})(?!\d)"), (3, 2, 1)),
        (
            re.compile(r"(?<![\d/])(\d{1,2})\s*/\s*(\d{1,2})(?:\s*/\s*(\d{2,4}))?(?![\d/])"),
            (1, 2, 3),
        ),
        (
            re.compile(rf"(?<!\d)(\d{{1,2}}){_ORD}(?:\s+(?:of|de|del))?\s+{month}(?![a-z]){_YEAR}"),
            (1, 2, 3),
        ),
        (re.compile(rf"(?<![a-z]){month}\s+(?:the\s+)?(\d{{1,2}}){_ORD}\b{_YEAR}"), (2, 1, 3)),
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
_DIGIT_RE = re.compile(r"\d")
# What each date and time pattern cannot match without (any one of these substrings;
# () when a digit, which every one of them needs, is all it takes): a pattern whose
# substrings are all absent is not run, as it would find nothing.
_DATE_NEEDS: tuple[tuple[str, ...], ...] = (("-",), ("/",), (), (), ("thang",))
_TIME_NEEDS: tuple[tuple[str, ...], ...] = ((":", "h"), ("m",), ("h", "gio", "clock"))


def _cut(
    pattern: re.Pattern[str], text: str, needs: tuple[str, ...]
) -> tuple[list[re.Match[str]], str]:
    """The matches of ``pattern`` in ``text``, and ``text`` with each replaced by a space
    (what ``pattern.sub(" ", text)`` gives: no pattern here matches the empty string),
    in one scan; none when no substring of ``needs`` is in ``text``."""
    if needs and not any(n in text for n in needs):
        return [], text
    matches = list(pattern.finditer(text))
    if not matches:
        return matches, text
    pieces = []
    end = 0
    for match in matches:
        pieces.append(text[end : match.start()])
        end = match.end()
    pieces.append(text[end:])
    return matches, " ".join(pieces)


class DomainReading:
    """What the audit reads for one domain: its enum values' forms and its month names.

    Args:
        domain: the domain.
    """

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.forms: dict[str, str] = {}
        """Folded form (each language's words, each alias) to the enum value it names."""
        self.slots_of: dict[str, list[str]] = {}
        """Enum value to the slots that have it, in declaration order."""
        for slot in domain.slots:
            for v in slot.values:
                self.slots_of.setdefault(v.value, []).append(slot.name)
                for form in (*v.say.values(), *v.aliases):
                    if fold(form).strip():
                        self.forms.setdefault(fold(form).strip(), v.value)
        self.enum_re = (
            re.compile(
                r"(?<![a-z0-9])("
                + "|".join(re.escape(f) for f in sorted(self.forms, key=len, reverse=True))
                + r")(?![a-z0-9])"
            )
            if self.forms
            else None
        )
        self.month_of: dict[str, int] = {m: i + 1 for i, m in enumerate(_EN_MONTHS)}
        for speech in domain.languages.values():
            for i, name in enumerate(speech.month_names):
                self.month_of.setdefault(fold(name).strip(), i + 1)
        names = sorted(self.month_of, key=len, reverse=True)
        words = "|".join(re.escape(n) for n in names)
        self.dates = _date_patterns(f"{words}|{_MONTH_ABBREVIATIONS}")
        self._read: dict[str, Mentions] = {}

    def mentions(self, text: str) -> Mentions:
        """``read_mentions(text, self)``, kept per text: a session audits the same texts
        again (a retry's context, the agent's and the plan's stock sentences). The result
        is shared between callers: read it, do not change it. Bounded: emptied when full.
        """
        found = self._read.get(text)
        if found is None:
            if len(self._read) >= _MAX_READ:
                self._read.clear()
            found = self._read[text] = read_mentions(text, self)
        return found

    def month(self, text: str) -> int:
        """The month a matched month word names (a full name, or an English abbreviation)."""
        if text.isdigit():
            return int(text)
        found = self.month_of.get(text)
        if found is not None:
            return found
        return next(i + 1 for i, m in enumerate(_EN_MONTHS) if m.startswith(text[:3]))


_MAX_READ = 4096
"""Most texts one domain's reading keeps."""


@lru_cache(maxsize=16)
def domain_reading(domain: Domain) -> DomainReading:
    """The reading of ``domain``, by its value (a frozen domain is hashable): every
    session of a run audits with one reading instead of compiling its patterns anew."""
    return DomainReading(domain)


@lru_cache(maxsize=4)
def shipped_reading(name: str = DEFAULT_DOMAIN) -> DomainReading:
    """The reading of the shipped domain ``name`` (its files do not change while simlab
    runs: one per name)."""
    return DomainReading(shipped_domain(name))


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
    """The enum values, dates, times and numbers one text mentions (folded text kept)."""

    folded: str
    enums: set[str] = field(default_factory=set)
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


def read_mentions(text: str, reading: DomainReading | None = None) -> Mentions:
    """Every enum value of the domain, date, time and number ``text`` mentions.

    Args:
        text: the message.
        reading: the domain's reading (default: the shipped default domain's).
    """
    reading = reading or shipped_reading()
    low = fold(text)
    out = Mentions(low)
    rest = low
    if reading.enum_re is not None:  # an enum's words are no date or number ("... de 400")
        found, rest = _cut(reading.enum_re, low, ())
        out.enums.update(reading.forms[m.group(1)] for m in found)
    if _DIGIT_RE.search(rest):  # every date, time and number pattern needs a digit
        for (pattern, (d, m, y)), needs in zip(reading.dates, _DATE_NEEDS, strict=True):
            found, rest = _cut(pattern, rest, needs)
            for match in found:
                month = reading.month(match.group(m))
                day = int(match.group(d))
                if 1 <= day <= 31 and 1 <= month <= 12:
                    out.dates.add((day, month))
                    if match.group(y):
                        out.numbers.add(int(match.group(y)))
        for pattern, needs in zip(_TIME_RES, _TIME_NEEDS, strict=True):
            found, rest = _cut(pattern, rest, needs)
            for match in found:
                hour, minute = int(match.group(1)), int(match.group(2) or 0)
                if hour <= 24 and minute < 60:
                    out.times.add((_hour(hour, match.group(3), match.group(4)), minute))
    if ("noon" in rest or "midday" in rest) and _NOON_RE.search(rest):
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
        key: the enum value, (day, month), (hour, minute) or number.
        forms: literal forms of a ``text`` value (an identifier: a reference, a card's digits).
        explains: numbers this value accounts for when they appear alone
            (a day, a year, an hour).
    """

    kind: Literal["enum", "date", "time", "int", "text", "none"]
    key: str | Number | tuple[int, int] = ""
    forms: tuple[re.Pattern[str], ...] = ()
    explains: frozenset[Number] = frozenset()


def _forms(*names: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(r"(?<![a-z0-9])" + re.escape(fold(n)) + r"(?![a-z0-9])") for n in names)


def _number(value: FactValue) -> Number | None:
    try:
        number = float(str(value).replace(",", ""))
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def signature(slot: Slot | DomainSlot | None, value: FactValue) -> _Signature:
    """The signature of one goal value, by its slot's type in the goal's domain.

    A slot the domain does not declare (a name, or None) is read by its value:
    a number if it is one, else uncheckable.
    """
    text = str(value)
    kind = slot.type if isinstance(slot, DomainSlot) else None
    if kind == "enum":
        return _Signature("enum", text)
    if kind == "date":
        year, month, day = (int(x) for x in text.split("-"))
        return _Signature("date", (day, month), explains=frozenset({day, month, year}))
    if kind == "time":
        hour, minute = (int(x) for x in text.split(":", 1))
        return _Signature(
            "time", (hour, minute), explains=frozenset({hour, hour % 12 or 12, minute})
        )
    if kind == "identifier":  # its digits, read as a number, are no invention
        found = (_number(raw) for raw in _NUMBER_RE.findall(fold(text)))
        return _Signature(
            "text", text, _forms(text), explains=frozenset(n for n in found if n is not None)
        )
    number = _number(value) if kind in (None, "integer", "number", "money") else None
    if number is None or (kind is None and not text.isdigit()):
        return _Signature("none")
    return _Signature("int", number, explains=frozenset({number}))


def _strictly_in(sig: _Signature, m: Mentions) -> bool:
    """The value is unmistakably in the text (used for leaks)."""
    if sig.kind == "enum":
        return sig.key in m.enums
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
    "the i i'm i'd want to please my and is for we it of need would like have help "
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
    r"|is there anything else i can|i(?: have|'ve) (?:booked|reserved|found|done that)"
    r"|(?:it|that|everything) (?:is|has been) confirmed|let me (?:check|search|look)"
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
        domain: the goal's domain: its slots' types say how each value shows
            (default: the shipped default domain).
    """

    def __init__(self, goal: Goal, persona: Persona, domain: Domain | None = None) -> None:
        self.persona = persona
        domain = domain or shipped_domain()
        self._reading = domain_reading(domain)
        self._slot = {f.id: f.slot for f in goal.facts}
        self._sigs: dict[tuple[str, FactValue], _Signature] = {}
        for f in goal.facts:
            self._sigs[f.id, f.value] = signature(domain.slot(f.slot) or f.slot, f.value)
        for c in goal.mind_changes:
            slot = self._slot[c.fact]
            self._sigs[c.fact, c.value] = signature(domain.slot(slot) or slot, c.value)
        sigs = self._sigs.values()
        self._keys = {(s.kind, s.key) for s in sigs}
        self._numbers: set[Number] = {n for s in sigs for n in s.explains}
        # the enum values a user might confuse with the goal's: those of its enum slots
        goal_slots = set(self._slot.values())
        self._rivals = {
            code
            for code, slots in self._reading.slots_of.items()
            if any(s in goal_slots for s in slots)
        }

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
        m = self._reading.mentions(text)
        joined = "\n".join(context)
        ctx = self._reading.mentions(joined)
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
        """Values of the goal's enum slots, dates, times and numbers that are no goal
        value and not echoed."""
        keys = self._keys
        found = [
            f"{'/'.join(self._reading.slots_of[c])} {c}"
            for c in sorted(m.enums - ctx.enums)
            if ("enum", c) not in keys and c in self._rivals
        ]
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
