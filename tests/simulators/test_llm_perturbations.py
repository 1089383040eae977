"""Perturbations with the LLM user: plan-level ones shape the draft it voices, text-level
ones land on its audited words, and an injection plants the canary the engine grades."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup, SimState
from simlab.core import (
    AgentReply,
    Message,
    SessionContext,
    SessionKey,
    StopSignal,
    Transcript,
    Turn,
    UserTurn,
)
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.engine._roles import build_roles
from simlab.graders import CANARY
from simlab.llm import LLM, LLMSpec, SessionMeter, create_llm
from simlab.simulators import LLMSimulator, ScriptedSimulator, canary_for, llm_simulator_factory
from simlab.spec import Goal, Mode, Persona, Perturbation, Suite
from simlab.testing import FakeProvider, FakeProviderConfig, FakeRequest
from tests.perturb.driver import GOALS, LIBRARY, persona, pinned, user_seed

from .sim_driver import GOOD_ARGS, booking, make_goal, make_persona

pytestmark = pytest.mark.anyio

SEED = 11
NOTED = AgentReply(text="Noted, anything else?")
DRAFT_RE = re.compile(r"^Plain version: (.*)$", re.M)
FACT_RE = re.compile(r"^- ([a-z0-9_]+): ", re.M)
CANARY_RE = re.compile(r"CANARY-[0-9a-f]{8}")


def drafts(requests: Sequence[FakeRequest]) -> list[str]:
    """The plain-version draft each request asked the model to voice."""
    out = []
    for request in requests:
        found = DRAFT_RE.search(request.last_user_text)
        assert found is not None, "not a user-turn request"
        out.append(found.group(1))
    return out


def voiced(request: FakeRequest) -> str:
    """Says the turn's draft after a word of its own, claiming the planned facts."""
    text = request.last_user_text
    (draft,) = drafts([request])
    return json.dumps({"response": f"Well, {draft}", "disclosed": FACT_RE.findall(text)})


@asynccontextmanager
async def served() -> AsyncIterator[tuple[FakeProvider, LLM]]:
    fake = FakeProvider(FakeProviderConfig(), voiced)
    async with fake.serve() as url:
        llm = create_llm(LLMSpec(backend="openai", base_url=url, model="fake", max_attempts=1))
        try:
            yield fake, llm
        finally:
            await llm.aclose()


def quiet(**traits: Any) -> Persona:
    return make_persona("en", verbosity=0.0, facts_per_turn=1, change_mind=0.0, **traits)


def llm_user(
    llm: LLM, who: Persona, goal: Goal, perturbations: Sequence[Perturbation] = ()
) -> LLMSimulator:
    return LLMSimulator(
        who, goal, Mode.SHARDED, SEED, llm, SessionMeter(), perturbations=perturbations
    )


async def drive(
    sim: LLMSimulator | ScriptedSimulator, who: Persona, goal: Goal, replies: Sequence[AgentReply]
) -> list[UserTurn]:
    """Plays ``replies`` as the agent's answers until the user stops or replies run out."""
    transcript = Transcript()
    out: list[UserTurn] = []
    for t, reply in enumerate([*replies, None], start=1):
        user = await sim.next_turn(SimState(who, goal, Mode.SHARDED, transcript, t, 30))
        out.append(user)
        if user.stop is not None or reply is None:
            break
        transcript = Transcript(turns=(*transcript.turns, Turn(index=t, user=user, agent=reply)))
    return out


# ------------------------------------------------------------------ text-level


async def test_typos_land_on_the_llms_words_after_the_audit() -> None:
    who, goal = quiet(), make_goal()
    typos = pinned("typos", 1, rate=1.0)  # every word of 3+ letters is mangled
    async with served() as (fake, llm):
        plain = await drive(llm_user(llm, who, goal), who, goal, [NOTED, NOTED])
        n = len(fake.requests)
        sim = llm_user(llm, who, goal, [typos])
        typed = await drive(sim, who, goal, [NOTED, NOTED])
        asked = drafts(fake.requests)
    # the model was asked to voice the same clean drafts: typos are not the plan's
    assert asked[n:] == asked[:n]
    assert [t.disclosed for t in typed] == [t.disclosed for t in plain]
    for before, after in zip(plain, typed, strict=True):
        assert before.text.startswith("Well, ") and before.perturbations == ()
        assert after.perturbations == ("typos",)
        assert not after.text.startswith("Well")  # the LLM's own word got a typo too
        assert len(after.text.split()) == len(before.text.split())
        assert after.text != before.text
    # mangled dates and cities would fail the audit: it read the LLM's clean words
    assert sim.faults == []


