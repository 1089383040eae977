"""The shared vocabulary of a conversation: messages, tool calls, turns, transcripts.

Everything that crosses a boundary between the simulator, the target agent, the
graders and the run store is one of these types. They are pydantic models so a
transcript written to ``sessions.jsonl`` reads back into the same objects.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class StopSignal(StrEnum):
    """What the simulated user says when it ends the conversation."""

    DONE = "DONE"
    GAVE_UP = "GAVE_UP"


class ToolCall(BaseModel):
    """One tool call the agent executed: its arguments and what came back."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None


class ContextInfo(BaseModel):
    """Which earlier user turns (1-based) the agent actually had in its context."""

    model_config = ConfigDict(extra="forbid")

    seen_user_turns: list[int] = Field(default_factory=list)


class AgentReply(BaseModel):
    """The target agent's answer to one user turn."""

    model_config = ConfigDict(extra="forbid")

    text: str
    tool_calls: list[ToolCall] = Field(default_factory=list)
    context: ContextInfo | None = None
    # Free-form data for analysis. The reference agent keeps its hidden ground
    # truth here (``meta["true_causes"]``); graders must not read it.
    meta: dict[str, Any] = Field(default_factory=dict)


class UserTurn(BaseModel):
    """One simulated-user message plus what the plan says it carried.

    ``disclosed`` maps goal fact ids to the value stated in this turn (a mind
    change states a new value for a fact already disclosed). ``stop`` is set on
    the closing turn only; that turn's text is not sent to the agent.
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    disclosed: dict[str, Any] = Field(default_factory=dict)
    perturbations: list[str] = Field(default_factory=list)
    stop: StopSignal | None = None


class Message(BaseModel):
    """One message as the target agent sees the conversation history."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    text: str
    tool_calls: list[ToolCall] = Field(default_factory=list)


class Turn(BaseModel):
    """A user turn and the agent's reply to it (absent on the closing turn)."""

    model_config = ConfigDict(extra="forbid")

    index: int  # 1-based user-turn number
    user: UserTurn
    agent: AgentReply | None = None


class Transcript(BaseModel):
    """A whole session, turn by turn."""

    model_config = ConfigDict(extra="forbid")

    turns: list[Turn] = Field(default_factory=list)

    @property
    def n_user_turns(self) -> int:
        """User turns, the closing DONE/GAVE_UP message included."""
        return len(self.turns)

    def messages(self) -> list[Message]:
        """The history as the agent sees it: user texts and agent replies, in order."""
        out: list[Message] = []
        for turn in self.turns:
            if turn.user.stop is not None:
                break
            out.append(Message(role="user", text=turn.user.text))
            if turn.agent is not None:
                out.append(
                    Message(
                        role="assistant", text=turn.agent.text, tool_calls=turn.agent.tool_calls
                    )
                )
        return out

    def tool_calls(self) -> list[tuple[int, ToolCall]]:
        """Every tool call with the user-turn index it answered, in order."""
        return [
            (turn.index, call)
            for turn in self.turns
            if turn.agent is not None
            for call in turn.agent.tool_calls
        ]


TOOL_RESULTS_META = "tool_results"
"""The ``AgentReply.meta`` key saying how the reply's tool results were reported."""
NOT_REPORTED = "not_reported"
"""``meta["tool_results"]`` of a reply whose tool calls came without their results."""


def tool_call_counts(transcript: Transcript) -> tuple[int, int]:
    """The session's tool calls, and those whose results the target did not report."""
    calls = unreported = 0
    for turn in transcript.turns:
        reply = turn.agent
        if reply is None:
            continue
        calls += len(reply.tool_calls)
        if reply.meta.get(TOOL_RESULTS_META) == NOT_REPORTED:
            unreported += len(reply.tool_calls)
    return calls, unreported
