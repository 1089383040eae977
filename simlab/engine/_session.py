"""One session: the simulated user and the target agent take turns until one stops."""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from simlab.contracts import (
    Grader,
    GradingContext,
    Judge,
    SessionSetup,
    SimState,
    SimulatorFactory,
    TargetAgent,
    TargetFactory,
    UserSimulator,
)
from simlab.core import (
    AgentReply,
    Knobs,
    Message,
    ReportedError,
    SessionContext,
    StopSignal,
    Transcript,
    Turn,
    UserTurn,
    derive_seed,
)
from simlab.engine._expand import SessionJob
from simlab.engine._output_caps import cap_reply
from simlab.graders import grade_session, tool_stages, tool_use
from simlab.llm import LLMError
from simlab.simulators import Unheard, planned_turns, session_canaries
from simlab.spec import (
    DomainSet,
    Grading,
    OutputLimits,
    SpecError,
    resolve_perturbations,
    shipped_domain,
    unspoken,
)
from simlab.store import UNHEARD_META, SessionError, SessionRecord, StopReason, Usage


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How long a session may go on, and how much of the target's output it keeps."""

    max_turns: int
    turn_timeout_s: float
    output: OutputLimits = field(default_factory=OutputLimits)


@dataclass(frozen=True, slots=True)
class Scoring:
    """How sessions are graded: the graders (None: the built-ins) and the score's
    weights and pass rule. A run's experiments re-run sessions with the run's own."""

    graders: Sequence[Grader] | None = None
    grading: Grading | None = None
    domains: DomainSet | None = None
    """The run's domains: graders that need the goal's domain (agency, identity) read it."""


BUILTIN_SCORING = Scoring()
"""The built-in graders with today's weights and pass rule."""


_AS_CONFIGURED = Knobs()
"""No counterfactual override (knobs are frozen: one serves every session)."""


@dataclass(slots=True)
class _SessionDraft:
    """A session while it runs: the engine's private, changing state, frozen into its
    record (``Transcript``, ``SessionRecord``) once, when the session ends."""

    turns: list[Turn] = field(default_factory=list)
    agent_turn_s: list[float] = field(default_factory=list)
    """Seconds the target took to answer each turn it answered."""
    truncated: list[dict[str, Any]] = field(default_factory=list)
    """The cuts the output limits made (``cap_reply``)."""
    simulator: UserSimulator | None = None
    target: TargetAgent | None = None
    canaries: tuple[str, ...] = ()

    def transcript(self) -> Transcript:
        """The turns so far, frozen."""
        return Transcript(turns=tuple(self.turns))


class _Stop(Exception):
    def __init__(self, reason: StopReason, error: SessionError) -> None:
        self.reason = reason
        self.error = error


def session_setup(job: SessionJob) -> SessionSetup:
    """The setup of ``job``: its parts' seeds derive from the session seed."""
    return SessionSetup(
        key=job.key,
        persona=job.persona,
        goal=job.goal,
        mode=job.mode,
        user_seed=derive_seed(job.seed, "user"),
        agent_seed=derive_seed(job.seed, "agent"),
    )


async def run_session(
    job: SessionJob,
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    knobs: Knobs | None = None,
    judge: Judge | None = None,
    graders: Sequence[Grader] | None = None,
    grading: Grading | None = None,
    domains: DomainSet | None = None,
) -> SessionRecord:
    """Play one session to its end and grade it.

    ``domains`` gives graders the goal's domain (``GradingContext.domain``).

    Failures of the simulator, the target or their providers are recorded as
    data (``status="error"`` with the reason), never raised and never scored.
    """
    started = time.perf_counter()
    setup = session_setup(job)
    planned = _planned_turns(setup, domains)
    draft = _SessionDraft()
    try:
        reason = await _converse(setup, make_target, make_simulator, limits, knobs, draft)
    except _Stop as stop:
        await _close_target(draft.target)
        return SessionRecord(
            **_base(job, setup, draft.transcript(), draft, started, planned),
            status="error",
            stop_reason=stop.reason,
            error=stop.error,
        )
    await _close_target(draft.target)
    transcript = draft.transcript()
    try:
        ctx = GradingContext(
            key=job.key,
            persona=job.persona,
            goal=job.goal,
            mode=job.mode,
            transcript=transcript,
            canaries=draft.canaries,
            domain=None if domains is None else domains.of(job.goal.domain),
        )
        graded = grade_session(ctx, graders, _rules(job.goal.grading, grading))
    except Exception as e:  # simlab's own fault: data in the log, never a score
        return SessionRecord(
            **_base(job, setup, transcript, draft, started, planned),
            status="error",
            stop_reason=StopReason.INFRA_ERROR,
            error=error_of(e, stage="grading"),
        )
    checks = graded.checks
    grader_error: str | None = None
    if judge is not None:
        try:
            checks = {**checks, "judge": await judge(setup, transcript, checks)}
        except Exception as e:  # a judge that fails is a grader error, not a target failure
            grader_error = error_of(e).headline
    base = _base(job, setup, transcript, draft, started, planned)  # the judge's time counts
    if grader_error is not None:
        base["meta"]["grader_error"] = grader_error
    return SessionRecord(
        **base,
        status="ok",
        stop_reason=reason,
        score=graded.score,
        passed=graded.passed,
        checks=checks,
        uncounted=graded.uncounted,
        error=None,
        tool_use=tool_use(job.goal, transcript, ctx.tool_calls),
        tool_stages=tool_stages(ctx, graded.checks),
    )


