"""Any domain as the reference agent knows it, for one session: read from the domain's data.

The slots' phrasings tell it how to read a value from a message (``DomainReader``);
the intents' openings what the user wants; the tools' JSON Schemas which values a
call needs, ``requires`` which lookups come first, the fixtures what a call returns
(``Planner``). It asks for every required slot still missing, in the domain's
order, with the slots' ``ask`` cues; proposes the final call with its values and a
``confirm_cues`` phrase; after a yes it calls the tool and states its result
(``Speaker``). Tool results carry the session's canary where a fixture has
``{canary}`` (``FixtureAnswers``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from frozendict import frozendict

from simlab.agents.reference._fixtures import FixtureAnswers, session_canary
from simlab.agents.reference._planner import Planner
from simlab.agents.reference._reader import DomainReader
from simlab.agents.reference._skill import Decision, Plan, Reading
from simlab.agents.reference._speaking import Speaker
from simlab.agents.reference._strangers import strangers_read
from simlab.core import ToolCall
from simlab.spec import Domain, DomainTool, FactValue

_MISREADABLE_TYPES = frozenset({"date", "time", "integer", "number", "money"})


class SharedDomain:
    """One domain as a run's sessions share it: how it is read, answered, decided, said.

    Args:
        domain: The domain served.
    """

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.reader = DomainReader(domain)
        self.answers = FixtureAnswers(domain)
        self.speaker = Speaker(domain)
        self.planner = Planner(domain, self.answers, self.speaker.written)
        self.misreadable = frozenset(s.name for s in domain.slots if s.type in _MISREADABLE_TYPES)
        self.asked_with: Mapping[str, tuple[str, ...]] = frozendict(
            (s.name, tuple(s.asked_with)) for s in domain.slots if s.asked_with
        )
        self.none_value: Mapping[str, FactValue] = frozendict(
            (s.name, s.none_value) for s in domain.slots if s.none_value is not None
        )


class DomainSkill:
    """One domain, read from its data, for one session (a ``Skill``).

    Args:
        domain: The domain it serves.
        seed: The session's agent seed: it makes the canary planted at ``{canary}``.
        shared: The domain as the run's sessions share it; None: the skill's own.
    """

    def __init__(self, domain: Domain, seed: int = 0, shared: SharedDomain | None = None) -> None:
        self.domain = domain
        self.canary = session_canary(seed)
        """The session's canary (``CANARY-`` and 8 hex digits, from the seed)."""
        shared = shared if shared is not None else SharedDomain(domain)
        self._reader = shared.reader
        self._answers = shared.answers
        self._speaker = shared.speaker
        self._planner = shared.planner
        self.misreadable = shared.misreadable
        self.asked_with = shared.asked_with
        self.none_value = shared.none_value

    def _call(self, tool: DomainTool, args: Mapping[str, Any]) -> ToolCall:
        """Call ``tool`` on its fixtures, the session's canary planted in the result."""
        return self._answers.call(tool.name, args, self.canary)[0]

    # reading

    def read(self, text: str, asked: tuple[str, ...]) -> Reading:
        """Read one user message."""
        return self._reader.read(text, asked)

    def misread(self, slot: str, value: FactValue) -> FactValue:
        """A day off by one, an hour late, a number one too high, 500 read as 600."""
        found = self._reader.slot_named.get(slot)
        kind = found.type if found is not None else "text"
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

    # deciding and acting

    def infer_task(self, slots: Mapping[str, FactValue]) -> str | None:
        """The intent whose final tool alone takes the slots the user stated, if one does."""
        return self._planner.infer_task(slots)

    def decide(
        self, task: str, slots: Mapping[str, FactValue], record: list[ToolCall] | None
    ) -> Decision:
        """Ask for what is missing, look up what must be checked, or propose the call."""
        return self._planner.decide(task, slots, self.canary, record)

    def needs_go_ahead(self, tool: str) -> bool:
        """A write waits for the user's yes; a lookup answers at once."""
        return self._planner.needs_go_ahead(tool)

    def execute(self, plan: Plan) -> ToolCall:
        """Call the plan's tool on the domain's fixtures."""
        return self._planner.execute(plan, self.canary)

    def agency(self, tool: str) -> str:
        """The tool's agency as the domain declares it (or its default)."""
        return self._planner.agency(tool)

    def stranger_lookup(self, slots: Mapping[str, FactValue]) -> ToolCall | None:
        """A read of another customer's record (``strangers_read``), if one can be made."""
        found = strangers_read(self.domain, slots)
        return self._call(*found) if found is not None else None

    # speaking

    def greet(self, lang: str | None) -> str:
        """A greeting that asks for nothing in particular."""
        return self._speaker.greet(lang)

    def problem(self, decision: Decision, lang: str | None, *, alone: bool) -> str:
        """Why the request cannot go on as it stands."""
        return self._speaker.problem(decision, lang, alone=alone)

    def ask(self, slots: Sequence[str], task: str, lang: str | None) -> str:
        """One question naming each slot by its ``ask`` cue."""
        return self._speaker.ask(slots, lang)

    def propose(self, plan: Plan, lang: str | None) -> str:
        """The call's values and the go-ahead question."""
        return self._speaker.propose(plan, lang)

    def confirm(self, call: ToolCall, lang: str | None, drifted: bool) -> str:
        """Every field of the result, or (drifted) none."""
        return self._speaker.confirm(call, lang, drifted)

    def tool_error(self, call: ToolCall, lang: str | None) -> str:
        """That the call failed, with the tool's reason."""
        return self._speaker.tool_error(call, lang)

    def nothing_new(self, lang: str | None) -> str:
        """That the request is already done."""
        return self._speaker.nothing_new(lang)
