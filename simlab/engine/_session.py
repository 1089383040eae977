"""One session: the simulated user and the target agent take turns until one stops."""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

from simlab.agents._protocol import Knobs, SessionContext, TargetAgent
from simlab.engine._expand import SessionJob
from simlab.engine._seeds import derive_seed
from simlab.graders import grade
from simlab.simulators._protocol import SimState, UserSimulator
from simlab.spec import Goal, Mode, Persona
from simlab.store import SessionRecord, StopReason
from simlab.transcript import AgentReply, Message, StopSignal, Transcript, Turn, UserTurn

TargetFactory = Callable[[int], TargetAgent]
"""Makes a fresh target for one session from the session's agent seed."""
SimulatorFactory = Callable[[Persona, Goal, Mode, int], UserSimulator]
"""Makes a fresh simulated user for one session from its user seed."""


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How long a session may go on."""

    max_turns: int
    turn_timeout_s: float


class _Stop(Exception):
    def __init__(self, reason: StopReason, message: str | None = None) -> None:
        self.reason = reason
        self.message = message


async def run_session(
    job: SessionJob,
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    knobs: Knobs | None = None,
) -> SessionRecord:
    """Play one session to its end and grade it.

    Failures of the simulator or the target are recorded as data
    (``status="error"`` with the reason), never raised and never scored.
    """
    started = time.perf_counter()
    transcript = Transcript()
    try:
        reason = await _converse(job, make_target, make_simulator, limits, knobs, transcript)
    except _Stop as stop:
        return SessionRecord(
            **_base(job, transcript, started),
            status="error",
            stop_reason=stop.reason,
            error=stop.message,
        )
    graded = grade(job.goal, transcript)
    return SessionRecord(
        **_base(job, transcript, started),
        status="ok",
        stop_reason=reason,
        score=graded.score,
        passed=graded.passed,
        checks=graded.checks,
        error=None,
    )


def _base(job: SessionJob, transcript: Transcript, started: float) -> dict[str, Any]:
    return {
        "key": job.key,
        "seed": job.seed,
        "n_user_turns": transcript.n_user_turns,
        "transcript": transcript,
        "duration_s": round(time.perf_counter() - started, 6),
    }


async def _converse(
    job: SessionJob,
    make_target: TargetFactory,
    make_simulator: SimulatorFactory,
    limits: SessionLimits,
    knobs: Knobs | None,
    transcript: Transcript,
) -> StopReason:
    user_seed = derive_seed(job.seed, "user")
    agent_seed = derive_seed(job.seed, "agent")
    try:
        simulator = make_simulator(job.persona, job.goal, job.mode, user_seed)
    except Exception as e:
        raise _Stop(StopReason.SIMULATOR_ERROR, _describe(e)) from e
    try:
        target = make_target(agent_seed)
    except Exception as e:
        raise _Stop(StopReason.AGENT_ERROR, _describe(e)) from e
    knobs = knobs or Knobs()
    history: list[Message] = []
    # One cancel scope per session whose deadline is armed only while the agent
    # answers: far cheaper than a fail_after() context per turn.
    with anyio.CancelScope() as agent_clock:
        for turn_no in range(1, limits.max_turns + 1):
            state = SimState(job.persona, job.goal, job.mode, transcript, turn_no, limits.max_turns)
            user = await _user_turn(simulator, state, turn_no)
            turn = Turn(index=turn_no, user=user)
            transcript.turns.append(turn)
            if user.stop is not None:
                done = user.stop is StopSignal.DONE
                return StopReason.GOAL_REACHED if done else StopReason.USER_GAVE_UP
            history.append(Message(role="user", text=user.text))
            ctx = SessionContext(job.key.id, agent_seed, turn_no, knobs)
            agent_clock.deadline = anyio.current_time() + limits.turn_timeout_s
            reply = await _agent_turn(target, history, ctx)
            agent_clock.deadline = math.inf
            turn.agent = reply
            history.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
        return StopReason.MAX_TURNS
    # only reached when the deadline cancelled the agent's reply
    raise _Stop(
        StopReason.AGENT_ERROR,
        f"turn {transcript.n_user_turns}: no reply within {limits.turn_timeout_s:g}s",
    )


async def _user_turn(simulator: UserSimulator, state: SimState, turn_no: int) -> UserTurn:
    try:
        return await simulator.next_turn(state)
    except Exception as e:
        raise _Stop(StopReason.SIMULATOR_ERROR, f"turn {turn_no}: {_describe(e)}") from e


async def _agent_turn(
    target: TargetAgent, history: list[Message], ctx: SessionContext
) -> AgentReply:
    try:
        return await target.reply(history, ctx)
    except Exception as e:
        raise _Stop(StopReason.AGENT_ERROR, f"turn {ctx.turn}: {_describe(e)}") from e


def _describe(e: BaseException) -> str:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-3))
    return f"{type(e).__name__}: {e}\n{tb}"
