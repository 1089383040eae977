"""The stable record of one finished session: one line of ``sessions.jsonl``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simlab.core import Check, SessionKey, Transcript

SCHEMA_VERSION = 2
"""2 added ``planned_turns``; version-1 records read on, with no plan (``None``)."""


class StopReason(StrEnum):
    """Why a session ended (ARCHITECTURE.md section 4)."""

    GOAL_REACHED = "goal_reached"
    USER_GAVE_UP = "user_gave_up"
    MAX_TURNS = "max_turns"
    AGENT_ERROR = "agent_error"
    SIMULATOR_ERROR = "simulator_error"
    INFRA_ERROR = "infra_error"
    BUDGET_EXHAUSTED = "budget_exhausted"
    LOG_ENDED = "log_ended"  # imported: the conversation ran to its logged end; logs say no why


Status = Literal["ok", "error"]


class Usage(BaseModel):
    """Tokens spent by LLM calls in the session (zero on the offline path)."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    calls: int = 0


class SessionRecord(BaseModel):
    """One finished session, as written to ``sessions.jsonl``."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    key: SessionKey
    seed: int
    status: Status
    stop_reason: StopReason
    n_user_turns: int
    """Realised length: user turns, the closing one included. It depends on the outcome
    (a user whose booking is wrong keeps talking), so no report buckets by it."""
    planned_turns: int | None = None
    """The user turns the session's plan needs, fixed before it ran by the plan and
    the key's perturbations alone (``simlab.simulators.planned_turns``): the length
    reports bucket by. None when no plan exists (imported logs, older records)."""
    score: float | None = None  # 0-100; None when status is "error"
    passed: bool | None = None  # None when status is "error"
    checks: dict[str, Check] = Field(default_factory=dict)
    transcript: Transcript = Field(default_factory=Transcript)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0
    error: str | None = None
    duration_s: float = 0.0
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, version: int) -> int:
        if version > SCHEMA_VERSION:  # read on, and its new fields would be misread
            raise ValueError(
                f"schema {version} is newer than this simlab's {SCHEMA_VERSION}: "
                "upgrade simlab to read it"
            )
        return version

    @model_validator(mode="after")
    def _name_checks(self) -> SessionRecord:
        # a record stores checks by name; each check knows its own name when read back
        for name, check in self.checks.items():
            if check.name != name:
                check.name = name
        return self
