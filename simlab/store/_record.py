"""The stable record of one finished session: one line of ``sessions.jsonl``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from frozendict import frozendict
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simlab.core import Check, FrozenDict, FrozenJSONDict, SessionKey, Transcript

SCHEMA_VERSION = 8
"""2 added ``planned_turns``; 3 made ``error`` structured (type, message, turn, stage,
traceback); 4 added ``agent_turn_s`` and ``tool_use``; 5 added ``tool_stages``; 6 added
``tool_use.repeats``; 7 added a check's ``error`` (a user's grader that raised, the
session graded on) and ``uncounted`` (checks a grading's ``waive`` leaves out of the
verdict and the score); 8 lets ``cost_usd`` be ``null`` (unknown: some call's model has
no price). Older records read on: no plan (``None``), their error string
parsed, no per-turn latency (``[]``), no tool-use figures and no failure stages
(``None``), no repeats (``0``: every repeat of the final action counted as waste), no
grader failures (a raising grader then ended the session in error)."""

REPEATS_SCHEMA = 6
"""The first record schema whose ``tool_use`` counts a repeat of the final action the
user asked for as right (``ToolUse.repeats``); older records count every repeat as waste."""


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

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    calls: int = 0


_OLD_ERROR = re.compile(
    r"(?:turn (?P<turn>\d+): )?(?P<grading>grading failed: )?"
    r"(?:(?P<type>[A-Za-z_][\w.]*): )?(?P<message>.*)",
    re.DOTALL,
)


class SessionError(BaseModel):
    """What went wrong in a session that ended in error.

    ``traceback`` (the last frames, with local paths and code) stays in
    ``sessions.jsonl`` for the developer; published reports show ``headline``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str | None = None
    """The exception's class name; None when simlab itself decided (a turn timeout)."""
    message: str
    turn: int | None = None
    """The turn it happened in; None outside the conversation (start, grading)."""
    stage: Literal["grading"] | None = None
    """Set when the conversation finished and simlab's own grading failed."""
    traceback: str | None = None

    @property
    def headline(self) -> str:
        """One line for people: ``turn 3: ValueError: bad date``."""
        where = f"turn {self.turn}: " if self.turn is not None else ""
        stage = "grading failed: " if self.stage == "grading" else ""
        what = f"{self.type}: {self.message}" if self.type else self.message
        return f"{where}{stage}{what}".split("\n", 1)[0]

    @classmethod
    def from_text(cls, text: str, traceback: str | None = None) -> SessionError:
        """The structured reading of an error written as one string (schema 1 and 2,
        and callers that only have a sentence): ``turn 3: ValueError: bad date``."""
        found = _OLD_ERROR.fullmatch(text)
        if found is None:  # the pattern matches any text; kept for the type checker
            return cls(message=text, traceback=traceback)
        turn = found["turn"]
        return cls(
            type=found["type"],
            message=found["message"],
            turn=int(turn) if turn is not None else None,
            stage="grading" if found["grading"] else None,
            traceback=traceback,
        )


class ToolUse(BaseModel):
    """How the agent used its tools in a session, against the goal's expected trajectory.

    Figures are fixed when the session is graded (``simlab.graders.tool_use``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    expected: int = Field(ge=0)
    """Tool calls the goal expects (0: a greeting, an out-of-scope question)."""
    calls: int = Field(ge=0)
    """Tool calls the agent made, failed ones included."""
    lcs: int = Field(ge=0)
    """Longest common subsequence of the expected and the called tool names."""
    repeats: int = Field(default=0, ge=0)
    """Calls right beyond the LCS: they redo the expected trajectory for a repeat of the
    final action the user asked for, by changing their request after the previous one
    (``simlab.graders.redo_windows``). 0 in records older than schema 6."""
    redundant: int = Field(default=0, ge=0)
    """Calls repeating an identical call (same name and arguments) made more than twice."""

    @property
    def precision(self) -> float:
        """Right calls (LCS and asked-for repeats) over the calls made; 1 when no call was
        made (nothing wasted)."""
        return (self.lcs + self.repeats) / self.calls if self.calls else 1.0

    @property
    def recall(self) -> float:
        """LCS over the calls expected; 1 when none was expected."""
        return self.lcs / self.expected if self.expected else 1.0


class StageFailure(BaseModel):
    """The first failure of one stage in a session.

    Attributes:
        stage: One of ``simlab.spec.TOOL_STAGES``, or a stage the goal's domain declares.
        turn: The user turn whose agent reply failed; None when the failure is the
            session's as a whole (a required tool never called): it then comes last.
        check: The check that showed it, when one did (``safety:must_not_call``).
        detail: What went wrong, for a person.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    stage: str
    turn: int | None = None
    check: str | None = None
    detail: str = ""


