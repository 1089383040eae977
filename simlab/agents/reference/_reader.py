"""Reading one user message in a domain: the slot values it states, the task, a yes."""

from __future__ import annotations

from functools import lru_cache

from simlab.agents.reference._phrasings import (
    compile_phrasings,
    enum_forms,
    fold,
    month_numbers,
)
from simlab.agents.reference._skill import Reading
from simlab.agents.reference._slot_values import SlotValues
from simlab.guards import is_explicit_yes
from simlab.spec import Domain, DomainSlot, FactValue

_Match = tuple[int, int, int, str, tuple[str | None, ...]]
"""A phrasing's match: the phrasing's index, the match's start and end, the slot's
name, what the groups caught."""


class DomainReader:
    """Reads user messages with one domain's phrasings and intents' openings.

    Built once per domain for a run (it compiles every phrasing) and shared by that
    run's sessions: reading is a pure function of the message and the slots asked.

    Args:
        domain: The domain whose data it reads by.
    """

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        months = month_numbers(domain)
        self._phrasings = compile_phrasings(domain, months, enum_forms(domain))
        self._values = SlotValues(months, enum_forms(domain))
        self._openings = tuple(
            (fold(o), intent.tool, lang)
            for intent in domain.intents
            for lang, styled in intent.openings.items()
            for phrasings in styled.values()
            for o in phrasings
        )
        # by the message and the slots asked: scripted users say the same things often
        self._read_values = lru_cache(maxsize=4096)(self._read_uncached)
        self.slot_named: dict[str, DomainSlot] = {}
        """The domain's slots by name (the first of a name, as ``Domain.slot`` finds it)."""
        for slot in domain.slots:
            self.slot_named.setdefault(slot.name, slot)

    def read(self, text: str, asked: tuple[str, ...]) -> Reading:
        """Read one user message; ``asked``: the slots the agent's last reply asked for.

        Each slot takes its latest statement; a statement inside another slot's longer
        one ("back on 27/12" holds "on 27/12") is that other slot's. A message stating
        nothing may be a bare answer to the first asked slot it holds a value for.
        """
        slots, intent, yes, language = self._read_values(text, asked)
        return Reading(dict(slots), intent, yes, language)

    def _read_uncached(
        self, text: str, asked: tuple[str, ...]
    ) -> tuple[tuple[tuple[str, FactValue], ...], str | None, bool, str | None]:
        folded = fold(text)
        slots: dict[str, FactValue] = {}
        languages: list[str] = []
        latest_start: dict[str, int] = {}
        for i, start, name, groups in self._statements(folded):
            phrasing = self._phrasings[i]
            value = self._values.caught(phrasing, groups)
            if value is not None and start >= latest_start.get(name, start):
                latest_start[name] = start
                slots[name] = value  # a slot keeps its first statement's place
                languages.append(phrasing.language)
        if not slots:
            self._bare_answer(folded, asked, slots)
        intent = None
        for opening, tool, lang in self._openings:
            if opening in folded:
                intent = tool
                languages.insert(0, lang)
                break
        language = languages[0] if languages else None
        return tuple(slots.items()), intent, is_explicit_yes(text, self.domain), language

    def _statements(self, folded: str) -> list[tuple[int, int, str, tuple[str | None, ...]]]:
        """Each phrasing's matches in ``folded`` (phrasings in the domain's order, each's
        in text order), bar those inside another slot's longer match."""
        found: list[_Match] = [
            (i, m.start(), m.end(), p.slot.name, m.groups())
            for i, p in enumerate(self._phrasings)
            if all(word in folded for word in p.words)  # else it cannot match
            for m in p.pattern.finditer(folded)
        ]
        return [(i, s, n, g) for i, s, e, n, g in found if not _inside_another(s, e, n, found)]

    def _bare_answer(
        self, folded: str, asked: tuple[str, ...], slots: dict[str, FactValue]
    ) -> None:
        """Put in ``slots`` the value of the first asked slot ``folded`` holds one of."""
        for name in asked:
            slot = self.slot_named.get(name)
            if slot is not None:
                bare = self._values.bare(slot, folded)
                if bare is not None:
                    slots[name] = bare
                    return  # one value answers one question


def _inside_another(start: int, end: int, name: str, others: list[_Match]) -> bool:
    """Whether a match of slot ``name`` lies inside another slot's longer match."""
    length = end - start
    return any(s <= start and end <= e and e - s > length and o != name for _, s, e, o, _ in others)
