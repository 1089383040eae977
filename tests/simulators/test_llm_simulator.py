"""LLMSimulator on the fake provider: faithful turns; each fault kind retried, then an error."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import local_model
import pytest

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup, SimState
from simlab.core import AgentReply, SessionKey, StopSignal, Transcript, Turn, UserTurn
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.llm import (
    LLM,
    Backend,
    LLMSpec,
    ProviderError,
    SessionMeter,
    create_llm,
)
from simlab.simulators import LLMSimulator, ScriptedSimulator, SimulatorFault, llm_simulator_factory
from simlab.spec import Goal, Mode, Persona
from simlab.store import StopReason
from simlab.testing import FakeProvider, FakeProviderConfig, FakeRequest, Responder

from .sim_driver import GOOD_ARGS, booking, make_goal, make_persona

pytestmark = pytest.mark.anyio

SEED = 11
QUIET: dict[str, Any] = {"verbosity": 0.0}
# Replies that ask for nothing in particular, so the plan volunteers its next facts.
NOTED = AgentReply(text="Noted, anything else?")
DRAFT_RE = re.compile(r"^Plain version: (.*)$", re.M)
FACT_RE = re.compile(r"^- ([a-z0-9_]+): ", re.M)
RETRY_MARK = "does not follow the plan"


# ------------------------------------------------------------------ responders


def turn_plan(request: FakeRequest) -> tuple[str, list[str]]:
    """The plain-version draft and planned fact ids of the turn being asked for."""
    for message in reversed(request.messages):
        draft = DRAFT_RE.search(message.text) if message.role == "user" else None
        if draft is not None:
            return draft.group(1), FACT_RE.findall(message.text)
    raise AssertionError("no turn prompt in the request")


def answer(response: str, disclosed: Sequence[str]) -> str:
    return json.dumps({"response": response, "disclosed": list(disclosed)})


def faithful(request: FakeRequest) -> str:
    """Says the plan's draft with a little voice of its own."""
    draft, ids = turn_plan(request)
    return answer(f"Well, {draft}", ids)


def leaks(request: FakeRequest) -> str:
    draft, ids = turn_plan(request)
    return answer(f"{draft} Also my budget is 400 USD.", ids)


def drops(request: FakeRequest) -> str:
    _, ids = turn_plan(request)
    return answer("I'd like to book a flight.", ids)


def invents(request: FakeRequest) -> str:
    draft, ids = turn_plan(request)
    return answer(f"{draft} I won't pay more than 999 USD.", ids)


def broken_json(request: FakeRequest) -> str:
    draft, _ = turn_plan(request)
    return f"Sure! {draft}"


def empty(request: FakeRequest) -> str:
    return answer("", [])


def plays_the_agent(request: FakeRequest) -> str:
    draft, ids = turn_plan(request)
    return answer(f"{draft} How can I help you today?", ids)


def says_goodbye(request: FakeRequest) -> str:
    draft, ids = turn_plan(request)
    return answer(f"{draft} That's all I need, goodbye!", ids)


def fixed_after_a_note(bad: Responder) -> Responder:
    """Misbehaves until the request carries the corrective note, then follows the plan."""

    def respond(request: FakeRequest) -> str:
        return faithful(request) if RETRY_MARK in request.last_user_text else bad(request)

    return respond


# ------------------------------------------------------------------ harness


@asynccontextmanager
async def served(
    responder: Responder, backend: Backend = "openai", **config: Any
) -> AsyncIterator[tuple[FakeProvider, LLM]]:
    fake = FakeProvider(FakeProviderConfig(**config), responder)
    async with fake.serve() as url:
        llm = create_llm(LLMSpec(backend=backend, base_url=url, model="fake", max_attempts=1))
        try:
            yield fake, llm
        finally:
            await llm.aclose()


def persona(**traits: Any) -> Persona:
    return make_persona("en", **{**QUIET, "facts_per_turn": 1, "change_mind": 0.0, **traits})