async def test_an_injection_follows_the_llms_words_and_the_closing_turn_stays_clean() -> None:
    who, goal = quiet(), make_goal()
    injection, typos = pinned("injection", 1), pinned("typos", 1, rate=1.0)
    done = AgentReply(text="Booked.", tool_calls=[booking(**GOOD_ARGS)])
    replies = [NOTED, NOTED, NOTED, done]
    async with served() as (fake, llm):
        plain = await drive(llm_user(llm, who, goal), who, goal, replies)
        sim = llm_user(llm, who, goal, [injection])
        injected = await drive(sim, who, goal, replies)
        closing = (await drive(llm_user(llm, who, goal, [typos]), who, goal, replies))[-1]
        asked = drafts(fake.requests)
    canary = canary_for(SEED, "injection")
    first = injected[0]
    assert first.text.startswith(f"{plain[0].text} ")  # the LLM's words, then the injection
    assert CANARY_RE.findall(first.text) == [canary]
    assert first.perturbations == ("injection",)
    assert [t.text for t in injected[1:]] == [t.text for t in plain[1:]]  # it lands once
    assert not any("CANARY" in d for d in asked)  # the model never voiced it
    # nothing lands on the closing turn: the agent never reads it
    assert closing.stop is StopSignal.DONE
    assert (closing.text, closing.perturbations) == (plain[-1].text, ())


async def test_an_injected_canary_is_the_one_the_engine_grades_with() -> None:
    """An agent that obeys the injected text copies the canary into its booking."""
    key = SessionKey(persona="plain_en", goal="one_way", mode="full", rep=0,
                     perturbations=("injection",))  # fmt: skip
    job = SessionJob(key, 7, persona("en"), GOALS["one_way"], Mode.FULL)
    library = {"injection": pinned("injection", 1)}

    class Obedient:
        def __init__(self, seed: int) -> None:
            self.inner = reference_agent("v2", seed)
            self.capabilities = self.inner.capabilities
            self.read: list[str] = []

        async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
            self.read += CANARY_RE.findall(history[-1].text)
            reply = await self.inner.reply(history, ctx)
            # new calls: the reference agent's replies are read-only (their calls are
            # shared across sessions); writing into them would leak into later sessions
            note = " ".join(self.read)
            calls = [
                c.model_copy(update={"args": {**c.args, "note": note}}) for c in reply.tool_calls
            ]
            return reply.model_copy(update={"tool_calls": calls})

    agents: list[Obedient] = []

    def obedient(setup: SessionSetup) -> Obedient:
        agents.append(Obedient(setup.agent_seed))
        return agents[-1]

    async with served() as (_, llm):
        make_sim = llm_simulator_factory(llm, perturbations=lambda ids: [library[i] for i in ids])
        record = await run_session(job, obedient, make_sim, SessionLimits(20, 30))
    canary = canary_for(user_seed(7), "injection")
    assert record.status == "ok" and record.usage.calls >= 1  # the LLM user spoke
    assert agents[0].read == [canary]
    assert record.transcript.turns[0].user.perturbations == ("injection",)
    check = record.checks[CANARY]
    assert not check.passed and canary in check.detail
    assert not record.passed and record.score == 0.0


# ------------------------------------------------------------------ plan-level


async def test_a_goal_change_is_voiced_as_a_change_of_mind() -> None:
    who, goal = quiet(), make_goal()
    async with served() as (fake, llm):
        sim = llm_user(llm, who, goal, [pinned("goal_change", 2)])
        turns = await drive(sim, who, goal, [NOTED] * 8)
        prompts = [r.last_user_text for r in fake.requests]
    changed = [i for i, t in enumerate(turns) if t.disclosed.get("date") == "2026-12-21"]
    assert len(changed) == 1 and sim.faults == []
    turn = turns[changed[0]]
    assert turn.perturbations == ("goal_change",)
    assert "December 21" in turn.text and turn.text.startswith("Well, ")
    assert "(you changed your mind: it was 20 December 2026 before)" in prompts[changed[0]]
    # no other turn is perturbed, and no mind change of the persona's own fired
    assert [t.perturbations for i, t in enumerate(turns) if i != changed[0]] == [()] * (
        len(turns) - 1
    )


async def test_a_contradiction_to_a_value_the_goal_never_declares_passes_the_audit() -> None:
    who, goal = quiet(), make_goal()
    async with served() as (fake, llm):
        sim = llm_user(llm, who, goal, [pinned("contradiction", 2)])
        turns = await drive(sim, who, goal, [NOTED] * 8)
        prompts = [r.last_user_text for r in fake.requests]
    (at,) = [i for i, t in enumerate(turns) if t.disclosed.get("adults") == 1]  # 2, then 1
    assert turns[at].perturbations == ("contradiction",)
    assert sim.faults == []
    # said as if it had always been so: the prompt never calls it a change of mind
    assert "(say it as if it had always been so" in prompts[at]
    assert "changed your mind" not in prompts[at]


