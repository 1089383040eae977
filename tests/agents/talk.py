"""Talking to the reference agent in tests: play user turns, load goals and the travel
domain's user phrasings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import yaml

from simlab.agents.reference import ReferenceAgent
from simlab.core import AgentReply, Knobs, Message, SessionContext
from simlab.spec import Goal, load_domain

ROOT = Path(__file__).resolve().parents[2]


def load_goal(goal_id: str) -> Goal:
    return Goal.model_validate(yaml.safe_load((ROOT / "goals" / f"{goal_id}.yaml").read_text()))


def chat(
    agent: ReferenceAgent, messages: Sequence[str], knobs: Knobs | None = None
) -> list[AgentReply]:
    """Play ``messages`` as user turns; the agent's replies in order."""

    async def run() -> list[AgentReply]:
        history: list[Message] = []
        replies: list[AgentReply] = []
        for turn, text in enumerate(messages, 1):
            history.append(Message(role="user", text=text))
            reply = await agent.reply(
                history, SessionContext("t", agent.seed, turn, knobs or Knobs())
            )
            history.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
            replies.append(reply)
        return replies

    return anyio.run(run)


# The reference agent's tests name a phrasing's value by its kind ({city}, {n}...);
# the domain writes {value} for all of them.
_VALUE_NAMES = {
    "origin": "city",
    "destination": "city",
    "passengers": "n",
    "children": "n",
    "child_age": "n",
    "hotel_nights": "n",
    "bags": "n",
    "booking_ref": "ref",
    "fare": "fare",
    "route": "route",
    "latest_departure": "time",
    "budget": "amount",
}


def load_templates() -> dict[str, dict[str, Any]]:
    """The travel domain's user phrasings by language: ``slots``, ``intent`` and each
    connective (``answer_yes``...), each by style, values named by their kind."""
    domain = load_domain(ROOT / "domains" / "travel")
    books: dict[str, dict[str, Any]] = {}
    for lang, speech in domain.languages.items():
        book: dict[str, Any] = {key: dict(v) for key, v in speech.phrases.items()}
        book["intent"] = {i.tool: dict(i.openings[lang]) for i in domain.intents}
        book["slots"] = {
            s.name: {
                style: [
                    t.replace("{value}", "{" + _VALUE_NAMES.get(s.name, "value") + "}") for t in ts
                ]
                for style, ts in s.say[lang].state.items()
            }
            for s in domain.slots
        }
        books[lang] = book
    return books


def travel_cues() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """The travel domain's ask cues by slot (every language's) and its confirm cues."""
    domain = load_domain(ROOT / "domains" / "travel")
    ask = {s.name: tuple(c for speech in s.say.values() for c in speech.ask) for s in domain.slots}
    confirm = tuple(c for speech in domain.languages.values() for c in speech.confirm_cues)
    return ask, confirm