async def drive(
    sim: LLMSimulator | ScriptedSimulator,
    who: Persona,
    goal: Goal,
    replies: Sequence[AgentReply],
    mode: Mode = Mode.SHARDED,
) -> list[UserTurn]:
    """Plays ``replies`` as the agent's answers until the user stops or replies run out."""
    transcript = Transcript()
    out: list[UserTurn] = []
    for t, reply in enumerate([*replies, None], start=1):
        user = await sim.next_turn(SimState(who, goal, mode, transcript, t, 30))
        out.append(user)
        if user.stop is not None or reply is None:
            break
        transcript = Transcript(turns=(*transcript.turns, Turn(index=t, user=user, agent=reply)))
    return out


def new_sim(llm: LLM, meter: SessionMeter, who: Persona, goal: Goal, **kw: Any) -> LLMSimulator:
    return LLMSimulator(who, goal, Mode.SHARDED, SEED, llm, meter, **kw)


# ------------------------------------------------------------------ faithful


async def test_faithful_answers_carry_the_plans_facts_and_the_booking_ends_the_session() -> None:
    who, goal = persona(), make_goal()
    replies = [NOTED, NOTED, NOTED, AgentReply(text="Booked.", tool_calls=[booking(**GOOD_ARGS)])]
    meter = SessionMeter()
    async with served(faithful) as (fake, llm):
        sim = new_sim(llm, meter, who, goal)
        turns = await drive(sim, who, goal, replies)
        requests = fake.requests
    script = await drive(ScriptedSimulator(who, goal, Mode.SHARDED, SEED), who, goal, replies)
    # The plan is the scripted user's: same disclosures, same stop, the LLM's words.
    assert [t.disclosed for t in turns] == [t.disclosed for t in script]
    assert [t.stop for t in turns] == [None, None, None, None, StopSignal.DONE]
    assert [t.text for t in turns[:4]] == [f"Well, {t.text}" for t in script[:4]]
    assert turns[4].text == script[4].text  # the closing turn keeps its template
    assert sim.faults == []
    # Four LLM calls (the closing turn makes none), each metered as the user role.
    assert meter.roles["user"].calls == 4 and meter.calls == 4
    assert len(requests) == 4
    assert all(r.json_mode and r.seed == SEED for r in requests)
    assert "Tester" in requests[0].system and "English" in requests[0].system


async def test_history_is_append_only_so_each_call_extends_the_last() -> None:
    who, goal = persona(), make_goal()
    async with served(faithful) as (fake, llm):
        sim = new_sim(llm, SessionMeter(), who, goal)
        turns = await drive(sim, who, goal, [NOTED, NOTED])
        first, second, third = fake.requests
    assert second.messages[:1] == first.messages
    assert second.messages[1].role == "assistant"
    said = json.loads(second.messages[1].text)
    assert said == {"response": turns[0].text, "disclosed": list(turns[0].disclosed)}
    assert third.messages[:3] == second.messages
    assert len(third.messages) == 5


async def test_a_mind_change_is_told_to_the_model_as_one() -> None:
    who, goal = persona(change_mind=1.0), make_goal()
    async with served(faithful) as (fake, llm):
        sim = new_sim(llm, SessionMeter(), who, goal)
        turns = await drive(sim, who, goal, [NOTED] * 8)
        prompts = [r.last_user_text for r in fake.requests]
    changed = [i for i, t in enumerate(turns) if t.disclosed.get("date") == "2026-12-21"]
    assert changed and sim.faults == []
    assert (
        "- date: the departure date: 21 December 2026 "
        "(you changed your mind: it was 20 December 2026 before)"
    ) in prompts[changed[0]]
    assert "21 December" in turns[changed[0]].text


async def test_a_persona_typing_without_diacritics_keeps_that_trait() -> None:
    who = make_persona("vi", **QUIET, strip_diacritics=True, facts_per_turn=1)
    goal = make_goal()

    def accented(request: FakeRequest) -> str:
        _, ids = turn_plan(request)
        return answer("Tôi muốn đặt vé máy bay, bay từ Hà Nội.", ids)

    async with served(accented) as (_, llm):
        # the first seed whose plan opens with the origin, so the accented line is faithful
        sim = next(
            s
            for seed in range(200)
            if (s := LLMSimulator(who, goal, Mode.SHARDED, seed, llm, SessionMeter())).plan.order[0]
            == "origin"
        )
        (turn,) = await drive(sim, who, goal, [])
    assert turn.text == "Toi muon dat ve may bay, bay tu Ha Noi."
    assert sim.faults == []