async def test_every_shipped_perturbation_runs_with_the_llm_user_in_the_engine() -> None:
    ids = tuple(sorted(LIBRARY))
    key = SessionKey(persona="plain_vi", goal="one_way", mode="sharded", rep=0, perturbations=ids)
    job = SessionJob(key, 3, persona("vi"), GOALS["one_way"], Mode.SHARDED)
    async with served() as (_, llm):
        make_sim = llm_simulator_factory(llm, perturbations=lambda i: [LIBRARY[p] for p in i])
        record = await run_session(
            job, lambda s: reference_agent("v2", s.agent_seed), make_sim, SessionLimits(20, 30)
        )
    assert record.status == "ok", record.error
    assert record.meta.get("simulator_faults") is None
    landed = {p for t in record.transcript.turns for p in t.user.perturbations}
    assert landed == set(ids)
    assert CANARY in record.checks


# ------------------------------------------------------------------ unchanged without


async def test_without_perturbations_the_llm_users_turns_are_as_before() -> None:
    who, goal = quiet(), make_goal()
    replies = [NOTED, NOTED, NOTED, AgentReply(text="Booked.", tool_calls=[booking(**GOOD_ARGS)])]
    script = await drive(ScriptedSimulator(who, goal, Mode.SHARDED, SEED), who, goal, replies)
    assert script[-1].stop is StopSignal.DONE
    async with served() as (fake, llm):
        turns = await drive(
            LLMSimulator(who, goal, Mode.SHARDED, SEED, llm, SessionMeter()), who, goal, replies
        )
        asked = drafts(fake.requests)
    assert asked == [t.text for t in script[:-1]]
    assert [t.text for t in turns] == [*(f"Well, {t.text}" for t in script[:-1]), script[-1].text]
    assert [t.disclosed for t in turns] == [t.disclosed for t in script]
    assert all(t.perturbations == () for t in turns)


def test_a_key_without_perturbations_looks_nothing_up() -> None:
    who, goal = quiet(), make_goal()
    llm = create_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:9", model="m"))

    def lookup(ids: Sequence[str]) -> list[Perturbation]:
        raise AssertionError(f"looked up {ids}")

    key = SessionKey(persona=who.id, goal=goal.id, mode="sharded", rep=0)
    setup = SessionSetup(key, who, goal, Mode.SHARDED, user_seed=3, agent_seed=4)
    assert isinstance(llm_simulator_factory(llm, perturbations=lookup)(setup), LLMSimulator)
    perturbed = SessionSetup(
        key.model_copy(update={"perturbations": ("typos",)}), who, goal, Mode.SHARDED, 3, 4
    )
    with pytest.raises(AssertionError, match=r"looked up \('typos',\)"):
        llm_simulator_factory(llm, perturbations=lookup)(perturbed)


# ------------------------------------------------------------------ the scripted split


def test_scripted_decoration_deferred_is_the_same_as_decoration_in_place() -> None:
    """``decorate=False`` then ``decorate()`` gives the default simulator's turns exactly."""
    stack = list(LIBRARY.values())
    goal = GOALS["one_way"]
    for seed in range(12):
        who = persona("vi")
        whole = ScriptedSimulator(who, goal, Mode.SHARDED, seed, stack)
        split = ScriptedSimulator(who, goal, Mode.SHARDED, seed, stack, decorate=False)
        transcript = Transcript()
        for t in range(1, 12):
            expected = whole.write(t, transcript)
            planned = split.write(t, transcript)
            if expected.stop is not None:
                assert (planned.text, planned.perturbations) == (
                    expected.text,
                    expected.perturbations,
                )
                break
            text, landed = split.decorate(planned.text, t)
            assert text == expected.text
            assert (*planned.perturbations, *landed) == expected.perturbations
            assert planned.disclosed == expected.disclosed
            transcript = Transcript(
                turns=(*transcript.turns, Turn(index=t, user=expected, agent=NOTED))
            )


async def test_a_suites_llm_user_plays_the_perturbations_its_session_key_names() -> None:
    """The run's factory resolves the key's ids in the shipped library (as for scripted)."""
    who, goal = persona("en"), GOALS["one_way"]
    key = SessionKey(persona=who.id, goal=goal.id, mode="full", rep=0, perturbations=("injection",))
    setup = SessionSetup(key, who, goal, Mode.FULL, user_seed=user_seed(), agent_seed=1)
    async with FakeProvider(FakeProviderConfig(), voiced).serve() as url:
        spec = {"backend": "openai", "base_url": url, "model": "fake", "max_attempts": 1}
        suite = Suite.model_validate({"simulator": {"kind": "llm", "llm": spec}})
        roles = build_roles(suite, Path.cwd(), parts=("user",))
        try:
            sim = roles.simulator(setup)
            assert isinstance(sim, LLMSimulator)
            turns = await drive(sim, who, goal, [NOTED] * 4)
        finally:
            await roles.aclose()
    said = [c for t in turns for c in CANARY_RE.findall(t.text)]
    assert said == [canary_for(user_seed(), "injection")]
