"""The scripted user's shortcuts give what the long way gives.

A final action's verdict is remembered while the agent repeats the same call and the
user's wants stand; user turns are built by the model's validator alone; a plan's quiet
length is remembered by its quotas and earliest turns.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from frozendict import frozendict
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import AgentReply, StopSignal, ToolCall, UserTurn, freeze, mark_read_only
from simlab.simulators import DisclosurePlan, PlannedChange, ScriptedSimulator
from simlab.simulators._plan import _natural_turns, _with_turns, quiet_last_turn
from simlab.simulators._scripted import _user_turn_of
from simlab.spec import Mode, load_personas, load_perturbations

from .sim_driver import GOOD_ARGS, booking, make_goal, play

ROOT = Path(__file__).resolve().parents[2]
PERSONAS = load_personas([ROOT / "personas"])
LIBRARY = load_perturbations([ROOT / "perturbations"])


class _Unremembering(ScriptedSimulator):
    """Judges every final action afresh."""

    def _broken_facts(self, call: ToolCall) -> tuple[str, ...]:
        self._judged = None
        self._said.clear()
        self._corrections_said.clear()
        return super()._broken_facts(call)


def test_a_repeated_call_gets_the_verdict_a_fresh_judgement_gives() -> None:
    # the same read-only call object every turn, as the reference agent shares its calls
    over = mark_read_only(booking(**{**GOOD_ARGS, "total_price": 520, "date": "2026-12-21"}))
    replies = [
        AgentReply(text="Booked!", tool_calls=[over]),
        AgentReply(text="Booked!", tool_calls=[booking(**GOOD_ARGS)]),
    ]
    kinds = [(), ("goal_change",), ("contradiction",), ("goal_change", "contradiction")]
    played = 0
    for persona, mode, seed, kind in itertools.product(PERSONAS.values(), Mode, range(6), kinds):
        perturbations = [p for p in LIBRARY.values() if p.kind in kind]
        for reply_list in ([replies[0]], replies):
            args = (persona, make_goal(), mode, seed, perturbations)
            a = play(ScriptedSimulator(*args), reply_list, max_turns=12)
            b = play(_Unremembering(*args), reply_list, max_turns=12)
            assert [t.model_dump() for t in a] == [t.model_dump() for t in b]
            played += 1
    assert played > 100


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


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(max_size=20),
    disclosed=st.dictionaries(
        st.text(max_size=5), st.one_of(st.text(max_size=5), st.integers(), st.booleans())
    ),
    stop=st.sampled_from([None, *StopSignal]),
)
def test_a_user_turn_built_by_the_validator_is_the_one_the_model_builds(
    text: str, disclosed: dict[str, object], stop: StopSignal | None
) -> None:
    validated = UserTurn(text=text, disclosed=dict(disclosed), stop=stop)
    built = _user_turn_of(text, dict(disclosed), stop)
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert isinstance(built.disclosed, frozendict)  # frozen like any turn's


@settings(max_examples=300, deadline=None)
@given(
    earliest=st.lists(st.integers(1, 6), min_size=1, max_size=7),
    first_turn=st.integers(1, 7),
    per_turn=st.integers(1, 3),
    delays=st.lists(st.integers(1, 3), max_size=2),
)
def test_a_quiet_length_remembered_is_the_one_worked_out(
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