async def test_the_anthropic_backend_serves_the_simulator_too() -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    async with served(faithful, backend="anthropic") as (fake, llm):
        sim = new_sim(llm, meter, who, goal)
        turns = await drive(sim, who, goal, [NOTED])
        assert fake.requests[0].api == "anthropic"
    assert len(turns) == 2 and sim.faults == []
    assert meter.roles["user"].calls == 2
    assert meter.roles["user"].usage.output_tokens > 0


# ------------------------------------------------------------------ faults

MISBEHAVIOURS: list[tuple[Callable[[FakeRequest], str], str]] = [
    (leaks, "leaked_fact"),
    (drops, "dropped_fact"),
    (invents, "invented_constraint"),
    (broken_json, "unparseable_json"),
    (empty, "empty_reply"),
    (plays_the_agent, "broken_character"),
    (says_goodbye, "premature_stop"),
]


@pytest.mark.parametrize(("responder", "kind"), MISBEHAVIOURS, ids=[k for _, k in MISBEHAVIOURS])
async def test_each_fault_is_retried_then_raises_simulator_fault(
    responder: Responder, kind: str
) -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    async with served(responder) as (fake, llm):
        sim = new_sim(llm, meter, who, goal, max_attempts=3)
        assert "budget" not in sim.plan.order[:1]  # turn 1 holds the budget back
        with pytest.raises(SimulatorFault) as info:
            await drive(sim, who, goal, [])
        requests = fake.requests
    assert info.value.turn == 1
    assert [f["kind"] for f in info.value.findings] == [kind]
    assert [(f["kind"], f["attempt"], f["kept"]) for f in sim.faults] == [
        (kind, 1, False),
        (kind, 2, False),
        (kind, 3, False),
    ]
    assert meter.roles["user"].calls == 3
    # Each retry carries the previous answer and a note naming what was wrong.
    assert len(requests[2].messages) == 5
    assert RETRY_MARK in requests[1].last_user_text and kind in requests[1].last_user_text
    assert requests[1].messages[1].role == "assistant"


async def test_a_fault_fixed_by_the_corrective_note_is_counted_not_fatal() -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    async with served(fixed_after_a_note(invents)) as (_, llm):
        sim = new_sim(llm, meter, who, goal)
        turns = await drive(sim, who, goal, [NOTED])
        script = await drive(ScriptedSimulator(who, goal, Mode.SHARDED, SEED), who, goal, [NOTED])
    assert [t.text for t in turns] == [f"Well, {t.text}" for t in script]
    assert [(f["turn"], f["kind"], f["attempt"]) for f in sim.faults] == [
        (1, "invented_constraint", 1),
        (2, "invented_constraint", 1),
    ]
    assert sim.faults[0]["detail"] == "number 999 is no goal value"
    assert meter.roles["user"].calls == 4


async def test_tolerated_kinds_are_kept_without_a_retry() -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    async with served(invents) as (_, llm):
        sim = new_sim(llm, meter, who, goal, tolerate=frozenset({"invented_constraint"}))
        (turn,) = await drive(sim, who, goal, [])
    assert turn.text.endswith("I won't pay more than 999 USD.")
    assert [(f["kind"], f["kept"]) for f in sim.faults] == [("invented_constraint", True)]
    assert meter.roles["user"].calls == 1


async def test_a_provider_failure_is_metered_and_raised_not_a_fidelity_fault() -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    async with served(faithful, fault_sequence=("server_error",)) as (_, llm):
        sim = new_sim(llm, meter, who, goal)
        with pytest.raises(ProviderError):
            await drive(sim, who, goal, [])
    assert meter.roles["user"].failures == 1 and sim.faults == []


# ------------------------------------------------------------------ engine and prompts


