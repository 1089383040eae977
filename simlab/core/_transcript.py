"""The shared vocabulary of a conversation: messages, tool calls, turns, transcripts.

Everything that crosses a boundary between the simulator, the target agent, the
graders and the run store is one of these types. They are pydantic models so a
transcript written to ``sessions.jsonl`` reads back into the same objects, and they
are frozen all the way down (tuples and frozen mappings): one reply or transcript may
be shared by any number of readers, and a changed one is a copy
(``model_copy(update=...)``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from frozendict import frozendict
from pydantic import BaseModel, ConfigDict, Field

from simlab.core._frozen import FrozenJSON, FrozenJSONDict


class StopSignal(StrEnum):
    """What the simulated user says when it ends the conversation."""

    DONE = "DONE"
    GAVE_UP = "GAVE_UP"


class ToolCall(BaseModel):
    """One tool call the agent executed: its arguments and what came back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    args: FrozenJSONDict = Field(default_factory=frozendict)
    result: FrozenJSON = None
    error: str | None = None


class ContextInfo(BaseModel):
    """Which earlier user turns (1-based) the agent actually had in its context."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seen_user_turns: tuple[int, ...] = ()


class AgentReply(BaseModel):
    """The target agent's answer to one user turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    context: ContextInfo | None = None
    # Free-form data for analysis. The reference agent keeps its hidden ground
    # truth here (``meta["true_causes"]``); graders must not read it.
    meta: FrozenJSONDict = Field(default_factory=frozendict)


class UserTurn(BaseModel):
    """One simulated-user message plus what the plan says it carried.

    ``disclosed`` maps goal fact ids to the value stated in this turn (a mind
    change states a new value for a fact already disclosed). ``stop`` is set on
    the closing turn only; that turn's text is not sent to the agent.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    disclosed: FrozenJSONDict = Field(default_factory=frozendict)
    perturbations: tuple[str, ...] = ()
    stop: StopSignal | None = None


class Message(BaseModel):
    """One message as the target agent sees the conversation history."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["user", "assistant"]
    text: str
    tool_calls: tuple[ToolCall, ...] = ()


class Turn(BaseModel):
    """A user turn and the agent's reply to it (absent on the closing turn)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int  # 1-based user-turn number
    user: UserTurn
    agent: AgentReply | None = None


class Transcript(BaseModel):
    """A whole session, turn by turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turns: tuple[Turn, ...] = ()

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