_BUILT_IN_GRADING = Grading()
"""The grading a run without one uses (specs are frozen: one serves every session)."""


def _rules(goal_grading: Grading | None, grading: Grading | None) -> Grading:
    """The goal's grading over the run's, the run's (default: the built-in) when the goal
    has none."""
    rules = grading or _BUILT_IN_GRADING
    return rules if goal_grading is None else goal_grading.over(rules)


def _base(
    job: SessionJob,
    setup: SessionSetup,
    transcript: Transcript,
    draft: _SessionDraft,
    started: float,
    planned: int | None,
) -> dict[str, Any]:
    """The fields every record of the session has, whatever its outcome; ``meta`` a
    fresh dict the caller may still add to (the record freezes it)."""
    meter = setup.meter
    meta: dict[str, Any] = {}
    # no LLM call (the offline path): nothing to add up; None: some call's price unknown
    usage = Usage()
    cost_usd: float | None = 0.0
    if meter.roles:
        meta["llm"] = meter.as_json()
        meta["retries"] = meter.retries
        spent = meter.usage
        usage = Usage(
            input_tokens=spent.input_tokens,
            output_tokens=spent.output_tokens,
            cache_read_tokens=spent.cache_read_tokens,
            cache_write_tokens=spent.cache_write_tokens,
            calls=meter.calls,
        )
        spent_usd = meter.cost_usd
        cost_usd = None if spent_usd is None else round(spent_usd, 8)
    simulator = draft.simulator
    faults = getattr(simulator, "faults", None)
    if faults:
        meta["simulator_faults"] = list(faults)
    unheard = getattr(simulator, "unheard", None)
    if isinstance(unheard, Unheard):  # the domain's cues named none of these agent questions
        meta[UNHEARD_META] = unheard.as_json()
    if draft.truncated:
        meta["truncated"] = draft.truncated
    return {
        "key": job.key,
        "seed": job.seed,
        "n_user_turns": transcript.n_user_turns,
        "planned_turns": planned,
        "transcript": transcript,
        "usage": usage,
        "cost_usd": cost_usd,
        "duration_s": round(time.perf_counter() - started, 6),
        "agent_turn_s": tuple(draft.agent_turn_s),
        "meta": meta,
    }


async def _converse(
    setup: SessionSetup,
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    knobs: Knobs | None,
    draft: _SessionDraft,
) -> StopReason:
    try:
        simulator = draft.simulator = make_simulator(setup)
        if setup.key.perturbations:
            draft.canaries = tuple(_canaries(setup))
    except Exception as e:
        raise _Stop(StopReason.SIMULATOR_ERROR, error_of(e)) from e
    try:
        target = draft.target = make_target(setup)
    except Exception as e:
        raise _Stop(_agent_reason(e), error_of(e)) from e
    knobs = knobs or _AS_CONFIGURED
    history: list[Message] = []
    turns, turn_times = draft.turns, draft.agent_turn_s
    persona, goal, mode = setup.persona, setup.goal, setup.mode
    session_id, agent_seed, timeout_s = setup.key.id, setup.agent_seed, limits.turn_timeout_s
    for turn_no in range(1, limits.max_turns + 1):
        state = SimState(persona, goal, mode, draft.transcript(), turn_no, limits.max_turns)
        user = await _user_turn(simulator, state, turn_no)
        turns.append(Turn(index=turn_no, user=user))  # no reply yet
        if user.stop is not None:
            done = user.stop is StopSignal.DONE
            return StopReason.GOAL_REACHED if done else StopReason.USER_GAVE_UP
        history.append(Message(role="user", text=user.text))
        ctx = SessionContext(session_id, agent_seed, turn_no, knobs)
        called = time.monotonic()
        reply = await _agent_turn(target, history, ctx, timeout_s)
        took = time.monotonic() - called
        # cancelled at the deadline (None), or the reply came after it (a cancel may not
        # have fired yet: an agent that blocked the loop and then returned at its first
        # wait, or without ever waiting); a timed-out turn has no latency, however it ended
        if reply is None or took > timeout_s:
            break
        turn_times.append(round(took, 6))
        try:
            reply, cuts = cap_reply(reply, limits.output, turn_no)
        except Exception as e:  # a reply the caps cannot measure is the agent's fault
            raise _Stop(StopReason.AGENT_ERROR, error_of(e, turn=turn_no)) from e
        draft.truncated.extend(cuts)
        turns[-1] = Turn(index=turn_no, user=user, agent=reply)
        history.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
    else:
        return StopReason.MAX_TURNS
    # only reached when the deadline passed while the agent was answering: a late
    # reply is not recorded, the turn is the one that timed out
    raise _Stop(
        StopReason.AGENT_ERROR,
        SessionError(
            message=f"turn timeout, no reply within {limits.turn_timeout_s:g}s",
            turn=len(turns),
        ),
    )