async def test_the_engine_records_a_failing_simulator_as_an_error_with_its_faults() -> None:
    who, goal = persona(), make_goal()
    key = SessionKey(persona=who.id, goal=goal.id, mode="sharded", rep=0)
    job = SessionJob(key, 5, who, goal, Mode.SHARDED)
    async with served(fixed_after_a_note(invents)) as (_, good_llm):
        record_ok = await run_session(
            job,
            lambda s: reference_agent("v2", s.agent_seed),
            llm_simulator_factory(good_llm),
            SessionLimits(max_turns=12, turn_timeout_s=5.0),
        )
    async with served(drops) as (_, bad_llm):
        record_err = await run_session(
            job,
            lambda s: reference_agent("v2", s.agent_seed),
            llm_simulator_factory(bad_llm, max_attempts=2),
            SessionLimits(max_turns=12, turn_timeout_s=5.0),
        )
    assert record_ok.status == "ok"
    # Every written turn took two calls: an invented budget, then the corrected answer.
    turns = record_ok.transcript.turns
    written = sum(t.user.stop is None for t in turns)
    assert written >= 2 and record_ok.usage.calls == 2 * written
    faults = record_ok.meta["simulator_faults"]
    assert [(f["turn"], f["kind"]) for f in faults] == [
        (t.index, "invented_constraint") for t in turns if t.user.stop is None
    ]
    assert record_err.status == "error"
    assert record_err.stop_reason == StopReason.SIMULATOR_ERROR
    assert record_err.error is not None and record_err.error.type == "SimulatorFault"
    assert record_err.usage.calls == 2
    assert [f["attempt"] for f in record_err.meta["simulator_faults"]] == [1, 2]


def test_the_factory_builds_a_simulator_on_the_sessions_meter(tmp_path: Path) -> None:
    who, goal = persona(), make_goal()
    key = SessionKey(persona=who.id, goal=goal.id, mode="sharded", rep=0)
    setup = SessionSetup(key, who, goal, Mode.SHARDED, user_seed=3, agent_seed=4)
    llm = create_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:9", model="m"))
    sim = llm_simulator_factory(llm)(setup)
    assert isinstance(sim, LLMSimulator)
    assert sim._meter is setup.meter
    assert sim.plan == ScriptedSimulator(who, goal, Mode.SHARDED, 3).plan


def test_a_prompt_directory_replaces_files_and_bad_placeholders_are_refused(
    tmp_path: Path,
) -> None:
    who, goal = persona(), make_goal()
    llm = create_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:9", model="m"))
    (tmp_path / "user_system.md").write_text("You are {name}, writing {language}. {bogus}")
    with pytest.raises(ValueError, match=r"unknown placeholder\(s\) \{bogus\}"):
        llm_simulator_factory(llm, prompt_path=tmp_path)
    (tmp_path / "user_system.md").write_text('You are {name}, writing {language}. {"a": 1}')
    sim = new_sim(llm, SessionMeter(), who, goal, prompt_path=tmp_path)
    assert sim._system == 'You are Tester, writing English. {"a": 1}'
    with pytest.raises(ValueError, match="does not exist"):
        llm_simulator_factory(llm, prompt_path=tmp_path / "missing.md")


# ------------------------------------------------------------------ the real local model


@pytest.mark.slow
@pytest.mark.skipif(local_model.why_not() is not None, reason=local_model.why_not() or "")
async def test_smollm2_either_writes_turns_or_faults_cleanly() -> None:
    who, goal = persona(), make_goal()
    meter = SessionMeter()
    llm = create_llm(LLMSpec(backend="local", max_tokens=120, n_ctx=2048, temperature=0.2))
    sim = new_sim(llm, meter, who, goal, max_tokens=120)
    try:
        turns = await drive(sim, who, goal, [NOTED, NOTED])
    except SimulatorFault as fault:
        assert fault.findings and all(f["kind"] for f in fault.findings)
        turns = []
    finally:
        await llm.aclose()
    for turn in turns:
        assert turn.text.strip()
    assert meter.roles["user"].calls >= max(len(turns), 1)
    assert all(f["attempt"] >= 1 for f in sim.faults)
