"""How the scripted user reads an agent reply: which facts it asks for, whether it asks to confirm.

The contract (``simlab.domain.travel``): a question is a reply containing "?",
and it names the fact it asks for with one of ``ASK_CUES``, compared after
stripping diacritics and lower-casing. Sentences ending in "?" are read first,
so a recap ("flying from Hanoi ... Shall I book it?") is not taken for a
question about the recapped facts; the whole reply is the fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from simlab.domain.travel import ASK_CUES, CONFIRM_CUES
from simlab.simulators._voice import fast_strip
from simlab.spec import Slot

_QUESTION_RE = re.compile(r"[^.?!\n]*\?")
_SLOT_CUES: tuple[tuple[Slot, tuple[str, ...]], ...] = tuple(
    (cast(Slot, slot), tuple(fast_strip(c).lower() for c in cues))
    for slot, cues in ASK_CUES.items()
)
_CONFIRM_CUES: tuple[str, ...] = tuple(fast_strip(c).lower() for c in CONFIRM_CUES)


@dataclass(frozen=True, slots=True)
class ReplyReading:
    """What the user takes an agent reply to ask."""

    slots: tuple[Slot, ...] = ()
    confirm: bool = False


_NOTHING = ReplyReading()


def _slots_in(text: str, into: list[Slot]) -> None:
    for slot, cues in _SLOT_CUES:
        if slot not in into and any(c in text for c in cues):
            into.append(slot)


def read_reply(text: str) -> ReplyReading:
    """The slots a reply asks about (in ``ASK_CUES`` order) and whether it asks to confirm."""
    if "?" not in text:
        return _NOTHING
    low = fast_strip(text).lower()
    slots: list[Slot] = []
    confirm = False
    for question in _QUESTION_RE.findall(low):
        if any(c in question for c in _CONFIRM_CUES):
            confirm = True  # a proposal's recap is not a question about its facts
        else:
            _slots_in(question, slots)
    if not slots and not confirm:
        _slots_in(low, slots)
        confirm = any(c in low for c in _CONFIRM_CUES)
    return ReplyReading(tuple(slots), confirm)
