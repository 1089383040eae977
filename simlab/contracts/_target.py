"""What a target agent is to simlab: something that answers a conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext


@runtime_checkable
class TargetAgent(Protocol):
    """The system under test.

    One instance serves one session: the engine calls the factory per session,
    so agents may keep per-conversation state.
    """

    capabilities: AgentCapabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Answer the last user message in ``history``."""
        ...
