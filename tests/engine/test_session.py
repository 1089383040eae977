"""The session loop against tiny scripted fakes: stop reasons, errors as data, timeouts."""

from collections.abc import Sequence
from functools import partial

import anyio
import pytest

from simlab.contracts import SimState
from simlab.core import (
    AgentCapabilities,
    AgentReply,
    Message,
    SessionContext,
    SessionKey,
    StopSignal,
    ToolCall,
    UserTurn,
)
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.engine._session import _rules
from simlab.spec import Goal, Grading, Mode, Persona
from simlab.store import StopReason

PERSONA = Persona(id="p", name="P", language="en")
GOAL = Goal.model_validate(
    {
        "id": "refund_it",
        "title": "Refund",
        "final_tool": "refund",
        "facts": [{"id": "ref", "slot": "booking_ref", "value": "ABC123"}],
        "constraints": [{"fact": "ref", "field": "booking_ref"}],
        "expected_tools": ["refund"],
    }
)
JOB = SessionJob(
    SessionKey(persona="p", goal="refund_it", mode="sharded", rep=0), 7, PERSONA, GOAL, Mode.SHARDED
)
LIMITS = SessionLimits(max_turns=5, turn_timeout_s=1.0)


class Sim:
    """Gives the reference on turn 1, says DONE once a refund call appears."""

    def __init__(
        self, *args: object, give_up_at: int | None = None, crash_at: int | None = None
    ) -> None:
        self.give_up_at = give_up_at
        self.crash_at = crash_at

    async def next_turn(self, state: SimState) -> UserTurn:
        if state.turn == self.crash_at:
            raise RuntimeError("simulator broke")
        if state.turn == self.give_up_at:
            return UserTurn(text="bye", stop=StopSignal.GAVE_UP)
        last = state.transcript.turns[-1].agent if state.transcript.turns else None
        if last and any(c.name == "refund" for c in last.tool_calls):
            return UserTurn(text="thanks", stop=StopSignal.DONE)
        return UserTurn(text="refund ABC123", disclosed={"ref": "ABC123"})


class Agent:
    capabilities = AgentCapabilities()

    def __init__(self, refund_on: int = 2, crash: bool = False, sleep: float = 0.0) -> None:
        self.refund_on, self.crash, self.sleep = refund_on, crash, sleep

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        if self.sleep:
            await anyio.sleep(self.sleep)
        if self.crash:
            raise ValueError("agent exploded")
        if ctx.turn >= self.refund_on:
            call = ToolCall(name="refund", args={"booking_ref": "ABC123"}, result={"amount": 10})
            return AgentReply(text="Refunded.", tool_calls=[call])
        return AgentReply(text="Which booking reference?")


def run(sim: Sim, agent: Agent, limits: SessionLimits = LIMITS):  # type: ignore[no-untyped-def]
    return anyio.run(run_session, JOB, lambda setup: agent, lambda setup: sim, limits)


def test_goal_reached_is_graded() -> None:
    record = run(Sim(), Agent(refund_on=2))
    assert record.status == "ok"
    assert record.stop_reason is StopReason.GOAL_REACHED
    assert record.n_user_turns == 3  # two requests and the closing DONE
    assert record.passed is True
    assert record.transcript.turns[-1].agent is None


def test_max_turns() -> None:
    record = run(Sim(), Agent(refund_on=99))
    assert record.stop_reason is StopReason.MAX_TURNS
    assert record.n_user_turns == LIMITS.max_turns
    assert record.status == "ok" and record.passed is False


def test_user_gives_up() -> None:
    record = run(Sim(give_up_at=3), Agent(refund_on=99))
    assert record.stop_reason is StopReason.USER_GAVE_UP
    assert record.status == "ok" and record.passed is False


@pytest.mark.parametrize(
    ("sim", "agent", "reason", "text"),
    [
        (Sim(), Agent(crash=True), StopReason.AGENT_ERROR, "agent exploded"),
        (Sim(crash_at=2), Agent(refund_on=99), StopReason.SIMULATOR_ERROR, "simulator broke"),
        (Sim(), Agent(sleep=5.0), StopReason.AGENT_ERROR, "no reply within 0.05s"),
    ],
)
def test_failures_are_errors_not_scores(
    sim: Sim, agent: Agent, reason: StopReason, text: str
) -> None:
    record = run(sim, agent, SessionLimits(max_turns=5, turn_timeout_s=0.05))
    assert record.status == "error"
    assert record.stop_reason is reason
    assert record.score is None and record.passed is None
    assert record.error is not None and text in record.error.message
    assert record.error.turn is not None  # it happened inside the conversation


class BrokenGrader:
    name = "broken"

    def grade(self, ctx: object) -> None:
        raise KeyError("oops")


