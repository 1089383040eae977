"""A domain's phrasings as patterns: how a user states each slot, over folded text.

Each of a slot's ``state``, ``correct`` and ``heard`` templates becomes one regular
expression over lower-cased, accentless text (``fold``); its placeholders become
groups of the slot's shape (a day, a month's name, an amount, an enum's forms).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from simlab.core import strip_diacritics
from simlab.spec import Domain, DomainSlot, FactValue

NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
"""An amount as a user writes it (``1,200``, ``12.5``)."""


def fold(text: str) -> str:
    """Lower-cased, without diacritics: how messages and phrasings are compared."""
    return (text if text.isascii() else strip_diacritics(text)).lower()


@dataclass(frozen=True, slots=True)
class Phrasing:
    """One way a user states one slot, as a pattern over folded text."""

    slot: DomainSlot
    pattern: re.Pattern[str]
    names: tuple[str, ...]  # the placeholders it captures, in order
    language: str
    words: tuple[str, ...]  # its literal words, longest first: a text without one cannot match


def month_numbers(domain: Domain) -> dict[str, int]:
    """Each month's folded name and its first three letters, in every language: its number."""
    names: dict[str, int] = {}
    for speech in domain.languages.values():
        for i, name in enumerate(speech.month_names, 1):
            names.setdefault(fold(name), i)
            names.setdefault(fold(name)[:3], i)
    return names


def enum_forms(domain: Domain) -> dict[str, dict[str, FactValue]]:
    """Each enum slot's folded forms (as said in each language, and the value itself)."""
    return {
        s.name: {
            **{fold(v.said(lang)): v.value for v in s.values for lang in domain.languages},
            **{fold(v.value): v.value for v in s.values},
        }
        for s in domain.slots
        if s.type == "enum"
    }


def alternatives(forms: Mapping[str, object]) -> str:
    """A group matching any of ``forms``, the longest tried first."""
    return "(" + "|".join(map(re.escape, sorted(forms, key=len, reverse=True))) + ")"


def compile_phrasings(
    domain: Domain, months: Mapping[str, int], enums: Mapping[str, Mapping[str, FactValue]]
) -> tuple[Phrasing, ...]:
    """Every phrasing of every slot, in the domain's order (it decides ties)."""
    out: list[Phrasing] = []
    for slot in domain.slots:
        for lang, speech in slot.say.items():
            for styled in (speech.state, speech.correct, {"heard": speech.heard}):
                for phrasings in styled.values():
                    for template in phrasings:
                        out.append(_phrasing(slot, template, lang, months, enums))
    return tuple(out)


def _phrasing(
    slot: DomainSlot,
    template: str,
    lang: str,
    months: Mapping[str, int],
    enums: Mapping[str, Mapping[str, FactValue]],
) -> Phrasing:
    pieces = re.split(r"\{(\w+)\}", fold(template).strip().rstrip(".!"))
    regex = ""
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            regex += r"\s+".join(map(re.escape, piece.split(" ")))
        else:
            regex += _group(slot, piece, months, enums)
    if regex.endswith("+?)"):  # a free text value at the very end takes the clause
        regex = regex[:-3] + "+)"
    names = tuple(n for n in pieces[1::2] if n != "currency")
    words = sorted({w for piece in pieces[0::2] for w in piece.split()}, key=len, reverse=True)
    return Phrasing(slot, re.compile(regex), names, lang, tuple(words))


def _group(
    slot: DomainSlot,
    name: str,
    months: Mapping[str, int],
    enums: Mapping[str, Mapping[str, FactValue]],
) -> str:
    """The pattern of placeholder ``name`` in one of ``slot``'s phrasings."""
    if name in ("day", "month", "hour", "hour24", "minute"):
        return r"(\d{1,2})"
    if name == "year":
        return r"(\d{4})"
    if name == "month_name":
        return alternatives(months) if months else r"(\d{1,2})"
    if name == "ampm":
        return r"(am|pm)"
    if name == "currency":
        return "(?:" + re.escape(fold(slot.currency or "")) + ")?"
    if name == "amount" or slot.type in ("integer", "number", "money"):
        return NUMBER
    if slot.type == "enum":
        return alternatives(enums[slot.name])
    if slot.type == "identifier" and slot.pattern:
        return f"((?i:{slot.pattern}))"
    if slot.type == "date":
        return r"(\d{4}-\d{2}-\d{2})"
    if slot.type == "time":
        return r"(\d{1,2}:\d{2})"
    return r"([^.!?;,]+?)"
