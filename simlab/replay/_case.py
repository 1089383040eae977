"""A prefix regression case: a logged conversation cut before its failing agent turn.

Saved as YAML, a case is a goal kind that suites can include: replaying it
asks a target for the next agent turn K times and measures how often the
continuation keeps the constraints the prefix stated.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from simlab.core import AgentReply, Message
from simlab.replay._constraints import KeptConstraint
from simlab.spec import Constraint, Fact, Goal, parse_model
from simlab.store import write_atomic

_ID_RE = re.compile(r"[^a-z0-9_]+")


class PrefixCase(BaseModel):
    """A "prefix goal": the history up to a failing agent turn and what it must keep.

    Attributes:
        kind: Always ``prefix`` (the goal kind, for files that mix kinds).
        id: A unique id (lower-case letters, digits, ``_``).
        source: Where the conversation came from (``file:line`` or ``RUN_DIR#key``).
        prefix: The messages before the failing agent turn; the last is the user's.
        constraints: What every continuation must keep.
        k: Replays per run by default.
        failing_turn: The user turn (1-based) whose agent reply failed in the log.
        logged_reply: That failing reply, for reference.
        final_tool: The tool that completes the task, when known.
        agent_seed: The seed the logged session's target had, when known (a
            simlab run): a target that restores its state re-lives the prefix with it.
        domain: The domain the conversation is in (its goal's, or the one an
            imported log was read with); None: the default domain.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["prefix"] = "prefix"
    id: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    source: str
    prefix: Annotated[list[Message], Field(min_length=1)]
    constraints: list[KeptConstraint] = Field(default_factory=list)
    k: Annotated[int, Field(ge=1, le=10_000)] = 20
    failing_turn: Annotated[int, Field(ge=1)]
    logged_reply: AgentReply | None = None
    final_tool: str = "unknown"
    agent_seed: int | None = None
    domain: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")] | None = None

    @property
    def n_user_turns(self) -> int:
        """User messages in the prefix: the continuation answers the last of them."""
        return sum(1 for m in self.prefix if m.role == "user")

    def as_goal(self) -> Goal:
        """The case as a ``Goal`` for ``SessionSetup`` (facts = the kept values)."""
        facts = [
            Fact(id=_slug(c.fact), slot=c.slot, value=c.value, required=False)
            for c in self.constraints
            if _SLOT_NAME.fullmatch(c.slot)
        ]
        if not facts:
            facts = [Fact(id="none", slot="reason", value="none", required=False)]
        ids = {f.id for f in facts}
        rules = [
            Constraint(fact=_slug(c.fact), field=f, op=c.op)
            for c in self.constraints
            if _slug(c.fact) in ids
            for f in c.fields
        ]
        unique = {f.id: f for f in facts}
        return Goal(
            id=self.id,
            title=f"prefix of {self.source}",
            domain=self.domain,
            final_tool=self.final_tool,
            facts=list(unique.values()),
            constraints=rules,
        )


_SLOT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""What a fact's slot may be called (its domain says which slots exist)."""


def _slug(text: str) -> str:
    return _ID_RE.sub("_", text.lower()).strip("_") or "x"


def case_id(text: str) -> str:
    """A valid case id made from any text (a session key, a file location)."""
    return _slug(text)[:80]


def save_prefix_case(case: PrefixCase, directory: Path) -> Path:
    """Write ``case`` as ``<directory>/<id>.yaml``, atomically; returns the path.

    Raises:
        OSError: ``directory`` cannot be made (a file is there) or written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{case.id}.yaml"
    data = case.model_dump(mode="json", exclude_defaults=False)
    write_atomic(path, yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100))
    return path


def load_prefix_case(path: Path) -> PrefixCase:
    """Read one case file; problems are reported with ``file:line`` (``SpecError``)."""
    return parse_model(PrefixCase, path)


def load_prefix_cases(paths: list[Path]) -> list[PrefixCase]:
    """Every case in the given files and directories (``*.yaml``), sorted by id."""
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.yaml")) if p.is_dir() else [p])
    return sorted((load_prefix_case(f) for f in files), key=lambda c: c.id)
