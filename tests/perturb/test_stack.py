"""Landing turns: seeded, deterministic, inside the window, independent of the rest of the stack."""

from __future__ import annotations

import itertools
import random

from simlab.core import AgentReply, Transcript, Turn, UserTurn
from simlab.simulators import PerturbationStack, ScriptedSimulator, changed_value, planned_turns
from simlab.spec import Mode, ValueChange

from .driver import LIBRARY, goal, persona


def test_landing_turns_are_seeded_and_deterministic() -> None:
    stack = list(LIBRARY.values())
    a = PerturbationStack(stack, "en", goal("one_way"), seed=11).landing_turns()
    b = PerturbationStack(stack, "en", goal("one_way"), seed=11).landing_turns()
    assert a == b
    for pid, turn in a.items():
        lands = LIBRARY[pid].lands
        assert lands.earliest <= turn <= lands.latest


def test_landing_turns_cover_the_window_across_seeds() -> None:
    p = LIBRARY["digression"]  # lands in [2, 5]
    turns = {
        PerturbationStack([p], "en", goal("one_way"), seed=s).landing_turns()["digression"]
        for s in range(60)
    }
    assert turns == {2, 3, 4, 5}


def test_a_perturbations_landing_does_not_depend_on_the_rest_of_the_stack() -> None:
    alone = PerturbationStack([LIBRARY["pushback"]], "vi", goal("one_way"), seed=3)
    stacked = PerturbationStack(list(LIBRARY.values()), "vi", goal("one_way"), seed=3)
    assert alone.landing_turns()["pushback"] == stacked.landing_turns()["pushback"]


def test_value_changes() -> None:
    rng = random.Random(0)
    assert changed_value(ValueChange(slot="date", shift_days=-1), "2027-01-01", rng) == (
        "2026-12-31"
    )
    assert changed_value(ValueChange(slot="passengers", delta=-1), 2, rng) == 1
    assert changed_value(ValueChange(slot="passengers", delta=-1, minimum=1), 1, rng) is None
    alt = ValueChange(slot="date", goal_alternative=True)
    # the goal's declared values other than the current one: back to the original
    assert changed_value(alt, "2026-12-19", rng, ("2026-12-20", "2026-12-19")) == "2026-12-20"
    assert changed_value(ValueChange(slot="destination", values=["DAD"]), "DAD", rng) is None


def test_canaries_are_per_session() -> None:
    p = LIBRARY["injection"]
    one = PerturbationStack([p], "en", goal("one_way"), seed=1).canaries["injection"]
    two = PerturbationStack([p], "en", goal("one_way"), seed=2).canaries["injection"]
    assert one != two and one.startswith("CANARY-") and len(one) == len("CANARY-") + 8


def test_stacks_built_from_the_same_arguments_land_alike() -> None:
    stack, one_way = list(LIBRARY.values()), goal("one_way")
    built = PerturbationStack(stack, "en", one_way, 5)
    again = PerturbationStack(stack, "en", one_way.model_copy(), 5)
    assert again is not built and again.landing_turns() == built.landing_turns()


def _conversation(sim: ScriptedSimulator, replies: list[AgentReply]) -> list[UserTurn]:
    transcript, said = Transcript(), []
    for turn, reply in enumerate(replies, start=1):
        user = sim.write(turn, transcript)
        said.append(user)
        if user.stop is not None:
            break
        transcript = Transcript(turns=(*transcript.turns, Turn(index=turn, user=user, agent=reply)))
    return said


def test_a_user_built_after_its_planned_length_says_what_a_fresh_one_says() -> None:
    # the length computation builds the session's stack and its user takes it: reading
    # its landing turns must leave it exactly as a stack the user built itself
    one_way, replies = (
        goal("one_way"),
        [
            AgentReply(text="Noted. What date?"),
            AgentReply(text="Which city are you leaving from?"),
            AgentReply(text="Got it."),
            AgentReply(text="I found one. Shall I book it?"),
            AgentReply(text="Anything else?"),
        ]
        * 3,
    )
    for language, stacked, seed in itertools.product(
        ("en", "vi"), (list(LIBRARY.values()), [LIBRARY["contradiction"]]), range(12)
    ):
        who = persona(language)
        fresh = ScriptedSimulator(who, one_way, Mode.SHARDED, seed, stacked)
        planned_turns(who, one_way, Mode.SHARDED, seed, stacked)
        taken = ScriptedSimulator(who, one_way, Mode.SHARDED, seed, stacked)
        assert _conversation(taken, replies) == _conversation(fresh, replies)
