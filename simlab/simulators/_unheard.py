"""The agent turns the scripted user did not understand: questions no cue of the domain names.

The scripted user reads an agent's reply only through its domain's cues
(``_reading``). A question (a reply holding "?") in which no slot's ``ask`` cue and
no ``confirm_cues`` phrase is found gets no answer: the user falls back to what it
would say anyway. A session whose agent asked "Would you like me to proceed?" where
the domain's only confirm cue is "shall i" then fails for a reason that is the
domain's, not the agent's; the tally here lets the record and the reports say so.
Falling back is the right answer to an open question ("Is there anything else I can
do?"), so a reply whose questions all hold one of the domain's ``open_cues`` is not
tallied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simlab.simulators._reading import questions_in

UNHEARD_TEXT_CHARS = 200
"""The most of the first unheard question a record keeps."""


@dataclass(slots=True)
class Unheard:
    """The agent turns of one session the scripted user answered without understanding.

    Attributes:
        count: How many agent turns it was.
        first_turn: The user turn whose agent reply was the first such turn.
        first_text: That reply's questions (its sentences ending in "?", the words a
            cue would have to hold), cut to ``UNHEARD_TEXT_CHARS`` (the start kept, "…"
            marking the cut); the whole reply is in the transcript at ``first_turn``.
    """

    count: int
    first_turn: int
    first_text: str

    @classmethod
    def first(cls, turn: int, reply: str) -> Unheard:
        """The tally after its first unheard agent turn: ``reply``, the answer to ``turn``."""
        text = " ".join(questions_in(reply)) or reply
        if len(text) > UNHEARD_TEXT_CHARS:
            text = text[:UNHEARD_TEXT_CHARS] + "…"
        return cls(count=1, first_turn=turn, first_text=text)

    def as_json(self) -> dict[str, Any]:
        """The record's ``meta["unheard"]``: ``{count, first_turn, first_text}``."""
        return {"count": self.count, "first_turn": self.first_turn, "first_text": self.first_text}
