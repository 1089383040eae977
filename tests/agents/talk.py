"""Talking to the reference agent in tests: play user turns, load goals and the travel
domain's ask and confirm cues."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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


def travel_cues() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """The travel domain's ask cues by slot (every language's) and its confirm cues."""
    domain = load_domain(ROOT / "domains" / "travel")
    ask = {s.name: tuple(c for speech in s.say.values() for c in speech.ask) for s in domain.slots}
    confirm = tuple(c for speech in domain.languages.values() for c in speech.confirm_cues)
    return ask, confirm