async def _close_target(target: TargetAgent | None) -> None:
    """A target that holds something for its session (a worker process) releases it."""
    close = getattr(target, "aclose", None)
    if close is not None:
        with contextlib.suppress(Exception):  # the session's outcome is already decided
            await close()


def _planned_turns(setup: SessionSetup, domains: DomainSet | None = None) -> int | None:
    """The user turns the session's plan needs: from its key, persona, goal (in its
    domain, from ``domains``; None: the shipped default domain) and user seed only, so
    the same key has the same planned length whatever the agent does.

    None when the key's perturbations cannot be resolved or said in the persona's
    language: the simulator then fails to start and the session is recorded as a
    simulator error.
    """
    if not setup.key.perturbations:  # nothing to resolve or say: the plan alone
        return planned_turns(setup.persona, setup.goal, setup.mode, setup.user_seed)
    try:
        perturbations = resolve_perturbations(setup.key.perturbations)
    except SpecError:
        return None
    domain = (domains.of(setup.goal.domain) if domains is not None else None) or shipped_domain()
    if any(unspoken(p, domain, setup.persona.language) for p in perturbations):
        return None
    return planned_turns(
        setup.persona, setup.goal, setup.mode, setup.user_seed, perturbations, domain
    )


def _canaries(setup: SessionSetup) -> tuple[str, ...]:
    """The canaries the session's injections plant, for the grader to look for."""
    return session_canaries(resolve_perturbations(setup.key.perturbations), setup.user_seed)


async def _user_turn(simulator: UserSimulator, state: SimState, turn_no: int) -> UserTurn:
    try:
        return await simulator.next_turn(state)
    except Exception as e:
        # the user model's provider failing after retries is infrastructure; a simulator
        # that cannot keep to its plan (fidelity faults) is a simulator error
        reason = StopReason.INFRA_ERROR if isinstance(e, LLMError) else StopReason.SIMULATOR_ERROR
        raise _Stop(reason, error_of(e, turn=turn_no)) from e


async def _agent_turn(
    target: TargetAgent,
    history: list[Message],
    ctx: SessionContext,
    timeout_s: float,
) -> AgentReply | None:
    """The agent's reply, or None when it was cancelled at the turn's deadline,
    ``timeout_s`` from now. An agent that answers without ever waiting cannot be
    cancelled: its late answer is caught by the caller's clock check."""
    try:
        with anyio.move_on_after(timeout_s):
            return await target.reply(history, ctx)
        return None  # the scope cancelled the wait at the deadline
    except Exception as e:
        raise _Stop(_agent_reason(e), error_of(e, turn=ctx.turn)) from e


def _agent_reason(e: BaseException) -> StopReason:
    # the agent's model provider failing after retries is infrastructure, not the agent
    return StopReason.INFRA_ERROR if isinstance(e, LLMError) else StopReason.AGENT_ERROR


_MESSAGE_CHARS = 2000
"""The most of an exception's message a record's ``error`` keeps."""
_TRACEBACK_CHARS = 20_000
"""The most of a traceback a record keeps (its last frames)."""


def error_of(
    e: BaseException, *, turn: int | None = None, stage: Literal["grading"] | None = None
) -> SessionError:
    """The structured error a record stores for ``e``: its type, message (at most
    2,000 characters) and last frames. An error reported from a worker process keeps
    the type and traceback it reported, not the wrapper's."""
    if isinstance(e, ReportedError):
        type_name, message, trace = e.type_name, e.message, e.traceback
    else:
        frames = traceback.format_exception(type(e), e, e.__traceback__, limit=-3)
        type_name, message, trace = type(e).__name__, str(e), "".join(frames)
    if len(message) > _MESSAGE_CHARS:
        message = f"{message[:_MESSAGE_CHARS]}... [{len(message):,} characters in all]"
    return SessionError(
        type=type_name,
        message=message,
        turn=turn,
        stage=stage,
        traceback=trace[-_TRACEBACK_CHARS:] if trace else None,
    )


def unrun_record(job: SessionJob, reason: StopReason, message: str) -> SessionRecord:
    """The error record of a session that never came back from where it ran (its
    worker died each time): no transcript, its planned length, ``status="error"``,
    so ``--retry-errors`` runs it again."""
    setup = session_setup(job)
    base = _base(
        job, setup, Transcript(), _SessionDraft(), time.perf_counter(), _planned_turns(setup)
    )
    return SessionRecord(
        **base, status="error", stop_reason=reason, error=SessionError(message=message)
    )
