"""Prefix replay: cut a conversation before its failing agent turn, ask a target again.

The target gets the logged history up to and including the user message the
failing reply answered, and must produce that agent turn anew, K times with
seeds derived from one run seed. Each continuation is graded on whether it
keeps the constraints the prefix stated; the keep-rate comes with a Wilson
interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import (
    AgentReply,
    Message,
    SessionContext,
    SessionKey,
    ToolCall,
    Transcript,
    derive_seed,
)
from simlab.graders import CONSTRAINT_PREFIX
from simlab.llm import SessionMeter
from simlab.replay._case import PrefixCase, case_id
from simlab.replay._constraints import (
    broken_constraints,
    constraints_from_messages,
    constraints_from_transcript,
)
from simlab.spec import Goal, Mode, Persona
from simlab.stats import wilson_interval
from simlab.store import SessionRecord

PREFIX_PERSONA = "prefix_replay"
PREFIX_MODE = Mode.SHARDED  # a prefix is a multi-turn history, facts spread over turns


@dataclass(frozen=True, slots=True)
class Continuation:
    """One replay of a prefix: what the target said and whether it kept the constraints."""

    index: int
    seed: int
    kept: bool | None  # None when the target failed (an error, never a break)
    broken: list[str] = field(default_factory=list)
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PrefixResult:
    """The keep-rate of one case over its replays.

    Attributes:
        case_id: The case replayed.
        seed: The run seed the replays' seeds derive from.
        kept: Continuations that kept every constraint.
        n: Continuations graded (errors excluded).
        errors: Replays where the target failed.
        ci: Wilson 95% interval of the keep-rate.
        continuations: Every replay, in index order.
    """

    case_id: str
    seed: int
    kept: int
    n: int
    errors: int
    ci: tuple[float, float]
    continuations: list[Continuation]

    @property
    def keep_rate(self) -> float | None:
        """Kept / graded, or None when nothing was graded."""
        return self.kept / self.n if self.n else None


def failing_turn_of(record: SessionRecord) -> int | None:
    """The user turn whose agent reply failed, from the record or its graders.

    An imported ``meta["failing_turn"]`` wins. Otherwise, for a failing
    constraint check (whose ``turn`` is where the value was stated) it is the
    first agent turn from there on that made a successful tool call — the
    action that broke it — or the check's turn itself; for any other failing
    check, its turn. The earliest such turn over all failing checks is taken.
    """
    given = record.meta.get("failing_turn")
    if isinstance(given, int) and not isinstance(given, bool):
        return given
    turns: list[int] = []
    for name, check in record.checks.items():
        if check.passed or check.turn is None:
            continue
        turn = check.turn
        if name.startswith(CONSTRAINT_PREFIX):
            turn = _acting_turn(record.transcript, check.turn) or turn
        turns.append(turn)
    return min(turns) if turns else None


def _acting_turn(transcript: Transcript, start: int) -> int | None:
    for t in transcript.turns:
        calls = t.agent.tool_calls if t.agent is not None else []
        if t.index >= start and any(c.error is None for c in calls):
            return t.index
    return None


def cut_prefix(transcript: Transcript, failing_turn: int) -> list[Message]:
    """The history the agent had when it gave the failing reply to ``failing_turn``."""
    if not 1 <= failing_turn <= len(transcript.turns):
        raise ValueError(
            f"failing turn {failing_turn} is not a user turn 1..{len(transcript.turns)}"
        )
    cut = Transcript(turns=[t.model_copy() for t in transcript.turns[:failing_turn]])
    cut.turns[-1] = cut.turns[-1].model_copy(update={"agent": None})
    messages = cut.messages()
    if not messages or messages[-1].role != "user":
        raise ValueError(f"turn {failing_turn} has no user message to answer")
    return messages


def case_from_record(
    record: SessionRecord, source: str, goal: Goal | None = None, k: int = 20
) -> PrefixCase | None:
    """A prefix case from a failed session, or None when no failing turn is known.

    Constraints come from the disclosed facts for simlab sessions and from the
    user's stated values for imported ones.
    """
    turn = failing_turn_of(record)
    if turn is None or not 1 <= turn <= len(record.transcript.turns):
        return None
    prefix = cut_prefix(record.transcript, turn)
    if record.meta.get("imported"):
        constraints = constraints_from_messages(prefix)
    else:
        constraints = constraints_from_transcript(record.transcript, turn, goal)
    return PrefixCase(
        id=case_id(f"{record.key.id}/turn{turn}"),
        source=source,
        prefix=prefix,
        constraints=constraints,
        k=k,
        failing_turn=turn,
        logged_reply=record.transcript.turns[turn - 1].agent,
        final_tool=goal.final_tool if goal is not None else "unknown",
    )


def _setup(case: PrefixCase, goal: Goal, seed: int, index: int) -> SessionSetup:
    return SessionSetup(
        key=SessionKey(persona=PREFIX_PERSONA, goal=case.id, mode="prefix", rep=index),
        persona=Persona(id=PREFIX_PERSONA, name="Replayed user", language="en"),
        goal=goal,
        mode=PREFIX_MODE,
        user_seed=derive_seed(seed, "prefix-user", case.id, index),
        agent_seed=derive_seed(seed, "prefix-agent", case.id, index),
        meter=SessionMeter(),
    )


async def _replay_one(
    case: PrefixCase, make_target: Callable[[SessionSetup], TargetAgent], setup: SessionSetup
) -> Continuation:
    index, seed = setup.key.rep, setup.agent_seed
    ctx = SessionContext(session_id=f"prefix/{case.id}/{index}", seed=seed, turn=case.n_user_turns)
    try:
        reply: AgentReply = await make_target(setup).reply(list(case.prefix), ctx)
    except Exception as e:  # a target failure is data, never a broken constraint
        return Continuation(index, seed, None, error=f"{type(e).__name__}: {e}")
    broken = broken_constraints(reply, case.constraints, case.final_tool)
    return Continuation(index, seed, not broken, broken, reply.text, list(reply.tool_calls))


async def run_prefix_case(
    case: PrefixCase,
    make_target: Callable[[SessionSetup], TargetAgent],
    k: int | None = None,
    seed: int = 0,
    concurrency: int = 8,
) -> PrefixResult:
    """Replay ``case`` to fresh targets ``k`` times and grade each continuation.

    Args:
        case: The prefix and the constraints to keep.
        make_target: Builds one target per replay from its ``SessionSetup``
            (``agent_seed`` differs per replay), as for a run.
        k: Replays; the case's own ``k`` when None.
        seed: The run seed; replay ``i`` gets ``derive_seed(seed, "prefix-agent", id, i)``.
        concurrency: Replays in flight at once.

    Returns:
        The keep-rate over graded replays with its Wilson 95% interval.
    """
    k = case.k if k is None else k
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    goal = case.as_goal()
    results: list[Continuation | None] = [None] * k
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(i: int) -> None:
        async with limiter:
            results[i] = await _replay_one(case, make_target, _setup(case, goal, seed, i))

    async with anyio.create_task_group() as tg:
        for i in range(k):
            tg.start_soon(one, i)
    done = [r for r in results if r is not None]
    graded = [r for r in done if r.kept is not None]
    kept = sum(1 for r in graded if r.kept)
    return PrefixResult(
        case_id=case.id,
        seed=seed,
        kept=kept,
        n=len(graded),
        errors=len(done) - len(graded),
        ci=wilson_interval(kept, len(graded)),
        continuations=done,
    )
