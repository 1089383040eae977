"""Prefix replay: cut a conversation before its failing agent turn, ask a target again.

The target gets the logged history up to and including the user message the
failing reply answered, and must produce that agent turn anew, K times with
seeds derived from one run seed. A target that keeps state across turns and
implements ``RestorableTarget`` first rebuilds that state from the prefix (with
the logged session's seed when the case knows it); otherwise the prefix is only
its history.

Each continuation, and the logged reply itself, is graded by what it does with
the constraints the prefix stated: ``broken`` (an action or the text breaks
one), ``kept`` (it acted, a successful action call, and broke none) or
``no_action`` (it acted on nothing and stated nothing that breaks one: a
question, an apology, a proposal awaiting a go-ahead). Not acting is not
keeping: the keep-rate is over continuations that acted, with a Wilson
interval, and the ones that did not are counted apart. A case whose logged
reply broke a constraint is *reproduced* when most of its graded
continuations break one too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import anyio

from simlab.agents.reference import DomainReader
from simlab.contracts import RestorableTarget, RestoreReport, SessionSetup, TargetAgent
from simlab.core import (
    AgentReply,
    Message,
    SessionContext,
    SessionKey,
    ToolCall,
    Transcript,
    derive_seed,
)
from simlab.graders import CONSTRAINT_PREFIX, action_view, final_action, satisfies
from simlab.llm import SessionMeter
from simlab.replay._case import PrefixCase, case_id
from simlab.replay._constraints import (
    acts,
    broken_constraints,
    constraints_from_messages,
    constraints_from_transcript,
)
from simlab.spec import Domain, FactValue, Goal, Mode, Persona, shipped_domain
from simlab.stats import wilson_interval
from simlab.store import SessionRecord

PREFIX_PERSONA = "prefix_replay"
PREFIX_MODE = Mode.SHARDED  # a prefix is a multi-turn history, facts spread over turns

Outcome = Literal["kept", "broken", "no_action", "error"]
"""What one reply did with the prefix's constraints (``error``: the target failed)."""


def reply_outcome(
    reply: AgentReply,
    case: PrefixCase,
    domain: Domain | None = None,
    reader: DomainReader | None = None,
) -> tuple[Literal["kept", "broken", "no_action"], list[str]]:
    """Grade one reply (a continuation or the logged one) against ``case``'s constraints.

    Its text is read with ``domain``'s phrasings (the case's domain; None: the
    default domain), by ``reader`` when the caller keeps that domain's reader.

    Returns:
        ``broken`` with one line per broken constraint; else ``kept`` when the
        reply made a successful action call (the case's final tool, or for an
        unknown final tool any call that is not a lookup); else ``no_action``.
    """
    broken = broken_constraints(reply, case.constraints, case.final_tool, domain, reader)
    if broken:
        return "broken", broken
    if any(c.error is None and acts(c.name, case.final_tool, domain) for c in reply.tool_calls):
        return "kept", []
    return "no_action", []


@dataclass(frozen=True, slots=True)
class Continuation:
    """One replay of a prefix: what the target said and what it did with the constraints.

    Attributes:
        index: The replay's number (0-based).
        seed: The replay's agent seed.
        outcome: ``kept``, ``broken``, ``no_action`` or ``error`` (see the module).
        broken: One line per broken constraint.
        text: The reply's text.
        tool_calls: The reply's tool calls.
        error: The target's failure, for ``error``.
        restored: What the target rebuilt from the prefix, when it can restore state.
    """

    index: int
    seed: int
    outcome: Outcome
    broken: list[str] = field(default_factory=list)
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None
    restored: RestoreReport | None = None

    @property
    def kept(self) -> bool | None:
        """True when it acted and kept every constraint, None when it did not act or failed."""
        if self.outcome in ("no_action", "error"):
            return None
        return self.outcome == "kept"


@dataclass(frozen=True, slots=True)
class PrefixResult:
    """The outcomes of one case over its replays.

    Attributes:
        case_id: The case replayed.
        seed: The run seed the replays' seeds derive from.
        kept: Continuations that acted and kept every constraint.
        broken: Continuations that broke a constraint (by an action or in their text).
        no_action: Continuations that neither acted nor broke anything.
        errors: Replays where the target failed.
        ci: Wilson 95% interval of the keep-rate ``kept / n``.
        continuations: Every replay, in index order.
        logged: The logged failing reply's own outcome (None when the case has none).
        restored: Replays whose target rebuilt its state from the prefix.
        diverged: Of those, replays whose re-lived replies departed from the log.
    """

    case_id: str
    seed: int
    kept: int
    broken: int
    no_action: int
    errors: int
    ci: tuple[float, float]
    continuations: list[Continuation]
    logged: Literal["kept", "broken", "no_action"] | None = None
    restored: int = 0
    diverged: int = 0

    @property
    def n(self) -> int:
        """Continuations that acted or broke a constraint: the keep-rate's denominator."""
        return self.kept + self.broken

    @property
    def graded(self) -> int:
        """Continuations graded (errors excluded), no-action ones included."""
        return self.kept + self.broken + self.no_action

    @property
    def keep_rate(self) -> float | None:
        """Kept / (kept + broken), or None when no continuation acted."""
        return self.kept / self.n if self.n else None

    @property
    def reproduced(self) -> bool | None:
        """Whether the logged break happened again in most graded continuations.

        None when the logged reply broke no constraint (its failure was not
        acting, or lies in a check prefix replay does not grade) or nothing was graded.
        """
        if self.logged != "broken" or self.graded == 0:
            return None
        return 2 * self.broken > self.graded


