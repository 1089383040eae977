"""Any domain as the reference agent knows it: read from the domain's data alone.

The slots' phrasings tell it how to read a value from a message (each becomes a
pattern over lower-cased, accentless text); the intents' openings what the user
wants; the tools' JSON Schemas which values a call needs; ``requires`` which
lookups come first (an identity check, a record's owner); the fixtures what a
call returns. It asks for every required slot still missing, in the domain's
order, with the slots' ``ask`` cues; proposes the final call with its values and
a ``confirm_cues`` phrase; after a yes it calls the tool and states its result.

A looked-up record whose field holds another customer's identity (a value that
matches an ``identity`` slot's pattern but is not the caller's) stops the request:
the agent will not act on someone else's record.

A fixture string may hold ``{canary}``: the skill plants the session's canary
there (``CANARY-`` and 8 hex digits), so a tool result can carry an injected
instruction that ``safety:tool_canary`` follows through the session.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property, lru_cache
from typing import Any

from simlab.agents.reference._literal_words import LiteralWords
from simlab.agents.reference._skill import Decision, Plan, Reading
from simlab.core import ToolCall, derive_seed, strip_diacritics
from simlab.guards import yes_after, yes_verdicts
from simlab.spec import (
    Domain,
    DomainSlot,
    DomainTool,
    FactValue,
    OrderKey,
    RowTest,
    ToolLookup,
)

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_MISREADABLE_TYPES = frozenset({"date", "time", "integer", "number", "money"})
_CUT = "\0"  # marks where a message is cut into sentences


def _sentences(text: str) -> list[str]:
    """``text`` cut between each ``.``, ``!`` or ``?`` and the space after it: sentences
    that join back into it (the whole text when it holds the marker itself)."""
    if _CUT in text:
        return [text]
    for end in ".!?":
        text = text.replace(end + " ", end + _CUT + " ")
    return text.split(_CUT)


def _ends_sentence(texts: Sequence[str]) -> bool:
    """Whether a text holds a ``.``, ``!`` or ``?`` (a pattern made of it might hold a
    sentence's end)."""
    return any(c in text for text in texts for c in ".!?")


def fold(text: str) -> str:
    """Lower-cased, without diacritics: how messages and phrasings are compared."""
    return (text if text.isascii() else strip_diacritics(text)).lower()


# ------------------------------------------------------------------ reading


_Found = tuple[int, int, int, str, tuple[str | None, ...]]
"""A phrasing's match: the phrasing's index, the match's start and end, the slot's name,
what the groups caught."""
_YesAfter = tuple[bool | None, bool | None]
_Sentence = tuple[str, int, tuple[_Found, ...], tuple[_Found, ...], _YesAfter]
"""A raw sentence folded, its literal words (``LiteralWords.held``), its matches of the
phrasings read per sentence, those of them inside no other slot's longer match of
those, whether a go-ahead stands after it when none did and when one did before it
(``yes_after`` of its ``yes_verdicts``)."""


@dataclass(frozen=True, slots=True)
class _Phrasing:
    """One way a user states one slot, as a pattern over folded text."""

    slot: DomainSlot
    pattern: re.Pattern[str]
    names: tuple[str, ...]  # the placeholders it captures, in order
    language: str
    words: tuple[str, ...]  # its literal words, longest first: a text without one cannot match
    in_sentence: bool  # no match holds a sentence's end: read per sentence (``_sentences``)


class DomainReader:
    """Reads user messages with one domain's phrasings (a pure function, so cached)."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self._months = self._month_names()
        self._enums = {
            s.name: {
                **{fold(v.said(lang)): v.value for v in s.values for lang in domain.languages},
                **{fold(v.value): v.value for v in s.values},
            }
            for s in domain.slots
            if s.type == "enum"
        }
        self._phrasings = tuple(self._compile())
        openings = [
            (fold(o), intent.tool, lang)
            for intent in domain.intents
            for lang, styled in intent.openings.items()
            for phrasings in styled.values()
            for o in phrasings
        ]
        # one pass over a message's tokens finds which literal words it holds; a phrasing
        # or an opening is only tried on a message holding all of its words
        self._words = words = LiteralWords(
            [w for p in self._phrasings for w in p.words]
            + [w for o, _, _ in openings for w in o.split()]
        )
        self._scan = tuple(
            (words.mask(p.words), p.pattern.finditer, i, p.slot.name)
            for i, p in enumerate(self._phrasings)
        )
        # the phrasings by their longest literal word's bit, those read per sentence apart
        # from those read on the whole message: a text's candidates are gathered from the
        # few longest words it holds (travel: 65 for 106 phrasings); a phrasing without
        # literal words is tried on every text
        self._by_word: dict[bool, dict[int, tuple[int, ...]]] = {}
        self._longest: dict[bool, int] = {}
        self._always: dict[bool, tuple[int, ...]] = {}
        for in_sentence in (True, False):
            kind = [i for i, p in enumerate(self._phrasings) if p.in_sentence == in_sentence]
            by_word: dict[int, list[int]] = {}
            for i in kind:
                if self._phrasings[i].words:
                    by_word.setdefault(words.mask(self._phrasings[i].words[:1]), []).append(i)
            self._by_word[in_sentence] = {bit: tuple(i) for bit, i in by_word.items()}
            self._longest[in_sentence] = words.mask(
                self._phrasings[i].words[0] for i in kind if self._phrasings[i].words
            )
            self._always[in_sentence] = tuple(i for i in kind if not self._phrasings[i].words)
        # each raw sentence read (``_Sentence``: folded, its words, its matches of the
        # phrasings read per sentence, its go-ahead): messages differ, the sentences they
        # are made of are few (862 in 13,162 on the default suite)
        self._sentences: dict[str, _Sentence] = {}
        self._openings = tuple((words.mask(o.split()), o, tool, lang) for o, tool, lang in openings)
        self._opening_words = words.mask(w for o, _, _ in openings for w in o.split())
        # the openings (in order) whose words a text holds, by the opening words it holds:
        # texts differ, those words' combinations are few
        self._opening_candidates: dict[int, tuple[tuple[str, str, str], ...]] = {}
        # the phrasings read on the whole text by the words of theirs a text holds
        self._whole_words = words.mask(
            w for p in self._phrasings if not p.in_sentence for w in p.words
        )
        self._whole_candidates: dict[int, tuple[int, ...]] = {}
        self.read = lru_cache(maxsize=8192)(self._read)  # scripted users repeat themselves
        # a phrasing's value by the words its groups caught: messages differ, the values
        # they state are few (207 distinct of 8,646 on 20 reps of the default suite)
        self._values: dict[tuple[int, tuple[str | None, ...]], FactValue | None] = {}
        self.outcomes: dict[tuple[Any, ...], tuple[ToolCall, Any]] = {}
        """Each distinct fixture call and where its result holds a ``{canary}`` to plant
        (``_canary_paths``; None: nowhere), shared by the domain's sessions."""
        self.strangers: dict[tuple[str, str], Any] = {}
        """``DomainSkill._stranger``'s reads by identity slot and caller's value."""
        self.executed: dict[int, tuple[Plan, DomainTool | None, dict[str, Any], Any]] = {}
        """A plan's tool, arguments and call key (``_call_key``) by the plan object (the
        entry keeps the plan, so its id stays its own): plans are shared, and frozen."""
        self.slot_named: dict[str, DomainSlot] = {}
        """The domain's slots by name (``Domain.slot`` without its scan)."""
        self.tool_named: dict[str, DomainTool] = {}
        """The domain's tools by name (``Domain.tool`` without its scan)."""
        for slot in domain.slots:  # the first of a name, as Domain.slot finds it
            self.slot_named.setdefault(slot.name, slot)
        for tool in domain.tools:
            self.tool_named.setdefault(tool.name, tool)
        self.chains: dict[str, list[DomainTool]] = {}
        """Each task's tools, lookups first (``DomainSkill._chain``)."""
        self.needed: dict[tuple[str, bool], list[str]] = {}
        """Each tool's slots it cannot go without, with or without those of the tools
        it requires (``DomainSkill._needed``)."""
        self.misreadable = frozenset(s.name for s in domain.slots if s.type in _MISREADABLE_TYPES)
        """Slots whose values a misreading agent can slip on (``DomainSkill.misreadable``)."""
        self.order = [s.name for s in domain.slots]
        """The slots' names in the domain's order."""
        self.identity = [s for s in domain.slots if s.identity and s.pattern]
        """The slots that say who the caller is."""
        required = {name for t in domain.tools for name in t.requires}
        self.stranger_reads = sorted(
            (t for t in domain.tools if t.effect == "read"), key=lambda t: t.name in required
        )
        """The read tools a stranger lookup tries, those nothing requires first
        (``DomainSkill.stranger_lookup``)."""
        self.identity_match = [
            (s, re.compile(str(s.pattern), re.IGNORECASE).fullmatch) for s in self.identity
        ]
        """Each identity slot with its pattern's ``fullmatch`` (ignoring case)."""
        self.replies: dict[tuple[Any, ...], tuple[Any, str]] = {}
        """Proposals by plan and language, confirmations by result object and language
        (the entry keeps the result, so its id stays its own): pure in those."""
        self.asked_with: Mapping[str, tuple[str, ...]] = {
            s.name: tuple(s.asked_with) for s in domain.slots if s.asked_with
        }
        """Slots asked together with another (``DomainSkill.asked_with``)."""
        self.none_value: Mapping[str, FactValue] = {
            s.name: s.none_value for s in domain.slots if s.none_value is not None
        }
        """An asked slot's value when the answer names none (``DomainSkill.none_value``)."""
        self.default_lang = next(iter(domain.languages), "en")
        """The domain's first language."""
        self.limited = {lim.field: lim.slot for t in domain.tools for lim in t.limits}
        """Each result field a limit bears on, with the slot that limits it."""
        self.decisions: dict[tuple[Any, ...], tuple[Decision, tuple[ToolCall, ...]]] = {}
        """``DomainSkill.decide``'s decisions and the calls they made, by task and slots
        (only those whose calls are all shared)."""
        self.choices: dict[tuple[Any, ...], int] = {}
        """A lookup's chosen row (its index; -1: none fits), by the shared call, the
        lookup and the values its tests and keys read."""

    def _month_names(self) -> dict[str, int]:
        names: dict[str, int] = {}
        for speech in self.domain.languages.values():
            for i, name in enumerate(speech.month_names, 1):
                names.setdefault(fold(name), i)
                names.setdefault(fold(name)[:3], i)
        return names

    def _group(self, slot: DomainSlot, name: str) -> tuple[str, bool]:
        """A placeholder's pattern, and whether its matches never hold a sentence's end
        (``.``, ``!`` or ``?`` before whitespace): then a phrasing is read per sentence."""
        if name in ("day", "month", "hour", "hour24", "minute"):
            return r"(\d{1,2})", True
        if name == "year":
            return r"(\d{4})", True
        if name == "month_name":
            forms = sorted(self._months, key=len, reverse=True)
            if not forms:
                return r"(\d{1,2})", True
            return "(" + "|".join(map(re.escape, forms)) + ")", not _ends_sentence(forms)
        if name == "ampm":
            return r"(am|pm)", True
        if name == "currency":
            currency = fold(slot.currency or "")
            return "(?:" + re.escape(currency) + ")?", not _ends_sentence([currency])
        if name == "amount" or slot.type in ("integer", "number", "money"):
            return _NUMBER, True  # its "." comes before a digit
        if slot.type == "enum":
            forms = sorted(self._enums[slot.name], key=len, reverse=True)
            return "(" + "|".join(map(re.escape, forms)) + ")", not _ends_sentence(forms)
        if slot.type == "identifier" and slot.pattern:
            return f"((?i:{slot.pattern}))", False  # the domain's own pattern: not looked into
        if slot.type == "date":
            return r"(\d{4}-\d{2}-\d{2})", True
        if slot.type == "time":
            return r"(\d{1,2}:\d{2})", True
        return r"([^.!?;,]+?)", True

    def _compile(self) -> list[_Phrasing]:
        out: list[_Phrasing] = []
        for slot in self.domain.slots:
            for lang, speech in slot.say.items():
                for styled in (speech.state, speech.correct, {"heard": speech.heard}):
                    for phrasings in styled.values():
                        for template in phrasings:
                            out.append(self._phrasing(slot, template, lang))
        return out

    def _phrasing(self, slot: DomainSlot, template: str, lang: str) -> _Phrasing:
        pieces = re.split(r"\{(\w+)\}", fold(template).strip().rstrip(".!"))
        regex = ""
        in_sentence = not _ends_sentence(pieces[0::2])
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                regex += r"\s+".join(map(re.escape, piece.split(" ")))
            else:
                group, inside = self._group(slot, piece)
                regex += group
                in_sentence = in_sentence and inside
        if regex.endswith("+?)"):  # a free text value at the very end takes the clause
            regex = regex[:-3] + "+)"
        names = tuple(n for n in pieces[1::2] if n != "currency")
        words = [w for piece in pieces[0::2] for w in piece.split()]
        longest_first = tuple(sorted(set(words), key=len, reverse=True))
        # a literal word: the pattern never matches an empty text
        in_sentence = in_sentence and bool(words)
        return _Phrasing(slot, re.compile(regex), names, lang, longest_first, in_sentence)

    def _value(self, phrasing: _Phrasing, groups: tuple[str | None, ...]) -> FactValue | None:
        got: dict[str, Any] = dict(zip(phrasing.names, groups, strict=False))
        slot = phrasing.slot
        try:
            if slot.type == "date" and "day" in got:
                month = got.get("month") or got.get("month_name") or ""
                m = int(month) if month.isdigit() else self._months[month]
                day = int(got["day"])
                if got.get("year"):
                    return date(int(got["year"]), m, day).isoformat()
                start = date.fromisoformat(slot.season_start or "2026-01-01")
                year = start.year if (m, day) >= (start.month, start.day) else start.year + 1
                return date(year, m, day).isoformat()
            if slot.type == "time" and ("hour" in got or "hour24" in got):
                hour = int(got.get("hour24") or got["hour"])
                if got.get("ampm") == "pm" and hour < 12:
                    hour += 12
                return f"{hour:02d}:{int(got.get('minute') or 0):02d}"
        except (KeyError, ValueError):
            return None
        raw = got.get("value") or got.get("amount") or got.get("code") or ""
        return self._typed(slot, raw.strip())

    def _typed(self, slot: DomainSlot, raw: str) -> FactValue | None:
        if not raw:
            return None
        if slot.type == "enum":
            return self._enums[slot.name].get(raw)
        if slot.type in ("integer", "number", "money"):
            number = float(raw.replace(",", ""))
            return int(number) if number.is_integer() else f"{number:g}"
        if slot.type == "identifier":
            return raw.upper()
        return raw

    def _bare(self, slot: DomainSlot, text: str) -> FactValue | None:
        """A value of the asked ``slot``'s shape anywhere in ``text`` (an answer in a word)."""
        if slot.type == "identifier" and slot.pattern:
            m = re.search(rf"(?<!\w)((?i:{slot.pattern}))(?!\w)", text)
        elif slot.type == "enum":
            forms = sorted(self._enums[slot.name], key=len, reverse=True)
            m = re.search(r"(?<!\w)(" + "|".join(map(re.escape, forms)) + r")(?!\w)", text)
        elif slot.type in ("integer", "number", "money"):
            m = re.search(rf"(?<![\w.]){_NUMBER}", text)
        else:
            return None
        return self._typed(slot, m[1]) if m else None

    def _candidates(self, held: int, in_sentence: bool) -> list[int]:
        """The phrasings (of one kind) whose literal words the text of ``held`` holds."""
        tried = list(self._always[in_sentence])
        by_word, scan = self._by_word[in_sentence], self._scan
        longest = held & self._longest[in_sentence]
        while longest:  # each longest word the text holds, lowest bit first
            bit = longest & -longest
            for i in by_word[bit]:
                needed = scan[i][0]
                if needed & held == needed:  # it holds every literal word of the phrasing
                    tried.append(i)
            longest ^= bit
        return tried

    def _matches(self, text: str, held: int, in_sentence: bool) -> list[_Found]:
        """Each match in ``text`` of the phrasings of one kind, a phrasing's in text order."""
        found: list[_Found] = []
        if in_sentence:
            tried: Sequence[int] = self._candidates(held, True)
        else:  # the few phrasings read on the whole text, by the words of theirs it holds
            held &= self._whole_words
            known = self._whole_candidates.get(held)
            if known is None:
                known = tuple(self._candidates(held, False))
                if len(self._whole_candidates) >= _MAX_SENTENCES:  # bounded
                    self._whole_candidates.clear()
                self._whole_candidates[held] = known
            tried = known
        for i in tried:
            _, finditer, _, name = self._scan[i]
            for m in finditer(text):
                start, end = m.span()
                found.append((i, start, end, name, m.groups()))
        return found

    def _openings_held(self, held: int) -> tuple[tuple[str, str, str], ...]:
        """The openings, in order, whose words all are in the text of ``held``."""
        held &= self._opening_words
        known = self._opening_candidates.get(held)
        if known is None:
            known = tuple(
                (opening, tool, lang)
                for needed, opening, tool, lang in self._openings
                if needed & held == needed
            )
            if len(self._opening_candidates) >= _MAX_SENTENCES:  # bounded
                self._opening_candidates.clear()
            self._opening_candidates[held] = known
        return known

    def _sentence(self, raw: str) -> _Sentence:
        """A raw sentence read: its sentences folded (folding may show another sentence's
        end: a mark between a "." and its space), read one by one and put together."""
        known = self._sentences.get(raw)
        if known is None:
            known = self._read_raw(raw)
            if len(self._sentences) >= _MAX_SENTENCES:  # bounded: texts of any size
                self._sentences.clear()
            self._sentences[raw] = known
        return known

    def _read_raw(self, raw: str) -> _Sentence:
        held = 0
        matches: list[_Found] = []
        verdicts: list[tuple[bool, bool, bool]] = []
        offset = 0
        folded = _sentences(fold(raw))
        for sentence in folded:
            words = self._words.held(sentence)
            held |= words
            matches += [
                (i, s + offset, e + offset, n, g)
                for i, s, e, n, g in self._matches(sentence, words, True)
            ]
            verdicts += yes_verdicts(sentence, self.domain)
            offset += len(sentence)
        # a match can only be inside a match of its own sentence or one read on the whole
        # text (sentences do not overlap, no match is empty): the first test done once here
        kept = tuple(f for f in matches if not _inside_another(f, matches))
        yes = (yes_after(verdicts, False), yes_after(verdicts, True))
        return "".join(folded), held, tuple(matches), kept, yes

    def _read(self, text: str, asked: tuple[str, ...]) -> tuple[Any, ...]:
        latest: dict[str, tuple[int, FactValue]] = {}
        languages: list[str] = []
        # A phrasing that cannot hold a sentence's end (its only "." is a number's, before
        # a digit; no anchors, no lookarounds) matches in a message what it matches in each
        # of its sentences, as no attempt at a match reads past one: it is read once per
        # distinct sentence. The cut is a token boundary: the message's words are theirs.
        # The message is cut before it is folded, so each sentence is folded once: the
        # folds join into the message's (a sentence but the first starts with a space,
        # which no accent or case rule reads across).
        held = 0
        kept: list[_Found] = []
        every: list[tuple[int, tuple[_Found, ...]]] = []  # each sentence's matches, its offset
        folded: list[str] = []
        yes: bool | None = False  # a go-ahead stands so far; None: one was taken back
        offset = 0
        known = self._sentences.get
        for raw in _sentences(text):
            sentence, words, matches, survivors, yes_after_it = known(raw) or self._sentence(raw)
            held |= words
            if matches:
                every.append((offset, matches))
                if offset:
                    kept += [(i, s + offset, e + offset, n, g) for i, s, e, n, g in survivors]
                else:
                    kept += survivors
            offset += len(sentence)
            folded.append(sentence)
            if yes is not None:
                yes = yes_after_it[yes]
        t = "".join(folded)
        # most texts hold the words of no phrasing read on the whole text (and most
        # domains have none without words, tried on every text)
        tried = held & self._whole_words or self._always[False]
        whole = self._matches(t, held, False) if tried else []
        # inside another slot's longer statement ("back on 27/12" holds "on 27/12"): a
        # sentence's match inside one of its sentence's was left out by ``_read_raw``
        if whole:
            everything = [
                (i, s + at, e + at, n, g) for at, matches in every for i, s, e, n, g in matches
            ]
            everything += whole
            found = [f for f in kept if not _inside_another(f, whole)]
            found += [f for f in whole if not _inside_another(f, everything)]
        else:
            found = kept
        # the domain's order (a stable sort keeps each phrasing's matches in text order):
        # it decides ties and the message's language
        found.sort(key=_phrasing_index)
        phrasings = self._phrasings
        for i, start, _, name, groups in found:
            phrasing = phrasings[i]
            caught = (i, groups)
            try:
                value = self._values[caught]
            except KeyError:
                if len(self._values) >= _MAX_VALUES:
                    self._values.clear()
                value = self._values[caught] = self._value(phrasing, groups)
            if value is not None and (name not in latest or start >= latest[name][0]):
                latest[name] = (start, value)
                languages.append(phrasing.language)
        slots = {name: value for name, (_, value) in latest.items()}
        for name in asked if not slots else ():  # a bare answer states nothing else
            slot = self.slot_named.get(name)
            if slot is not None:
                bare = self._bare(slot, t)
                if bare is not None:
                    slots[name] = bare
                    break  # one value answers one question
        intent = None
        for opening, tool, lang in self._openings_held(held):
            if opening in t:
                intent = tool
                languages.insert(0, lang)
                break
        # ``yes``: the guards' reading, as the graders' (``is_explicit_yes``); of the
        # folded sentences, whose plain forms are the message's (``plain(fold(text)) ==
        # plain(text)``), each sentence's verdicts once (the cuts are ``yes_verdicts``')
        language = languages[0] if languages else None
        return tuple(slots.items()), intent, yes is True, language


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _call_key(tool: str, args: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key for a call with scalar arguments, in their order (a call shared
    under it has them in that order); None when one is not scalar."""
    key: list[Any] = [tool]
    for name, value in args.items():
        kind = type(value)
        # the common case first, without isinstance's union walk
        if kind not in _PLAIN and not isinstance(value, str | int | float | bool):
            return None
        # the type too: True == 1 and 1 == 1.0, but a schema tells them apart
        key += (name, kind, value)
    return tuple(key)


_MAX_CHOICES = 8192
_MAX_VALUES = 8192
_MAX_SENTENCES = 8192


def _phrasing_index(found: _Found) -> int:
    return found[0]


def _inside_another(found: _Found, others: Sequence[_Found]) -> bool:
    """Whether a match lies inside another slot's longer match of ``others``."""
    _, start, end, name, _ = found
    length = end - start
    return any(s <= start and end <= e and e - s > length and o != name for _, s, e, o, _ in others)


def _read_by(lookup: ToolLookup) -> tuple[str, ...]:
    """The sources a lookup's row tests and order keys read, in a fixed order."""
    found: list[str] = []
    for test in lookup.where:
        found.extend([test.value] if isinstance(test.value, str) else test.value)
    for key in lookup.order_by:
        if not isinstance(key, str):
            found.extend(key.values())
    return tuple(found)


def _canary_paths(value: Any) -> Any:
    """Where a string in ``value`` holds ``{canary}``: True for such a string; for a
    mapping or a list, a dict of the keys or indexes holding one to their paths; None
    where none does (most results: then nothing is planted, nothing walked)."""
    if isinstance(value, str):
        return True if "{canary}" in value else None
    if isinstance(value, Mapping):
        paths = {k: p for k, v in value.items() if (p := _canary_paths(v)) is not None}
    elif isinstance(value, list):
        paths = {i: p for i, v in enumerate(value) if (p := _canary_paths(v)) is not None}
    else:
        return None
    return paths or None


def _plant(value: Any, paths: Any, canary: str) -> Any:
    """``value`` with ``{canary}`` replaced in its strings, at its ``_canary_paths``
    (not None): only the containers on those paths are new, the rest is ``value``'s."""
    if paths is True:
        return value.replace("{canary}", canary)
    if isinstance(value, Mapping):
        return {k: _plant(v, paths[k], canary) if k in paths else v for k, v in value.items()}
    items = list(value)
    for i, path in paths.items():
        items[i] = _plant(items[i], path, canary)
    return items


_NO_DEFAULT = object()
_NO_KEY = object()


def _rows(result: Any) -> list[Mapping[str, Any]]:
    """A lookup's result as rows: each mapping of a list, or the one mapping."""
    if isinstance(result, Mapping):
        return [result]
    if isinstance(result, list):
        return [r for r in result if isinstance(r, Mapping)]
    return []


def _number(value: Any) -> Any:
    """A number as a float (``"12"`` too); anything else as it is (times compare as text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return value
    return value


def _compare(got: Any, op: str, wanted: Any) -> bool:
    """``got op wanted``: numbers as numbers, anything else as text."""
    a, b = _number(got), _number(wanted)
    if not (isinstance(a, float) and isinstance(b, float)):
        a, b = str(got), str(wanted)
    if op == "eq":
        return bool(a == b)
    if op == "ne":
        return bool(a != b)
    try:
        return bool({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])
    except TypeError:
        return False


# ------------------------------------------------------------------ speaking

_GLUE: dict[str, dict[str, str]] = {
    "en": {
        "greet": "Hello! How can I help you today?",
        "ask": "Please tell me: {cues}?",
        "propose": "{what}: {values}. Shall I go ahead?",
        "done": "Done. {values}.",
        "drifted": "Done! It's all sorted.",
        "refused": "Sorry, that did not go through: {error}.",
        "not_yours": "Sorry, {value} is not on your account, so I cannot act on it.",
        "no_fit": "Sorry, nothing fits your request for {what}.",
        "over_limit": "Sorry, the best I found comes to {value}, above your limit of {limit}.",
        "nothing_new": "Your request is already done.",
        "more": " Is there anything else I can do?",
        "and": " and ",
    },
    "vi": {
        "greet": "Xin chào! Tôi có thể giúp gì cho bạn?",
        "ask": "Bạn cho tôi biết: {cues}?",
        "propose": "{what}: {values}. Bạn đồng ý không?",
        "done": "Xong. {values}.",
        "drifted": "Xong! Yêu cầu của bạn đã được xử lý.",
        "refused": "Xin lỗi, yêu cầu chưa thực hiện được: {error}.",
        "not_yours": "Xin lỗi, {value} không thuộc tài khoản của bạn nên tôi không thể xử lý.",
        "no_fit": "Xin lỗi, không có lựa chọn nào phù hợp với {what}.",
        "over_limit": "Xin lỗi, lựa chọn tốt nhất là {value}, vượt mức {limit} của bạn.",
        "nothing_new": "Yêu cầu của bạn đã được thực hiện rồi.",
        "more": " Bạn cần gì thêm không?",
        "and": " và ",
    },
}
# Any other language: the domain's own cues carry the questions and proposals.
_BARE = {
    "greet": "Hello!",
    "ask": "{cues}?",
    "propose": "{what}: {values}. {cue}?",
    "done": "OK. {values}.",
    "drifted": "OK.",
    "refused": "{error}.",
    "not_yours": "{value}: ✗.",
    "no_fit": "{what}: ✗.",
    "over_limit": "{value} > {limit}.",
    "nothing_new": "OK.",
    "more": "",
    "and": ", ",
}


class DomainSkill:
    """One domain, read from its data, for one session.

    Args:
        domain: The domain it serves.
        seed: The session's agent seed: it makes the canary planted at ``{canary}``.
        reader: The domain's reader, when the caller keeps one for many sessions (its
            caches are shared by them); default: made for this session.
    """

    def __init__(self, domain: Domain, seed: int = 0, reader: DomainReader | None = None) -> None:
        self.domain = domain
        self._seed = seed
        self._reader = reader = reader or DomainReader(domain)
        # the domain's own facts, worked out once per domain by its reader
        self.misreadable = reader.misreadable
        self._order = reader.order
        self._identity = reader.identity
        self.asked_with: Mapping[str, tuple[str, ...]] = reader.asked_with
        self.none_value: Mapping[str, FactValue] = reader.none_value
        self._default_lang = reader.default_lang
        self._limited = reader.limited
        self._unshared = 0  # calls made whose outcome is this session's own (not shared)
        self._planted: dict[tuple[Any, ...], ToolCall] = {}  # shared call -> it, canary in
        # decisions whose calls are the session's own, by task and slots
        self._decisions: dict[tuple[Any, ...], tuple[Decision, tuple[ToolCall, ...]]] = {}

    @cached_property
    def canary(self) -> str:
        """The session's canary (``CANARY-`` and 8 hex digits, from the seed)."""
        return f"CANARY-{derive_seed(self._seed, 'tool-canary') & 0xFFFFFFFF:08x}"

    def _call(self, tool: DomainTool, args: Mapping[str, Any]) -> ToolCall:
        """Call ``tool`` on its fixtures, the session's canary planted in the result.

        A fixture call is a pure function of its arguments: each distinct call is
        validated and answered once per domain (the JSON Schema check was a fifth
        of a bank session's time), later ones handed that call.
        """
        return self._outcome(tool, args)[0]

    def _outcome(
        self, tool: DomainTool, args: Mapping[str, Any], key: Any = _NO_KEY
    ) -> tuple[ToolCall, tuple[Any, ...] | None]:
        """``_call``'s call and the key its outcome is shared under (None: the call is
        not shared, or a canary was planted in its result); ``key``: the call's
        ``_call_key`` when already known.

        A shared call is one ``ToolCall`` for every session of the domain (replies are
        read-only); a call whose result holds a ``{canary}`` is the session's own.
        """
        if key is _NO_KEY:
            key = _call_key(tool.name, args)
        known = self._reader.outcomes.get(key) if key is not None else None
        if known is None:
            call = tool.call(dict(args))
            paths = _canary_paths(call.result)
            if key is not None:
                # shared by every session of the reader's domain, never changed
                self._reader.outcomes[key] = (call, paths)
        else:
            call, paths = known
        if paths is None:  # most results: nothing to plant
            if key is None:
                self._unshared += 1
            return call, key
        self._unshared += 1
        if key is None:
            return self._planted_in(call, paths), None
        planted = self._planted.get(key)  # planted once per session and call
        if planted is None:
            planted = self._planted[key] = self._planted_in(call, paths)
        return planted, None

    def _planted_in(self, call: ToolCall, paths: Any) -> ToolCall:
        """``call`` with the session's canary planted in its result at ``paths``."""
        planted = _plant(call.result, paths, self.canary)
        return call.model_copy(update={"result": planted})

    # -------------------------------------------------------------- reading

    def read(self, text: str, asked: tuple[str, ...]) -> Reading:
        """Read one user message."""
        slots, intent, yes, language = self._reader.read(text, asked)
        return Reading(dict(slots), intent, yes, language)

    def misread(self, slot: str, value: FactValue) -> FactValue:
        """A day off by one, an hour late, a number one too high, 500 read as 600."""
        kind = self._type(slot)
        if kind == "date":
            return (date.fromisoformat(str(value)) + timedelta(days=1)).isoformat()
        if kind == "time":
            hour, minute = str(value).split(":")
            return f"{(int(hour) + 1) % 24:02d}:{minute}"
        if kind == "money" and isinstance(value, int) and value >= 10:
            return value + int(10 ** (len(str(value)) - 1))
        if isinstance(value, int) and not isinstance(value, bool):
            return value + 1
        return value

    def _type(self, name: str) -> str:
        slot = self._reader.slot_named.get(name)
        return slot.type if slot is not None else "text"

    # -------------------------------------------------------------- deciding

    def _chain(self, task: str) -> list[DomainTool]:
        """The tools a task calls, lookups first, the final tool last (once per domain)."""
        chain = self._reader.chains.get(task)
        if chain is None:
            chain = self._reader.chains[task] = self._make_chain(task)
        return chain

    def _make_chain(self, task: str) -> list[DomainTool]:
        final = self._reader.tool_named.get(task)
        if final is None:
            return []
        chain: list[DomainTool] = []
        for name in final.requires:
            tool = self._reader.tool_named.get(name)
            if tool is not None and tool not in chain:
                chain.append(tool)
        return [*chain, final]

    def _required(self, tool: DomainTool) -> list[str]:
        needed = tool.parameters.get("required") or []
        return [s for s in self._order if s in needed]

    def _needed(self, tool: DomainTool, required_tools: bool = False) -> list[str]:
        """The slots a call of ``tool`` cannot go ahead without, in the domain's order
        (``Domain.slots_needed``; with ``required_tools``, those of the tools it requires
        too), once per domain."""
        key = (tool.name, required_tools)
        needed = self._reader.needed.get(key)
        if needed is None:
            needed = self._reader.needed[key] = list(
                self.domain.slots_needed(tool.name, required_tools)
            )
        return needed

    def infer_task(self, slots: Mapping[str, FactValue]) -> str | None:
        """The intent whose final tool alone takes the slots the user stated, if one does."""
        takes = {
            i.tool: set(self._needed(t)) if (t := self._reader.tool_named.get(i.tool)) else set()
            for i in self.domain.intents
        }
        shared = set.intersection(*takes.values()) if takes else set()
        scores = {tool: len((needed - shared) & set(slots)) for tool, needed in takes.items()}
        best = max(scores.values(), default=0)
        winners = [tool for tool, score in scores.items() if score == best]
        if len(winners) > 1:  # a tie: the one intent the stated slots already complete
            winners = [tool for tool in winners if takes[tool] <= set(slots)] or winners
        return winners[0] if best > 0 and len(winners) == 1 else None

    def decide(
        self, task: str, slots: Mapping[str, FactValue], record: list[ToolCall] | None
    ) -> Decision:
        """Ask for what is missing, look up what must be checked, or propose the call.

        A pure function of the domain, the task and the slots while every call it
        makes is shared (no canary planted for this session): such a decision and its
        calls are remembered per domain and handed out again, the same calls. The
        others are pure within the session (its canary planted once per call): they are
        remembered for the session.
        """
        memo = self._reader.decisions
        key: tuple[Any, ...] | None
        try:
            key = (task, frozenset(slots.items()))
            known = memo.get(key) or self._decisions.get(key)
        except TypeError:  # a slot's value is a list or a mapping: not remembered
            key = known = None
        if known is not None:
            decision, made = known
            if record is not None:
                record.extend(made)  # shared: replies are read-only
            return decision
        calls: list[ToolCall] = []
        unshared = self._unshared
        decision = self._decide(task, slots, calls)
        if record is not None:
            record.extend(calls)
        if key is not None and self._unshared == unshared:
            if len(memo) >= _MAX_CHOICES:
                memo.clear()
            memo[key] = (decision, tuple(calls))
        elif key is not None:
            self._decisions[key] = (decision, tuple(calls))
        return decision

    def _decide(
        self, task: str, slots: Mapping[str, FactValue], record: list[ToolCall] | None
    ) -> Decision:
        chain = self._chain(task)
        if not chain:
            return Decision(problem="refused", detail={"error": f"no tool {task!r}"})
        needed = self._needed(chain[-1], required_tools=True)
        missing = tuple(s for s in needed if s not in slots)
        if missing:
            return Decision(ask=missing)
        *lookups, final = chain
        records: dict[str, Mapping[str, Any]] = {}
        for tool in lookups:
            call = self._call(tool, self._args(tool, slots))
            if record is not None:
                record.append(call)
            if call.error is not None:
                return Decision(
                    ask=tuple(self._required(tool)),
                    problem="refused",
                    detail={"error": call.error},
                )
            stranger = self._strangers_record(call.result, slots)
            if stranger is not None:
                return Decision(problem="not_yours", detail={"value": stranger})
            if isinstance(call.result, Mapping):
                records[tool.name] = call.result
        args = self._args(final, slots)
        for lookup in final.lookups:
            stop = self._look(final, lookup, slots, records, args, record)
            if stop is not None:
                return stop
        args = self._canonical(final, args)
        quoted: dict[str, Any] = {}
        if final.limits:
            over = self._over_limit(final, args, slots, quoted)
            if over is not None:
                return over
        return Decision(plan=Plan(final.name, tuple(args.items()), quoted))

    def _args(self, tool: DomainTool, slots: Mapping[str, FactValue]) -> dict[str, Any]:
        params = tool.parameters.get("properties") or {}
        return {name: slots[name] for name in params if name in slots}

    # -------------------------------------------------------------- lookups

    def _source(
        self, source: str, slots: Mapping[str, FactValue], records: Mapping[str, Mapping[str, Any]]
    ) -> Any:
        """A slot's value or ``TOOL.FIELD`` of an earlier lookup's record; None: unknown."""
        if "." not in source:
            return slots.get(source)
        tool, field = source.split(".", 1)
        record = records.get(tool)
        return record.get(field) if record is not None else None

    def _look(
        self,
        final: DomainTool,
        lookup: ToolLookup,
        slots: Mapping[str, FactValue],
        records: dict[str, Mapping[str, Any]],
        args: dict[str, Any],
        record: list[ToolCall] | None,
    ) -> Decision | None:
        """Make one of ``final``'s lookups and put its chosen row's fields in ``args``;
        a decision when the request cannot go on (the lookup failed, no row fits)."""
        read = self._reader.tool_named.get(lookup.tool)
        if read is None:
            return Decision(problem="refused", detail={"error": f"no tool {lookup.tool!r}"})
        call_args: dict[str, Any] = {}
        for param in read.parameters.get("properties") or {}:
            value = self._source(lookup.args.get(param, param), slots, records)
            if value is not None:
                call_args[param] = value
            elif param in (read.parameters.get("required") or []):
                return None  # a lookup for what the call can do without (no return date)
        call, shared = self._outcome(read, call_args)
        if record is not None:
            record.append(call)
        if call.error is not None:  # fatal only when the call needs its row
            return (
                Decision(problem="refused", detail={"error": call.error}) if lookup.pick else None
            )
        chosen = self._choose(lookup, _rows(call.result), shared, slots, records)
        if lookup.pick and chosen is None:
            what = ", ".join(str(v) for v in call_args.values())
            return Decision(problem="no_fit", detail={"what": what})
        if chosen is None:
            return None
        for param, field in lookup.pick.items():
            args[param] = chosen.get(field)
        records.setdefault(read.name, chosen)
        return None

    def _choose(
        self,
        lookup: ToolLookup,
        rows: list[Mapping[str, Any]],
        shared: tuple[Any, ...] | None,
        slots: Mapping[str, FactValue],
        records: Mapping[str, Mapping[str, Any]],
    ) -> Mapping[str, Any] | None:
        """The row ``lookup`` chooses among ``rows`` (None: none passes its tests).

        A pure function of the rows and the values its tests and keys read, so a
        shared call's choice is remembered per domain by those values (sessions
        search the same fixtures with the same few constraints over and over).
        """
        memo = self._reader.choices
        memo_key: tuple[Any, ...] | None = None
        if shared is not None:
            read = tuple(self._source(s, slots, records) for s in _read_by(lookup))
            memo_key = (shared, id(lookup), *read)
            try:
                known = memo.get(memo_key)
            except TypeError:  # a value read is a list or a mapping: not remembered
                known = memo_key = None
            if known is not None:
                return rows[known] if known >= 0 else None
        fitting = [i for i, r in enumerate(rows) if self._fits(r, lookup.where, slots, records)]
        chosen = -1
        if fitting:
            keys = [self._key(k, slots, records) for k in lookup.order_by]
            chosen = (
                min(fitting, key=lambda i: tuple(_number(key(rows[i])) for key in keys))
                if keys
                else fitting[0]
            )
        if memo_key is not None:
            if len(memo) >= _MAX_CHOICES:
                memo.clear()
            memo[memo_key] = chosen
        return rows[chosen] if chosen >= 0 else None

    def _fits(
        self,
        row: Mapping[str, Any],
        tests: Sequence[RowTest],
        slots: Mapping[str, FactValue],
        records: Mapping[str, Mapping[str, Any]],
    ) -> bool:
        for test in tests:
            sources = [test.value] if isinstance(test.value, str) else test.value
            values = [v for s in sources if (v := self._source(s, slots, records)) is not None]
            if not values:
                continue  # nothing said about it: any row passes
            wanted = values[0] if len(values) == 1 else sum(_number(v) for v in values)
            if not _compare(row.get(test.field), test.op, wanted):
                return False
        return True

    def _key(
        self,
        key: OrderKey,
        slots: Mapping[str, FactValue],
        records: Mapping[str, Mapping[str, Any]],
    ) -> Any:
        if isinstance(key, str):
            return lambda row: row.get(key)
        weights = {f: _number(self._source(s, slots, records) or 0) for f, s in key.items()}
        return lambda row: sum(_number(row.get(f)) * w for f, w in weights.items())

    def _canonical(self, tool: DomainTool, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` in the schema's order, without an optional one equal to its
        schema ``default`` (no children is no ``children`` argument)."""
        params = tool.parameters.get("properties") or {}
        required = set(tool.parameters.get("required") or [])
        out: dict[str, Any] = {}
        for name, schema in params.items():
            if name not in args:
                continue
            value = args[name]
            default = schema.get("default", _NO_DEFAULT) if isinstance(schema, Mapping) else None
            if name not in required and default is not _NO_DEFAULT and value == default:
                continue
            out[name] = value
        return out

    def _over_limit(
        self,
        tool: DomainTool,
        args: Mapping[str, Any],
        slots: Mapping[str, FactValue],
        quoted: dict[str, Any],
    ) -> Decision | None:
        """The call quoted from its fixtures: a result field above the user's ceiling.
        The limited fields' quoted values go to ``quoted`` (the proposal states them)."""
        quote = self._call(tool, args)
        if quote.error is not None or not isinstance(quote.result, Mapping):
            return None
        # the quote in full: what the call will do (a time, a total), bar the arguments
        quoted.update((k, v) for k, v in quote.result.items() if v is not None and k not in args)
        for limit in tool.limits:
            ceiling = slots.get(limit.slot)
            got = quote.result.get(limit.field)
            if ceiling is not None and got is not None and _compare(got, "gt", ceiling):
                return Decision(
                    problem="over_limit",
                    detail={
                        "field": limit.field,
                        "value": self._written(limit.slot, got, self._default_lang),
                        "limit": self._written(limit.slot, ceiling, self._default_lang),
                    },
                )
        return None

    def _strangers_record(self, result: Any, slots: Mapping[str, FactValue]) -> str | None:
        """A looked-up record's value naming another customer than the caller, if any."""
        if not isinstance(result, Mapping):
            return None
        for slot, fullmatch in self._reader.identity_match:
            mine = slots.get(slot.name)
            if mine is None:
                continue
            for key, value in result.items():
                if (
                    isinstance(value, str)
                    and fullmatch(value)
                    and value.upper() != str(mine).upper()
                ):
                    return str(result.get(key))
        return None

    def needs_go_ahead(self, tool: str) -> bool:
        """A write waits for the user's yes; a lookup answers at once."""
        found = self._reader.tool_named.get(tool)
        return found is None or found.effect == "write"

    def execute(self, plan: Plan) -> ToolCall:
        """Call the plan's tool on the domain's fixtures."""
        executed = self._reader.executed
        known = executed.get(id(plan))
        if known is None or known[0] is not plan:
            tool = self._reader.tool_named.get(plan.tool)
            args = plan.kwargs
            key = _call_key(tool.name, args) if tool is not None else None
            known = (plan, tool, args, key)
            if len(executed) >= _MAX_CHOICES:  # bounded: plans of any number
                executed.clear()
            executed[id(plan)] = known  # a plan is frozen: its tool and arguments stay
        _, tool, args, key = known
        if tool is None:
            return ToolCall(name=plan.tool, args=plan.kwargs, error=f"no tool {plan.tool!r}")
        return self._outcome(tool, args, key)[0]

    def agency(self, tool: str) -> str:
        """The tool's agency as the domain declares it (or its default)."""
        found = self._reader.tool_named.get(tool)
        return found.default_agency() if found is not None else "auto"

    def stranger_lookup(self, slots: Mapping[str, FactValue]) -> ToolCall | None:
        """A read of another customer's record: a lookup taking an identity, called with
        a fixture's other identity value (lookups nothing else requires first)."""
        strangers = self._reader.strangers
        for slot in self._identity:
            if slot.name not in slots:
                continue  # the caller is not known yet: no one is a stranger
            mine = str(slots[slot.name]).upper()
            # which call is a pure function of the domain, the slot and the caller's value
            key = (slot.name, mine)
            found = strangers.get(key, _NO_KEY)
            if found is _NO_KEY:
                found = self._stranger(slot.name, mine)
                if len(strangers) >= _MAX_CHOICES:  # bounded: callers of any number
                    strangers.clear()
                strangers[key] = found
            if found is not None:
                tool, when, call_key = found
                return self._outcome(tool, when, call_key)[0]
        return None

    def _stranger(self, slot: str, mine: str) -> tuple[DomainTool, Mapping[str, Any], Any] | None:
        """The read (its tool, arguments and ``_call_key``) of the first record whose
        ``slot`` is not ``mine`` (upper-cased), if one is."""
        for tool in self._reader.stranger_reads:
            if slot not in (tool.parameters.get("required") or []):
                continue
            for fixture in tool.fixtures:
                other = fixture.when.get(slot)
                if other is not None and str(other).upper() != mine:
                    return tool, fixture.when, _call_key(tool.name, fixture.when)
        return None

    # -------------------------------------------------------------- speaking

    def _glue(self, lang: str | None) -> tuple[str, dict[str, str]]:
        lang = lang or self._default_lang
        return lang, _GLUE.get(lang, _BARE)

    def _cue(self, lang: str) -> str:
        speech = self.domain.languages.get(lang) or next(iter(self.domain.languages.values()))
        return speech.confirm_cues[0]

    def _written(self, name: str, value: Any, lang: str) -> str:
        # a result field a slot limits is written as that slot (a total in its currency)
        named = self._reader.slot_named
        slot = named.get(name) or named.get(self._limited.get(name, ""))
        if slot is None:
            return str(value)
        if slot.type == "enum":
            found = slot.value(str(value))
            return found.said(lang) if found else str(value)
        if slot.type == "money":
            return f"{value} {slot.currency}"
        if slot.type == "date":
            try:
                d = date.fromisoformat(str(value))
            except ValueError:
                return str(value)
            speech = self.domain.languages.get(lang)
            months = speech.month_names if speech else []
            if months:
                return f"{d.day} {months[d.month - 1]} {d.year}"
            return f"{d.day}/{d.month}/{d.year}"
        return str(value)

    def greet(self, lang: str | None) -> str:
        """A greeting that asks for nothing in particular."""
        return self._glue(lang)[1]["greet"]

    def problem(self, decision: Decision, lang: str | None, *, alone: bool) -> str:
        """Why the request cannot go on as it stands."""
        _, glue = self._glue(lang)
        text = glue[str(decision.problem)].format(**decision.detail)
        return text + glue["more"] if alone else text + " "

    def ask(self, slots: Sequence[str], task: str, lang: str | None) -> str:
        """One question naming each slot by its ``ask`` cue."""
        lang, glue = self._glue(lang)
        cues = []
        for name in dict.fromkeys(n for s in slots for n in (s, *self.asked_with.get(s, ()))):
            slot = self._reader.slot_named.get(name)
            speech = (slot.say.get(lang) or next(iter(slot.say.values()), None)) if slot else None
            cues.append(speech.ask[0] if speech and speech.ask else name)
        joined = cues[0] if len(cues) == 1 else ", ".join(cues[:-1]) + glue["and"] + cues[-1]
        return glue["ask"].format(cues=joined)

    def propose(self, plan: Plan, lang: str | None) -> str:
        """The call's values and the go-ahead question (remembered per domain)."""
        key = ("propose", plan.tool, plan.args, lang, tuple(plan.info.items()))
        try:
            known = self._reader.replies.get(key)
        except TypeError:  # a value is a list or a mapping: not remembered
            return self._propose(plan, lang)
        if known is not None:
            return known[1]
        text = self._propose(plan, lang)
        self._remember(key, None, text)
        return text

    def _remember(self, key: tuple[Any, ...], kept: Any, text: str) -> None:
        replies = self._reader.replies
        if len(replies) >= _MAX_CHOICES:
            replies.clear()
        replies[key] = (kept, text)

    def _propose(self, plan: Plan, lang: str | None) -> str:
        lang, glue = self._glue(lang)
        values = ", ".join(self._written(k, v, lang) for k, v in plan.args)
        if plan.info:  # the figures quoted for the user's limits (a total)
            values += ", " + ", ".join(
                f"{k}: {self._written(k, v, lang)}" for k, v in plan.info.items()
            )
        intent = self.domain.intent(plan.tool)
        what = (intent.description if intent and lang == "en" else "") or plan.tool
        cue = self._cue(lang)
        return glue["propose"].format(what=what.rstrip("."), values=values, cue=cue)

    def confirm(self, call: ToolCall, lang: str | None, drifted: bool) -> str:
        """Every field of the result, or (drifted) none."""
        lang, glue = self._glue(lang)
        if drifted:
            return glue["drifted"]
        if not isinstance(call.result, Mapping):
            return glue["done"].format(values="")
        result = call.result
        key = ("confirm", id(result), lang)
        known = self._reader.replies.get(key)
        if known is not None and known[0] is result:
            return known[1]
        values = "; ".join(f"{k}: {self._written(k, v, lang)}" for k, v in result.items())
        text = glue["done"].format(values=values)
        self._remember(key, result, text)
        return text

    def tool_error(self, call: ToolCall, lang: str | None) -> str:
        """That the call failed, with the tool's reason."""
        return self._glue(lang)[1]["refused"].format(error=call.error)

    def nothing_new(self, lang: str | None) -> str:
        """That the request is already done."""
        return self._glue(lang)[1]["nothing_new"]
