"""Talking to the reference agent in tests: play user turns, load goals and templates."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import yaml

from simlab.agents.reference import ReferenceAgent
from simlab.core import AgentReply, Knobs, Message, SessionContext
from simlab.spec import Goal

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


def load_templates() -> dict[str, dict[str, Any]]:
    return {
        lang: yaml.safe_load((ROOT / "simlab/simulators/templates" / f"{lang}.yaml").read_text())
        for lang in ("en", "vi")
    }