class ToolStages(BaseModel):
    """Where a session's tool use failed (``simlab.graders.tool_stages``).

    ``failures`` holds the first failure of each stage that failed, in the order they
    happened (by turn, then by stage within one call), so the first failing stage and
    the next distinct one after it can be recomputed from the record alone.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    failures: tuple[StageFailure, ...] = ()

    @property
    def first(self) -> str | None:
        """The stage of the session's first failure; None when its tool use never failed."""
        return self.failures[0].stage if self.failures else None

    @property
    def next(self) -> str | None:
        """The next distinct stage to fail after the first; None when no other did."""
        return self.failures[1].stage if len(self.failures) > 1 else None


class SessionRecord(BaseModel):
    """One finished session, as written to ``sessions.jsonl``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SCHEMA_VERSION
    key: SessionKey
    seed: int
    status: Status
    stop_reason: StopReason
    n_user_turns: int
    """Realised length: user turns, the closing one included. It depends on the outcome
    (a user whose request went wrong keeps talking), so no report buckets by it."""
    planned_turns: int | None = None
    """The user turns the session's plan needs, fixed before it ran by the plan and
    the key's perturbations alone (``simlab.simulators.planned_turns``): the length
    reports bucket by. None when no plan exists (imported logs, older records)."""
    score: float | None = None  # 0-100; None when status is "error"
    passed: bool | None = None  # None when status is "error"
    checks: FrozenDict[str, Check] = Field(default_factory=frozendict)
    uncounted: tuple[str, ...] = Field(default=(), exclude_if=lambda names: not names)
    """Checks that count neither in the verdict nor in the score (a grading's ``waive``),
    which the reports show as not counted; left out of the line when there are none."""
    transcript: Transcript = Field(default_factory=Transcript)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    """USD the session's LLM calls cost (0.0 with none); None when some call's model has
    no price, so the cost is unknown, never printed as $0."""
    error: SessionError | None = None
    duration_s: float = 0.0
    agent_turn_s: tuple[float, ...] = ()
    """Seconds the target took to answer each user turn it answered, in order
    (empty in records older than schema 4, and for imported logs)."""
    tool_use: ToolUse | None = None
    """The tool-call figures of a graded session; None for errors and older records."""
    tool_stages: ToolStages | None = None
    """Where a graded session's tool use first failed (and next failed); None for errors
    and records older than schema 5."""
    meta: FrozenJSONDict = Field(default_factory=frozendict)

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, version: int) -> int:
        if version > SCHEMA_VERSION:  # read on, and its new fields would be misread
            raise ValueError(
                f"schema {version} is newer than this simlab's {SCHEMA_VERSION}: "
                "upgrade simlab to read it"
            )
        return version

    @model_validator(mode="before")
    @classmethod
    def _structured_error(cls, data: Any) -> Any:
        # schema 1-2 wrote the error as "turn N: Type: message" and the traceback in meta
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            meta = data.get("meta")
            trace = meta.get("traceback") if isinstance(meta, dict) else None
            if isinstance(meta, dict) and isinstance(trace, str):
                data = {**data, "meta": {k: v for k, v in meta.items() if k != "traceback"}}
            else:
                trace = None
            data = {**data, "error": SessionError.from_text(data["error"], trace)}
        return data

    @field_validator("checks")
    @classmethod
    def _name_checks(cls, checks: Mapping[str, Check]) -> Mapping[str, Check]:
        # a record stores checks by name; each check knows its own name when read back
        if all(check.name == name for name, check in checks.items()):
            return checks
        return frozendict(
            (name, check if check.name == name else check.model_copy(update={"name": name}))
            for name, check in checks.items()
        )


class ChainRerun(BaseModel):
    """One line of ``brittleness_sessions.jsonl``: a passing session re-run with the
    first ``k`` perturbations of its chain stacked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: str
    base: str
    """The baseline session's key id."""
    k: int
    record: SessionRecord
