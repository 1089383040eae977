"""The scripted user judges what a call holds now; a plan's quiet length, cached by its
quotas and earliest turns, is the one worked out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import AgentReply, StopSignal, UserTurn, freeze
from simlab.simulators import DisclosurePlan, PlannedChange, ScriptedSimulator
from simlab.simulators._plan import _natural_turns, _with_turns, quiet_last_turn
from simlab.spec import Mode, load_personas, load_perturbations

from .sim_driver import GOOD_ARGS, booking, make_goal, play

ROOT = Path(__file__).resolve().parents[2]
PERSONAS = load_personas([ROOT / "personas"])
LIBRARY = load_perturbations([ROOT / "perturbations"])


def test_a_fixed_copy_of_a_call_already_judged_is_judged_anew() -> None:
    # a call cannot be fixed in place (its args are frozen): an agent that fixes it hands
    # back a copy, which the user reads afresh, and closes
    call = booking(**{**GOOD_ARGS, "date": "2026-12-21"})
    with pytest.raises(TypeError):
        call.args["date"] = GOOD_ARGS["date"]  # type: ignore[index]
    fixed = call.model_copy(update={"args": freeze({**call.args, "date": GOOD_ARGS["date"]})})

    def agent(turn: int, user: UserTurn) -> AgentReply:
        return AgentReply(text="Booked!", tool_calls=[fixed if turn >= 3 else call])

    persona = PERSONAS[sorted(PERSONAS)[0]]
    turns = play(ScriptedSimulator(persona, make_goal(), Mode.FULL, 0), agent, max_turns=12)
    assert turns[-1].stop is StopSignal.DONE
    assert len(turns) <= 5


@settings(max_examples=300, deadline=None)
@given(
    earliest=st.lists(st.integers(1, 6), min_size=1, max_size=7),
    first_turn=st.integers(1, 7),
    per_turn=st.integers(1, 3),
    delays=st.lists(st.integers(1, 3), max_size=2),
)
def test_a_cached_quiet_length_is_the_one_worked_out(
    earliest: list[int], first_turn: int, per_turn: int, delays: list[int]
) -> None:
    order = tuple(f"f{i}" for i in range(len(earliest)))
    changes = tuple(PlannedChange(fact=order[0], value="x", delay=d, turn=0) for d in delays)
    plan = DisclosurePlan(
        order=order,
        earliest=dict(zip(order, earliest, strict=True)),
        first_turn=first_turn,
        per_turn=per_turn,
        changes=changes,
        filler_turns=frozenset(),
        filler_first=frozenset(),
    )
    natural = _natural_turns(list(order), plan.earliest, first_turn, per_turn)
    last = max(natural.values(), default=1)
    if changes:
        last = max(last, *(c.turn for c in _with_turns(changes, natural)))
    assert quiet_last_turn(plan) == max(last, 1)