def test_a_users_grader_crash_is_its_own_check_not_a_session_error() -> None:
    record = anyio.run(
        partial(
            run_session, JOB, lambda setup: Agent(refund_on=2), lambda setup: Sim(), LIMITS,
            graders=[BrokenGrader()],
        )
    )  # fmt: skip
    assert record.status == "ok" and record.error is None
    failed = record.checks["broken"]
    assert failed.error is not None and not failed.passed
    assert (failed.error.type, failed.error.message) == ("KeyError", "'oops'")
    assert failed.detail == "grader raised KeyError: 'oops'"
    assert failed.error.traceback is not None and 'raise KeyError("oops")' in failed.error.traceback


def test_a_hung_sync_target_times_out_at_its_own_turn() -> None:
    import time as _time

    from simlab.agents import CallableTarget

    def slow_on_turn_2(messages: list[dict[str, str]], ctx: SessionContext) -> str:
        if ctx.turn == 2:
            _time.sleep(3)
        return "Which booking reference?"

    target = CallableTarget(slow_on_turn_2)
    limits = SessionLimits(max_turns=5, turn_timeout_s=1.0)  # turn 1 has a loaded CI's time
    record = anyio.run(run_session, JOB, lambda setup: target, lambda setup: Sim(), limits)
    assert record.status == "error" and record.stop_reason is StopReason.AGENT_ERROR
    assert record.error is not None and record.error.type is None  # simlab's own verdict
    assert record.error.headline == "turn 2: turn timeout, no reply within 1s"
    assert record.transcript.turns[0].agent is not None  # turn 1 answered in time
    assert record.transcript.turns[1].agent is None  # the late reply is not recorded


class BlocksThenWaits:
    """Blocks the loop past the deadline on turn 2, then waits once (the deadline is
    armed only when an agent waits, but it still counts from the call)."""

    capabilities = AgentCapabilities()

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        if ctx.turn == 2:
            import time as _time

            _time.sleep(1.0)
            await anyio.sleep(0)
        return AgentReply(text="Which booking reference?")


def test_the_deadline_counts_from_the_call_when_an_agent_waits_late() -> None:
    limits = SessionLimits(max_turns=5, turn_timeout_s=0.4)
    record = run(Sim(), BlocksThenWaits(), limits)  # type: ignore[arg-type]
    assert record.stop_reason is StopReason.AGENT_ERROR
    assert record.error is not None
    assert record.error.headline == "turn 2: turn timeout, no reply within 0.4s"
    assert record.transcript.turns[0].agent is not None  # turn 1 answered at once


def test_an_agent_that_waits_and_then_answers_in_time_is_recorded() -> None:
    record = run(Sim(), Agent(refund_on=2, sleep=0.01))
    assert record.status == "ok" and record.stop_reason is StopReason.GOAL_REACHED
    assert [t.agent is not None for t in record.transcript.turns] == [True, True, False]


class BlocksWithoutWaiting:
    """Blocks the loop past the deadline on turn 2 and answers without ever waiting:
    no cancel can reach it, the clock check after the call still catches it."""

    capabilities = AgentCapabilities()

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        if ctx.turn == 2:
            import time as _time

            _time.sleep(1.0)
        return AgentReply(text="Which booking reference?")


def test_a_late_reply_that_never_waited_is_a_timeout() -> None:
    limits = SessionLimits(max_turns=5, turn_timeout_s=0.4)
    record = run(Sim(), BlocksWithoutWaiting(), limits)  # type: ignore[arg-type]
    assert record.stop_reason is StopReason.AGENT_ERROR
    assert record.error is not None
    assert record.error.headline == "turn 2: turn timeout, no reply within 0.4s"
    assert record.transcript.turns[1].agent is None  # the late reply is not recorded


class WaitsManyTimes:
    """Awaits several times, receiving values and a handled exception on the way."""

    capabilities = AgentCapabilities()

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        for _ in range(3):
            await anyio.sleep(0)
        try:
            with anyio.fail_after(0.01):
                await anyio.sleep(1)
        except TimeoutError:
            pass
        return AgentReply(text=f"turn {ctx.turn} after waiting")


def test_an_agent_that_waits_several_times_gets_its_reply_recorded() -> None:
    record = run(Sim(give_up_at=3), WaitsManyTimes())  # type: ignore[arg-type]
    assert record.stop_reason is StopReason.USER_GAVE_UP
    assert [t.agent.text for t in record.transcript.turns if t.agent] == [
        "turn 1 after waiting",
        "turn 2 after waiting",
    ]


def test_a_goals_grading_lies_over_each_runs_own() -> None:
    # each run's grading gets the goal's over it, never another run's
    goal = Grading(require=["goal_completed"])
    runs = [Grading(min_score=50), Grading(weights={"trajectory": 1.0}), None]
    for _ in range(2):
        for grading in runs:
            assert _rules(goal, grading) == goal.over(grading or Grading())
    assert _rules(None, runs[1]) is runs[1]
    assert _rules(None, None) == Grading()
