"""The scripted verbalizer's phrasings, from the goal's domain: per language and style.

A domain's phrasings are resolved once per (language, style) and its values
rendered once per (slot, value, language), so a session never touches YAML.
Rendering a fact is a ``str.format_map`` over a placeholder table, done once per
phrasing and value: a session stating a fact draws one of the finished sentences.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from simlab.core import strip_diacritics
from simlab.simulators._draws import below
from simlab.spec import Domain, DomainSlot, FactValue, Language

_FALLBACK_STYLE = "neutral"
_WORD_RE = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True, slots=True)
class Phrasebook:
    """Every phrasing one (language, style) may use, fallbacks already applied."""

    language: Language
    intent: dict[str, tuple[str, ...]]
    slots: dict[str, tuple[str, ...]]
    connectives: dict[str, tuple[str, ...]]
    fillers: tuple[str, ...]
    corrections: dict[str, tuple[str, ...]]
    """Per slot, how a user corrects it (empty: the mind-change lead-in, then ``slots``)."""


def _pick_style(by_style: Mapping[str, Sequence[str]], style: str) -> tuple[str, ...]:
    return tuple(by_style.get(style) or by_style.get(_FALLBACK_STYLE) or ())


class DomainVoice:
    """How the users of one domain speak: phrasebooks, rendered values and the sentences
    they make, each made once.

    Args:
        domain: the domain.
    """

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self._books: dict[tuple[str, str], Phrasebook] = {}
        self._slots = {s.name: s for s in domain.slots}
        self._values: dict[tuple[str, FactValue, str], dict[str, str]] = {}
        self._sentences: dict[tuple[str, str, str, FactValue, bool], tuple[str, ...]] = {}

    def phrasebook(self, language: Language, style: str) -> Phrasebook:
        """The phrasings for ``style`` in ``language``, each falling back to ``neutral``.

        Raises:
            ValueError: the domain has no phrasings in ``language``.
        """
        key = (language, style)
        book = self._books.get(key)
        if book is None:
            book = self._books[key] = self._book(language, style)
        return book

    def _book(self, language: Language, style: str) -> Phrasebook:
        d = self.domain
        speech = d.languages.get(language)
        if speech is None:
            raise ValueError(
                f"domain {d.id!r} has no phrasings in {language!r}; it speaks "
                f"{', '.join(sorted(d.languages))}"
            )
        return Phrasebook(
            language=language,
            intent={i.tool: _pick_style(i.openings.get(language, {}), style) for i in d.intents},
            slots={
                s.name: _pick_style(s.say[language].state, style)
                for s in d.slots
                if language in s.say
            },
            connectives={key: _pick_style(v, style) for key, v in speech.phrases.items()},
            fillers=_pick_style(speech.fillers, style),
            corrections={
                s.name: _pick_style(s.say[language].correct, style)
                for s in d.slots
                if language in s.say and s.say[language].correct
            },
        )

    def values(self, slot: str, value: FactValue, language: Language) -> dict[str, str]:
        """The placeholder table a phrasing of ``slot`` is formatted with.

        Shared: callers must not mutate the returned mapping.

        Raises:
            ValueError: the slot is not the domain's, or the value cannot be rendered.
        """
        key = (slot, value, language)
        table = self._values.get(key)
        if table is None:
            spec = self._slots.get(slot)
            if spec is None:
                raise ValueError(f"slot {slot!r} is not one of domain {self.domain.id!r}'s")
            months = (
                self.domain.languages[language].month_names
                if (language in self.domain.languages)
                else []
            )
            table = self._values[key] = render_value(spec, value, language, months)
        return table

    def sentences(
        self,
        language: Language,
        style: str,
        slot: str,
        value: FactValue,
        *,
        correcting: bool = False,
    ) -> tuple[str, ...]:
        """Every sentence that states ``value`` of ``slot`` in ``language`` and ``style``:
        the phrasebook's phrasings of the slot (its corrections of it when
        ``correcting``), formatted, in their order.

        A user picking one draws what it would draw picking a phrasing to format, and a
        suite says the same few values thousands of times: each is formatted once.

        Raises:
            KeyError: the phrasebook has no phrasings (or corrections) for ``slot``.
            ValueError: as ``phrasebook`` and ``values`` raise.
        """
        key = (language, style, slot, value, correcting)
        said = self._sentences.get(key)
        if said is None:
            book = self.phrasebook(language, style)
            phrasings = (book.corrections if correcting else book.slots)[slot]
            table = self.values(slot, value, language)
            said = self._sentences[key] = tuple(p.format_map(table) for p in phrasings)
        return said


def render_value(
    slot: DomainSlot,
    value: FactValue,
    language: Language,
    month_names: Sequence[str] | None = None,
) -> dict[str, str]:
    """The placeholders of ``value`` of ``slot`` in ``language``: ``{value}`` and its type's.

    Raises:
        ValueError: an enum value the slot does not have, or a malformed date or time.
    """
    text = str(value)
    kind = slot.type
    if kind == "enum":
        found = slot.value(text)
        if found is None:
            known = sorted(v.value for v in slot.values)
            raise ValueError(f"{slot.name} value {text!r} is not one of {known}")
        return {"value": found.said(language), "code": text}
    if kind == "date":
        year, month, day = (int(x) for x in text.split("-"))
        names = month_names or []
        name = names[month - 1] if names else str(month)
        return {
            "value": text,
            "day": str(day),
            "month": str(month),
            "month_name": name,
            "year": str(year),
        }
    if kind == "time":
        hour, minute = (int(x) for x in text.split(":", 1))
        return {
            "value": text,
            "hour": str(hour % 12 or 12),
            "ampm": "am" if hour < 12 else "pm",
            "hour24": str(hour),
            "minute": f"{minute:02d}",
        }
    if kind == "money":
        amount = _number(value)
        return {"value": amount, "amount": amount, "currency": slot.currency or ""}
    if kind in ("integer", "number"):
        return {"value": _number(value)}
    return {"value": text}


def _number(value: FactValue) -> str:
    if isinstance(value, int):
        return str(value)
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)


@cache
def _strip_table() -> dict[int, str | None]:
    # str.translate over a table derived from core.strip_diacritics is ~10x
    # faster than NFD per message and equal on NFC text; combining marks (from
    # NFD input) are dropped as strip_diacritics drops them.
    table: dict[int, str | None] = {}
    for lo, hi in ((0x00C0, 0x024F), (0x1E00, 0x1EFF)):
        for code in range(lo, hi + 1):
            ch = chr(code)
            plain = strip_diacritics(ch)
            if plain != ch:
                table[code] = plain
    for code in range(0x0300, 0x0370):
        if unicodedata.category(chr(code)) == "Mn":
            table[code] = None
    return table


def fast_strip(text: str) -> str:
    """``strip_diacritics`` for NFC text, via a precomputed translation table."""
    if text.isascii():
        return text
    return text.translate(_strip_table())


@lru_cache(maxsize=8192)
def stripped_sentence(sentence: str) -> str:
    """``fast_strip``, cached by sentence: a user's sentences come from a domain's few phrasings,
    and ``str.translate`` looks each of their characters up in the table."""
    return fast_strip(sentence)


def add_typos(text: str, rate: float, rng: random.Random) -> str:
    """Each word of 3+ letters gets, with probability ``rate``, a swap or a dropped letter."""

    draw, bits = rng.random, rng.getrandbits

    def mangle(m: re.Match[str]) -> str:
        word = m.group(0)
        if draw() >= rate:
            return word
        i = below(bits, len(word) - 1)  # rng.randrange(len(word) - 1): the word has 3+ letters
        if draw() < 0.5 and word[i] != word[i + 1]:
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        return word[:i] + word[i + 1 :]

    return _WORD_RE.sub(mangle, text)
