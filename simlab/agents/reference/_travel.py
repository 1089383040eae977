"""The travel domain as the reference agent knows it: flights, bookings, baggage.

A ``Skill`` over the travel parser (``_understand``), planner (``_policy``),
desk (``_tools``) and phrasings (``_replies``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from simlab.agents.reference import _replies as say
from simlab.agents.reference._policy import decide, infer_task
from simlab.agents.reference._skill import Decision, Plan, Reading
from simlab.agents.reference._tools import TravelDesk
from simlab.agents.reference._understand import read_message
from simlab.core import ToolCall
from simlab.spec import FactValue, shipped_domain

_MISREADABLE = frozenset(
    {"date", "return_date", "passengers", "children", "child_age", "budget", "latest_departure"}
    | {"hotel_nights", "bags"}
)
# Asked together with the party size; no number in the answer means none.
_ASKED_WITH = {"passengers": ("children",)}
_NONE_VALUE: dict[str, FactValue] = {"children": 0}


def _lang(lang: str | None) -> str:
    return say.lang_of(lang == "vi")


class TravelSkill:
    """The travel domain for one session (its desk holds the session's bookings).

    Args:
        seed: Seeds the booking references the desk hands out.
    """

    misreadable = _MISREADABLE
    asked_with: Mapping[str, tuple[str, ...]] = _ASKED_WITH
    none_value: Mapping[str, FactValue] = _NONE_VALUE

    def __init__(self, seed: int) -> None:
        self.desk = TravelDesk(seed)

    def read(self, text: str, asked: tuple[str, ...]) -> Reading:
        """Read one user message."""
        return read_message(text, asked)

    def misread(self, slot: str, value: FactValue) -> FactValue:
        """A day off by one, a number one too high, an hour late, 500 read as 600."""
        if slot in ("date", "return_date"):
            return (date.fromisoformat(str(value)) + timedelta(days=1)).isoformat()
        if slot == "latest_departure":
            hour, minute = str(value).split(":")
            return f"{(int(hour) + 1) % 24:02d}:{minute}"
        if slot == "budget":
            n = int(value)
            return n + int(10 ** (len(str(n)) - 1))
        return int(value) + 1

    def infer_task(self, slots: Mapping[str, FactValue]) -> str | None:
        """The task a user means when they never said it in words."""
        return infer_task(slots)

    def decide(
        self, task: str, slots: Mapping[str, FactValue], record: list[ToolCall] | None
    ) -> Decision:
        """The next step of ``task`` given ``slots``."""
        return decide(task, slots, self.desk, record)

    def needs_go_ahead(self, tool: str) -> bool:
        """Every final tool but the baggage lookup changes a booking."""
        return tool != "baggage_policy"

    def execute(self, plan: Plan) -> ToolCall:
        """Run the plan's tool on the desk."""
        call: ToolCall = getattr(self.desk, plan.tool)(**plan.kwargs)
        return call

    def agency(self, tool: str) -> str:
        """The travel domain's agency for ``tool`` (a refund is irreversible: ``confirm``)."""
        found = shipped_domain("travel").tool(tool)
        return found.default_agency() if found is not None else "auto"

    def stranger_lookup(self, slots: Mapping[str, FactValue]) -> ToolCall | None:
        """Another traveller's booking looked up, once the caller's own reference is known
        (``booking_ref`` is the travel domain's identity slot)."""
        mine = str(slots.get("booking_ref", "")).upper()
        if not mine:
            return None
        other = next((ref for ref in self.desk.data.bookings if ref != mine), None)
        return self.desk.get_booking(other) if other is not None else None

    def greet(self, lang: str | None) -> str:
        """What the agent can do."""
        return say.fixed("greet", _lang(lang))

    def problem(self, decision: Decision, lang: str | None, *, alone: bool) -> str:
        """Why nothing fits, and when alone an offer to try another day."""
        text = say.fixed(str(decision.problem), _lang(lang), decision.detail)
        return text + say.fixed("other_day", _lang(lang)) if alone else text + " "

    def ask(self, slots: Sequence[str], task: str, lang: str | None) -> str:
        """One question for every slot."""
        return say.ask(tuple(slots), task, _lang(lang))

    def propose(self, plan: Plan, lang: str | None) -> str:
        """The plan's figures and a request for the go-ahead."""
        return say.propose(plan.tool, plan.info or plan.kwargs, _lang(lang))

    def confirm(self, call: ToolCall, lang: str | None, drifted: bool) -> str:
        """What was done, with its figures unless ``drifted``."""
        result: Mapping[str, Any] = call.result if isinstance(call.result, Mapping) else {}
        return say.confirm(call.name, result, _lang(lang), drifted)

    def tool_error(self, call: ToolCall, lang: str | None) -> str:
        """That the call did not go through, and why."""
        return say.fixed("tool_error", _lang(lang), {"error": call.error})

    def nothing_new(self, lang: str | None) -> str:
        """That the request is already done."""
        return say.fixed("nothing_new", _lang(lang))
