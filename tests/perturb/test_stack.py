"""Landing turns: seeded, deterministic, inside the window, independent of the rest of the stack."""

from __future__ import annotations

import random

from simlab.simulators import PerturbationStack, changed_value
from simlab.spec import ValueChange

from .driver import LIBRARY, goal


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
