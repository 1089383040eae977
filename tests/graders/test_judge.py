"""The LLM judge against the fake provider: verdicts, retries, JudgeError, what it is handed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from simlab.contracts import SessionSetup
from simlab.core import (
    AgentReply,
    Check,
    SessionKey,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
)
from simlab.graders import (
    DEFAULT_RUBRIC,
    JudgeError,
    LLMJudge,
    judge_model_id,
)
from simlab.graders._judge import judge_seed
from simlab.llm import LLMSpec, create_llm, zero_retry_waits
from simlab.spec import Goal, Mode, Persona
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

HOLD = {
    "resolved": True,
    "constraints_kept": True,
    "confirmed": True,
    "amounts_correct": True,
    "no_repeat": True,
    "in_policy": True,
}
PASS = json.dumps({"reasoning": "Booked as asked.", "criteria": HOLD, "first_failing_turn": None})
FAIL_T3 = json.dumps(
    {
        "reasoning": "Turn 3 kept the old budget.",
        "criteria": {**HOLD, "constraints_kept": False},
        "first_failing_turn": 3,
    }
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with zero_retry_waits():
        yield


def make_goal() -> Goal:
    return Goal.model_validate(
        {
            "id": "book_han",
            "title": "Book a flight to Hanoi",
            "final_tool": "hold_booking",
            "facts": [
                {"id": "destination", "slot": "destination", "value": "HAN"},
                {"id": "budget", "slot": "budget", "value": 300, "required": False},
                {"id": "latest", "slot": "latest_departure", "value": "18:00"},
            ],
            "constraints": [
                {"fact": "budget", "field": "total_price", "op": "le"},
                {"fact": "latest", "field": "dep_time", "op": "le"},
            ],
            "confirm_fields": ["booking_ref"],
        }
    )


def make_transcript() -> Transcript:
    """Budget 400 in turn 1, changed to 300 in turn 3; the booking in turn 3 costs 350."""
    hold = ToolCall(
        name="hold_booking",
        args={"flight_id": "VN1"},
        result={"booking_ref": "AB12CD", "total_price": 350},
    )
    return Transcript(
        turns=[
            Turn(
                index=1,
                user=UserTurn(
                    text="Fly me to Hanoi, budget 400.",
                    disclosed={"destination": "HAN", "budget": 400},
                ),
                agent=AgentReply(
                    text="Found VN1 for 350.",
                    tool_calls=[ToolCall(name="search_flights", args={"to": "HAN"}, result=[])],
                ),
            ),
            Turn(index=2, user=UserTurn(text="Hmm."), agent=AgentReply(text="Book it?")),
            Turn(
                index=3,
                user=UserTurn(text="Actually max 300. Book it.", disclosed={"budget": 300}),
                agent=AgentReply(text="Booked, ref AB12CD.", tool_calls=[hold]),
            ),
            Turn(index=4, user=UserTurn(text="Thanks.", stop=StopSignal.DONE)),
        ]
    )


def make_setup() -> SessionSetup:
    persona = Persona(id="terse_en", name="Terse", language="en")
    return SessionSetup(
        key=SessionKey(persona="terse_en", goal="book_han", mode="sharded", rep=0),
        persona=persona,
        goal=make_goal(),
        mode=Mode.SHARDED,
        user_seed=11,
        agent_seed=12,
    )


async def _judge_with(
    replies: list[str], max_attempts: int = 3, **config: Any
) -> tuple[Check | JudgeError, FakeProvider, SessionSetup]:
    fake = FakeProvider(FakeProviderConfig(**config), scripted(replies))
    setup = make_setup()
    async with fake.serve() as base_url:
        llm = create_llm(
            LLMSpec(backend="openai", base_url=base_url, model="judge-model", max_attempts=2)
        )
        judge = LLMJudge(llm, max_attempts=max_attempts)
        try:
            outcome: Check | JudgeError = await judge(setup, make_transcript(), {})
        except JudgeError as e:
            outcome = e
        finally:
            await llm.aclose()
    return outcome, fake, setup


async def test_pass_verdict_and_what_the_server_received() -> None:
    check, fake, setup = await _judge_with([PASS])
    assert check == Check(passed=True, detail="Booked as asked.", turn=None, criteria=HOLD)
    [req] = fake.requests
    assert req.temperature == 0.0
    assert req.seed == judge_seed(setup)
    assert req.json_mode
    assert req.system == DEFAULT_RUBRIC.read_text(encoding="utf-8")
    case = req.last_user_text
    # The code-extracted constraints, each with its latest value and the turn it was stated in.
    assert (
        "C1. budget: the final action's `total_price` must be at most 300 "
        "(stated in turn 3; replaces earlier 400 in turn 1)." in case
    )
    assert "C2. latest: the final action's `dep_time` must be at most the user's value, " in case
    assert "never stated: does not count." in case
    assert '[T3] TOOL hold_booking {"flight_id":"VN1"} -> ' in case
    assert "[T4] USER (closing message, not seen by the agent; DONE): Thanks." in case
    meter = setup.meter.roles["judge"]
    assert (meter.calls, meter.attempts, meter.failures) == (1, 1, 0)


async def test_fail_verdict_names_the_first_failing_turn() -> None:
    check, _, _ = await _judge_with([FAIL_T3])
    assert check == Check(
        passed=False,
        detail="Broken: constraints_kept. Turn 3 kept the old budget.",
        turn=3,
        criteria={**HOLD, "constraints_kept": False},
    )


async def test_malformed_output_is_retried_with_a_corrective_note() -> None:
    check, fake, setup = await _judge_with(["I think it passes.", FAIL_T3])
    assert isinstance(check, Check) and check.turn == 3 and not check.passed
    first, second = fake.requests
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[0].text == first.messages[0].text
    assert second.messages[1].text == "I think it passes."
    assert "the reply held no JSON object" in second.messages[2].text
    assert setup.meter.roles["judge"].calls == 2


async def test_schema_invalid_output_is_retried() -> None:
    no_criteria = json.dumps({"reasoning": "x", "first_failing_turn": None, "verdict": "pass"})
    failing = {**HOLD, "no_repeat": False}
    bad_turn = json.dumps({"reasoning": "x", "criteria": failing, "first_failing_turn": 9})
    check, fake, _ = await _judge_with([no_criteria, bad_turn, PASS])
    assert isinstance(check, Check) and check.passed
    notes = [r.messages[-1].text for r in fake.requests[1:]]
    assert '"criteria" must be an object answering each criterion (resolved, ' in notes[0]
    assert '"first_failing_turn" 9 is not a turn of this conversation (1..4)' in notes[1]
    # The note restates the reply's form, with the criteria the rubric names.
    assert '"criteria" (an object: true or false for each of resolved, amounts_correct' in notes[0]


async def test_always_malformed_raises_judge_error_after_max_attempts() -> None:
    error, fake, setup = await _judge_with(["nope"], max_attempts=2)
    assert isinstance(error, JudgeError)
    assert "unusable after 2 attempt(s)" in str(error)
    assert "openai:judge-model" in str(error)
    assert len(fake.requests) == 2
    assert setup.meter.roles["judge"].calls == 2


async def test_provider_failure_is_a_judge_error_and_metered() -> None:
    error, _, setup = await _judge_with(
        [PASS], fault_sequence=("server_error", "server_error", "server_error")
    )
    assert isinstance(error, JudgeError)
    assert "judge call failed" in str(error)
    meter = setup.meter.roles["judge"]
    assert (meter.calls, meter.failures) == (1, 1)


async def test_judge_model_id_and_bad_rubric(tmp_path: Path) -> None:
    llm = create_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:9", model="m-1"))
    try:
        assert judge_model_id(llm) == "openai:m-1"
        rubric = tmp_path / "strict.md"
        rubric.write_text("Grade harshly. Answer JSON.", encoding="utf-8")
        assert LLMJudge(llm, rubric_path=rubric).rubric == "Grade harshly. Answer JSON."
        with pytest.raises(FileNotFoundError, match=r"missing\.md"):
            LLMJudge(llm, rubric_path=tmp_path / "missing.md")
        with pytest.raises(ValueError, match="max_attempts"):
            LLMJudge(llm, max_attempts=0)
    finally:
        await llm.aclose()


def test_judge_seed_is_stable_and_per_session() -> None:
    setup = make_setup()
    # 63 bits of sha256 over the canonical JSON [user_seed, "judge"]: the same on every machine.
    digest = hashlib.sha256(b'[11,"judge"]').digest()
    assert judge_seed(setup) == int.from_bytes(digest[:8], "big") >> 1
    assert judge_seed(replace(setup, user_seed=99)) != judge_seed(setup)


async def test_shipped_rubric_example_is_a_valid_verdict_on_anthropic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake's default responder answers JSON requests with the first JSON object in the
    # system prompt: the rubric's own example must therefore parse (the offline default path).
    fake = FakeProvider()
    setup = make_setup()
    async with fake.serve() as base_url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        llm = create_llm(LLMSpec(backend="anthropic", model="claude-fake"))
        try:
            check = await LLMJudge(llm)(setup, make_transcript(), {})
        finally:
            await llm.aclose()
    assert check == Check(passed=True, detail="...", turn=None, criteria=HOLD)
    assert fake.requests[0].system.startswith("You grade one finished conversation")
    assert setup.meter.roles["judge"].calls == 1
