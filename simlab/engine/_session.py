"""One session: the simulated user and the target agent take turns until one stops."""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
    SessionContext,
    StopSignal,
    Transcript,
    Turn,
    UserTurn,
    derive_seed,
)
from simlab.engine._expand import SessionJob
from simlab.graders import grade_session
from simlab.llm import LLMError
from simlab.simulators import planned_turns, session_canaries
from simlab.spec import Grading, SpecError, resolve_perturbations
from simlab.store import SessionRecord, StopReason, Usage


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How long a session may go on."""

    max_turns: int
    turn_timeout_s: float


class _Stop(Exception):
    def __init__(self, reason: StopReason, message: str | None = None) -> None:
        self.reason = reason
        self.message = message


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
) -> SessionRecord:
    """Play one session to its end and grade it.

    Failures of the simulator, the target or their providers are recorded as
    data (``status="error"`` with the reason), never raised and never scored.
    """
    started = time.perf_counter()
    setup = session_setup(job)
    planned = _planned_turns(setup)
    transcript = Transcript()
    parts: dict[str, Any] = {}
    try:
        reason = await _converse(
            setup, make_target, make_simulator, limits, knobs, transcript, parts
        )
    except _Stop as stop:
        return SessionRecord(
            **_base(job, setup, transcript, parts, started, planned),
            status="error",
            stop_reason=stop.reason,
            error=stop.message,
        )
    try:
        ctx = GradingContext(
            key=job.key,
            persona=job.persona,
            goal=job.goal,
            mode=job.mode,
            transcript=transcript,
            canaries=tuple(parts.get("canaries", ())),
        )
        rules = grading or Grading()
        graded = grade_session(
            ctx, graders, job.goal.grading.over(rules) if job.goal.grading else rules
        )
    except Exception as e:  # simlab's own fault: data in the log, never a score
        return SessionRecord(
            **_base(job, setup, transcript, parts, started, planned),
            status="error",
            stop_reason=StopReason.INFRA_ERROR,
            error=f"grading failed: {_describe(e)}",
        )
    checks = graded.checks
    meta: dict[str, Any] = {}
    if judge is not None:
        try:
            checks = {**checks, "judge": await judge(setup, transcript, checks)}
        except Exception as e:  # a judge that fails is a grader error, not a target failure
            meta["grader_error"] = _describe(e)
    base = _base(job, setup, transcript, parts, started, planned)
    base["meta"].update(meta)
    return SessionRecord(
        **base,
        status="ok",
        stop_reason=reason,
        score=graded.score,
        passed=graded.passed,
        checks=checks,
        error=None,
    )


def _base(
    job: SessionJob,
    setup: SessionSetup,
    transcript: Transcript,
    parts: dict[str, Any],
    started: float,
    planned: int | None,
) -> dict[str, Any]:
    meter = setup.meter
    meta: dict[str, Any] = {}
    if meter.roles:
        meta["llm"] = meter.as_json()
        meta["retries"] = meter.retries
    faults = getattr(parts.get("simulator"), "faults", None)
    if faults:
        meta["simulator_faults"] = list(faults)
    usage = meter.usage
    return {
        "key": job.key,
        "seed": job.seed,
        "n_user_turns": transcript.n_user_turns,
        "planned_turns": planned,
        "transcript": transcript,
        "usage": Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            calls=meter.calls,
        ),
        "cost_usd": round(meter.cost_usd, 8),
        "duration_s": round(time.perf_counter() - started, 6),
        "meta": meta,
    }


async def _converse(
    setup: SessionSetup,
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    knobs: Knobs | None,
    transcript: Transcript,
    parts: dict[str, Any],
) -> StopReason:
    try:
        simulator = parts["simulator"] = make_simulator(setup)
        if setup.key.perturbations:
            parts["canaries"] = _canaries(setup)
    except Exception as e:
        raise _Stop(StopReason.SIMULATOR_ERROR, _describe(e)) from e
    try:
        target = make_target(setup)
    except Exception as e:
        raise _Stop(_agent_reason(e), _describe(e)) from e
    knobs = knobs or Knobs()
    history: list[Message] = []
    persona, goal, mode = setup.persona, setup.goal, setup.mode
    # One cancel scope per session whose deadline is armed only while the agent
    # answers: far cheaper than a fail_after() context per turn.
    with anyio.CancelScope() as agent_clock:
        for turn_no in range(1, limits.max_turns + 1):
            state = SimState(persona, goal, mode, transcript, turn_no, limits.max_turns)
            user = await _user_turn(simulator, state, turn_no)
            turn = Turn(index=turn_no, user=user)
            transcript.turns.append(turn)
            if user.stop is not None:
                done = user.stop is StopSignal.DONE
                return StopReason.GOAL_REACHED if done else StopReason.USER_GAVE_UP
            history.append(Message(role="user", text=user.text))
            ctx = SessionContext(setup.key.id, setup.agent_seed, turn_no, knobs)
            agent_clock.deadline = anyio.current_time() + limits.turn_timeout_s
            reply = await _agent_turn(target, history, ctx)
            if agent_clock.cancel_called:  # the reply came, but after the deadline
                break
            agent_clock.deadline = math.inf
            turn.agent = reply
            history.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
        else:
            return StopReason.MAX_TURNS
    # only reached when the deadline passed while the agent was answering: a late
    # reply is not recorded, the turn is the one that timed out
    raise _Stop(
        StopReason.AGENT_ERROR,
        f"turn {transcript.n_user_turns}: no reply within {limits.turn_timeout_s:g}s",
    )


def _planned_turns(setup: SessionSetup) -> int | None:
    """The user turns the session's plan needs: from its key, persona, goal and user
    seed only, so the same key has the same planned length whatever the agent does.

    None when the key's perturbations cannot be resolved: the simulator then fails
    to start and the session is recorded as a simulator error.
    """
    try:
        perturbations = resolve_perturbations(setup.key.perturbations)
    except SpecError:
        return None
    return planned_turns(setup.persona, setup.goal, setup.mode, setup.user_seed, perturbations)


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
        raise _Stop(reason, f"turn {turn_no}: {_describe(e)}") from e


async def _agent_turn(
    target: TargetAgent, history: list[Message], ctx: SessionContext
) -> AgentReply:
    try:
        return await target.reply(history, ctx)
    except Exception as e:
        raise _Stop(_agent_reason(e), f"turn {ctx.turn}: {_describe(e)}") from e


def _agent_reason(e: BaseException) -> StopReason:
    # the agent's model provider failing after retries is infrastructure, not the agent
    return StopReason.INFRA_ERROR if isinstance(e, LLMError) else StopReason.AGENT_ERROR


def _describe(e: BaseException) -> str:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-3))
    return f"{type(e).__name__}: {e}\n{tb}"
