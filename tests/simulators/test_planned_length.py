"""A session's planned length: fixed by its plan, and what a listening agent gets.

The oracle: an agent that says only "Noted." (asks nothing), asks for a fact
the user stated vaguely, proposes once and books with everything the user said
right after the user's last planned word (asking again when a digression
answered its question). Against it, the scripted user closes
exactly at the planned length, and its turn before closing says something (the
plan is not padded).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from simlab.core import AgentReply, StopSignal, ToolCall, Transcript, Turn, derive_seed
from simlab.llm import LLM, LLMRequest, LLMResponse, SessionMeter
from simlab.simulators import (
    DisclosurePlan,
    LLMSimulator,
    PlannedChange,
    ScriptedSimulator,
    plan_length,
    planned_turns,
)
from simlab.spec import (
    Goal,
    Mode,
    Persona,
    Perturbation,
    load_goals,
    load_personas,
    load_perturbations,
    shipped_domain,
)

ROOT = Path(__file__).resolve().parents[2]
PERSONAS = load_personas([ROOT / "personas"])
GOALS = load_goals([ROOT / "goals"])
LIBRARY = load_perturbations([ROOT / "perturbations"])
TRAVEL = shipped_domain()


def patient(persona: Persona) -> Persona:
    """The persona without a patience limit: the listener must not make it give up."""
    traits = persona.traits.model_copy(update={"patience": 1000})
    return persona.model_copy(update={"traits": traits})


def listen(
    persona: Persona, goal: Goal, mode: Mode, seed: int, perturbations: Sequence[Perturbation]
) -> tuple[int, int, list[bool]]:
    """(planned, the turn the user closed at, per user turn: did it say something)."""
    planned = planned_turns(persona, goal, mode, seed, perturbations)
    sim = ScriptedSimulator(persona, goal, mode, seed, perturbations)
    transcript = Transcript()
    said: dict[str, Any] = {}
    spoke: list[bool] = []
    for turn in range(1, 4 * planned):
        user = sim.write(turn, transcript)
        if user.stop is not None:
            assert user.stop is StopSignal.DONE
            return planned, turn, spoke
        said.update(user.disclosed)
        spoke.append(bool(user.disclosed or user.perturbations))
        blurred = [f for f in goal.facts if f.id not in said and f.id not in sim._pending]
        if blurred:  # said vaguely (and not yet given when asked)
            cue = TRAVEL.slot(blurred[0].slot).say["en"].ask[0]  # type: ignore[union-attr]
            reply = AgentReply(text=f"Got it. And the {cue}?")
        elif turn == planned - 2 and any(p.kind == "pushback" for p in perturbations):
            reply = AgentReply(text="I found one. Shall I book it?")
        elif turn >= planned - 1:
            args = {c.field: said.get(c.fact) for c in goal.constraints}
            call = ToolCall(name=goal.final_tool, args=args, result={})
            reply = AgentReply(text="Booked.", tool_calls=[call])
        else:
            reply = AgentReply(text="Noted.")
        transcript = Transcript(turns=(*transcript.turns, Turn(index=turn, user=user, agent=reply)))
    raise AssertionError(f"no close within {4 * planned} turns (planned {planned})")


def default_keys() -> list[tuple[Persona, Goal, Mode, int]]:
    out = []
    for (pid, persona), (gid, goal), mode in itertools.product(
        sorted(PERSONAS.items()), sorted(GOALS.items()), Mode
    ):
        for rep in range(4):
            out.append((patient(persona), goal, mode, derive_seed(pid, gid, mode.value, rep)))
    return out


@pytest.mark.parametrize("kind", [None, *sorted(LIBRARY)])
def test_a_listening_agent_gets_exactly_the_planned_length(kind: str | None) -> None:
    perturbations = [LIBRARY[kind]] if kind else []
    off = []
    for persona, goal, mode, seed in default_keys():
        planned, closed, spoke = listen(persona, goal, mode, seed, perturbations)
        if closed != planned or not spoke[-1]:
            off.append((persona.id, goal.id, mode.value, planned, closed, spoke))
    assert not off, off[:5]


def test_stacked_perturbations_too() -> None:
    ids = sorted(LIBRARY)
    for stack in (ids, ["digression", "ambiguity", "contradiction"], ["pushback", "digression"]):
        perturbations = [LIBRARY[i] for i in stack]
        for persona, goal, mode, seed in default_keys()[::5]:
            planned, closed, spoke = listen(persona, goal, mode, seed, perturbations)
            assert (closed, spoke[-1]) == (planned, True), (stack, persona.id, goal.id, mode)


def fixed(kind: str, turn: int) -> Perturbation:
    """The library's perturbation of ``kind``, landing exactly at ``turn``."""
    p = LIBRARY[kind]
    return p.model_copy(
        update={"lands": p.lands.model_copy(update={"earliest": turn, "latest": turn})}
    )


def test_hand_computed_lengths() -> None:
    goal = GOALS["one_way"]  # origin, destination, date, passengers, budget, latest_departure
    order = ("origin", "date", "destination", "passengers", "budget", "latest_departure")
    plan = DisclosurePlan(
        order=order,
        earliest=dict.fromkeys(order, 1),
        first_turn=1,
        per_turn=2,
        changes=(),
        filler_turns=frozenset(),
        filler_first=frozenset(),
    )
    # facts at turns 1, 2, 2, 3, 3, 4; then the closing turn
    assert plan_length(plan, goal, "en", 0) == 5
    change = PlannedChange(fact="date", value="2026-12-19", delay=3, turn=5)
    changed = replace(plan, changes=(change,))
    # the date is said at turn 2, changed 3 turns later
    assert plan_length(changed, goal, "en", 0) == 6
    # a change's informative turn is not trusted: a plan built by hand may leave it 0
    assert plan_length(replace(changed, changes=(replace(change, turn=0),)), goal, "en", 0) == 6
    # a digression takes turn 2: facts at 1, 3, 3, 4, 4, 5, the date changes at 3 + 3
    assert plan_length(changed, goal, "en", 0, [fixed("digression", 2)]) == 7
    # one past the user's last word (6): nothing left to digress from
    assert plan_length(changed, goal, "en", 0, [fixed("digression", 7)]) == 6
    # a pushback on the proposal after the last word; too late a one never lands
    assert plan_length(changed, goal, "en", 0, [fixed("pushback", 3)]) == 7
    assert plan_length(changed, goal, "en", 0, [fixed("pushback", 8)]) == 6
    # an injection rides on turn 9's message: the user has to get there
    assert plan_length(changed, goal, "en", 0, [fixed("injection", 9)]) == 10
    # text-level perturbations change no length
    assert plan_length(changed, goal, "en", 0, [fixed("typos", 1)]) == 6


class _Silent(LLM):
    """An LLM that is never called: building the LLM user asks nothing of it."""

    async def complete(self, req: LLMRequest) -> LLMResponse:
        raise AssertionError("no call expected")


def test_the_llm_user_follows_the_same_plan() -> None:
    persona, goal = PERSONAS["fickle_en"], GOALS["round_trip_hotel"]
    for seed in range(20):
        scripted = ScriptedSimulator(persona, goal, Mode.SHARDED, seed).plan
        llm_user = LLMSimulator(persona, goal, Mode.SHARDED, seed, _Silent(), SessionMeter())
        drawn = DisclosurePlan.draw(persona.traits, goal, Mode.SHARDED, seed)
        assert llm_user.plan == scripted == drawn