@dataclass(frozen=True, slots=True)
class ReproductionRate:
    """How many recorded constraint breaks prefix replay reproduced, over cases.

    Attributes:
        reproduced: Cases reproduced (most continuations broke a constraint again).
        n: Cases whose logged reply broke a constraint and had a graded continuation.
        ci: Wilson 95% interval of ``reproduced / n``.
        not_breaks: Cases left out: their logged reply broke no constraint.
        restored: Cases whose target rebuilt its state from the prefix.
    """

    reproduced: int
    n: int
    ci: tuple[float, float]
    not_breaks: int
    restored: int

    @property
    def rate(self) -> float | None:
        """reproduced / n, or None when no case counts."""
        return self.reproduced / self.n if self.n else None


def reproduction_rate(results: Sequence[PrefixResult]) -> ReproductionRate:
    """The share of recorded constraint breaks that replay reproduced, with its Wilson interval."""
    judged = [r.reproduced for r in results if r.reproduced is not None]
    hits = sum(1 for r in judged if r)
    return ReproductionRate(
        reproduced=hits,
        n=len(judged),
        ci=wilson_interval(hits, len(judged)),
        not_breaks=sum(1 for r in results if r.logged != "broken"),
        restored=sum(1 for r in results if r.restored),
    )


def failing_turn_of(record: SessionRecord, goal: Goal | None = None) -> int | None:
    """The user turn whose agent reply failed, from the record or its graders.

    An imported ``meta["failing_turn"]`` wins. Otherwise the earliest over the
    failing checks of:

    * a constraint check, with the goal: the turn of the final action (the
      last successful final-tool call, the one the check judged) when it
      broke the value in force at that turn; when the value it breaks was
      stated only after it (a change the agent never acted on), the turn that
      stated it; with no final action, the check's turn;
    * a constraint check without the goal: the first agent turn from the
      check's turn on that made a successful tool call, or the check's turn;
    * any other check: its turn.
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
            fact = name[len(CONSTRAINT_PREFIX) :].split(":")[0]
            if goal is not None:
                turn = _breaking_turn(record.transcript, goal, fact) or turn
            else:
                turn = _acting_turn(record.transcript, check.turn) or turn
        turns.append(turn)
    return min(turns) if turns else None


def _breaking_turn(transcript: Transcript, goal: Goal, fact: str) -> int | None:
    action = final_action(goal, transcript)
    if action is None:
        return None
    acted, call = action
    view = action_view(call)
    rules = [c for c in goal.constraints if c.fact == fact]

    def breaks(value: FactValue) -> bool:
        return any(not satisfies(c, view, value) for c in rules)

    in_force: FactValue | None = None
    for t in transcript.turns:
        if t.user.stop is not None:
            break
        if fact not in t.user.disclosed:
            continue
        value = t.user.disclosed[fact]
        if t.index <= acted:
            in_force = value
        elif breaks(value):
            return acted if in_force is not None and breaks(in_force) else t.index
    return acted if in_force is not None and breaks(in_force) else None


def _acting_turn(transcript: Transcript, start: int) -> int | None:
    for t in transcript.turns:
        calls = t.agent.tool_calls if t.agent is not None else ()
        if t.index >= start and any(c.error is None for c in calls):
            return t.index
    return None


def cut_prefix(transcript: Transcript, failing_turn: int) -> list[Message]:
    """The history the agent had when it gave the failing reply to ``failing_turn``."""
    if not 1 <= failing_turn <= len(transcript.turns):
        raise ValueError(
            f"failing turn {failing_turn} is not a user turn 1..{len(transcript.turns)}"
        )
    kept = transcript.turns[:failing_turn]
    cut = Transcript(turns=(*kept[:-1], kept[-1].model_copy(update={"agent": None})))
    messages = cut.messages()
    if not messages or messages[-1].role != "user":
        raise ValueError(f"turn {failing_turn} has no user message to answer")
    return messages


def case_from_record(
    record: SessionRecord,
    source: str,
    goal: Goal | None = None,
    k: int = 20,
    domain: Domain | None = None,
) -> PrefixCase | None:
    """A prefix case from a failed session, or None when no failing turn is known.

    Constraints come from the disclosed facts for simlab sessions and from the
    user's stated values for imported ones, read with ``domain``'s phrasings
    (the session's domain; None: the goal's, else the default domain). A simlab
    session's case keeps the seed its target had (``agent_seed``), so a target
    that restores its state can re-live the prefix exactly.
    """
    turn = failing_turn_of(record, goal)
    if turn is None or not 1 <= turn <= len(record.transcript.turns):
        return None
    prefix = cut_prefix(record.transcript, turn)
    imported = bool(record.meta.get("imported"))
    if imported:
        constraints = constraints_from_messages(prefix, domain)
    else:
        constraints = constraints_from_transcript(record.transcript, turn, goal, domain)
    return PrefixCase(
        id=case_id(f"{record.key.id}/turn{turn}"),
        source=source,
        prefix=prefix,
        constraints=constraints,
        k=k,
        failing_turn=turn,
        logged_reply=record.transcript.turns[turn - 1].agent,
        final_tool=goal.final_tool if goal is not None else "unknown",
        # as the engine seeds a session's target (engine.session_setup)
        agent_seed=None if imported else derive_seed(record.seed, "agent"),
        domain=domain.id if domain is not None else (goal.domain if goal is not None else None),
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
    case: PrefixCase,
    make_target: Callable[[SessionSetup], TargetAgent],
    setup: SessionSetup,
    domain: Domain | None,
    reader: DomainReader,
) -> Continuation:
    index, seed = setup.key.rep, setup.agent_seed
    session_id = f"prefix/{case.id}/{index}"
    ctx = SessionContext(session_id=session_id, seed=seed, turn=case.n_user_turns)
    restored: RestoreReport | None = None
    try:
        target = make_target(setup)
        if isinstance(target, RestorableTarget):
            logged_seed = seed if case.agent_seed is None else case.agent_seed
            restored = await target.restore(
                list(case.prefix), SessionContext(session_id, logged_seed, case.n_user_turns)
            )
        reply: AgentReply = await target.reply(list(case.prefix), ctx)
    except Exception as e:  # a target failure is data, never a broken constraint
        return Continuation(index, seed, "error", error=f"{type(e).__name__}: {e}")
    outcome, broken = reply_outcome(reply, case, domain, reader)
    return Continuation(
        index, seed, outcome, broken, reply.text, list(reply.tool_calls), restored=restored
    )


async def run_prefix_case(
    case: PrefixCase,
    make_target: Callable[[SessionSetup], TargetAgent],
    k: int | None = None,
    seed: int = 0,
    concurrency: int = 8,
    domain: Domain | None = None,
) -> PrefixResult:
    """Replay ``case`` to fresh targets ``k`` times and grade each continuation.

    A target that implements ``RestorableTarget`` first rebuilds its state from
    the prefix, with the logged session's seed when the case has it.

    Args:
        case: The prefix and the constraints to keep.
        make_target: Builds one target per replay from its ``SessionSetup``
            (``agent_seed`` differs per replay), as for a run.
        k: Replays; the case's own ``k`` when None.
        seed: The run seed; replay ``i`` gets ``derive_seed(seed, "prefix-agent", id, i)``.
        concurrency: Replays running at once.
        domain: The case's domain, whose phrasings read each reply's text; None:
            the default domain.

    Returns:
        The outcomes, the keep-rate over continuations that acted with its
        Wilson 95% interval, and the logged reply's own outcome.
    """
    k = case.k if k is None else k
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    goal = case.as_goal()
    results: list[Continuation | None] = [None] * k
    limiter = anyio.CapacityLimiter(max(1, concurrency))
    reader = DomainReader(domain or shipped_domain())  # reads every reply of the case

    async def one(i: int) -> None:
        async with limiter:
            setup = _setup(case, goal, seed, i)
            results[i] = await _replay_one(case, make_target, setup, domain, reader)

    async with anyio.create_task_group() as tg:
        for i in range(k):
            tg.start_soon(one, i)
    done = [r for r in results if r is not None]
    count = {o: sum(1 for r in done if r.outcome == o) for o in ("kept", "broken", "no_action")}
    restored = [r.restored for r in done if r.restored is not None]
    return PrefixResult(
        case_id=case.id,
        seed=seed,
        kept=count["kept"],
        broken=count["broken"],
        no_action=count["no_action"],
        errors=sum(1 for r in done if r.outcome == "error"),
        ci=wilson_interval(count["kept"], count["kept"] + count["broken"]),
        continuations=done,
        logged=None
        if case.logged_reply is None
        else reply_outcome(case.logged_reply, case, domain, reader)[0],
        restored=len(restored),
        diverged=sum(1 for r in restored if r.diverged_at is not None),
    )
