"""DisclosurePlan: seeded, mode-aware, holds optional facts back, draws mind changes."""

from __future__ import annotations

from simlab.simulators import DisclosurePlan
from simlab.spec import Mode, Traits

from .sim_driver import make_goal

REQUIRED = {"origin", "destination", "date", "adults"}
OPTIONAL = {"budget", "latest"}


def test_same_seed_same_plan_and_seeds_differ() -> None:
    traits = Traits(verbosity=0.5, change_mind=0.5)
    goal = make_goal()
    a = DisclosurePlan.draw(traits, goal, Mode.SHARDED, 11)
    assert a == DisclosurePlan.draw(traits, goal, Mode.SHARDED, 11)
    plans = {DisclosurePlan.draw(traits, goal, Mode.SHARDED, s).order for s in range(20)}
    assert len(plans) > 1


def test_full_mode_reveals_everything_at_turn_one() -> None:
    plan = DisclosurePlan.draw(Traits(facts_per_turn=1), make_goal(), Mode.FULL, 3)
    assert plan.first_turn == 6
    assert set(plan.earliest.values()) == {1}


def test_drip_reveals_facts_per_turn() -> None:
    plan = DisclosurePlan.draw(
        Traits(disclosure="drip", facts_per_turn=2), make_goal(), Mode.SHARDED, 5
    )
    assert (plan.first_turn, plan.per_turn) == (2, 2)
    assert all(plan.earliest[f] == 1 for f in REQUIRED)  # the user always knows these


def test_batch_holds_back_some_optional_facts_or_else_one_required() -> None:
    held_optional = 0
    for seed in range(60):
        plan = DisclosurePlan.draw(Traits(disclosure="batch"), make_goal(), Mode.SHARDED, seed)
        held = set(plan.order[plan.first_turn :])
        assert held, "sharded batch must hold something back"
        if held <= OPTIONAL:
            held_optional += 1
            assert all(plan.earliest[f] >= 2 for f in held)
            assert set(plan.order[: plan.first_turn]) >= REQUIRED
        else:
            assert len(held) == 1 and held <= REQUIRED
    # each optional fact is held with probability BATCH_HOLD_P: a mix, never all or none
    assert 0 < held_optional < 60


def test_batch_without_optional_facts_holds_back_one_required() -> None:
    goal = make_goal(
        facts=[
            {"id": "origin", "slot": "origin", "value": "HAN"},
            {"id": "date", "slot": "date", "value": "2026-12-20"},
        ],
        mind_changes=[],
        constraints=[],
    )
    plan = DisclosurePlan.draw(Traits(disclosure="batch"), goal, Mode.SHARDED, 0)
    assert plan.first_turn == 1
    assert plan.earliest == {"origin": 1, "date": 1}


def test_required_facts_lead_the_order() -> None:
    # Keys are group + U(0, 1.25): an optional fact precedes a required one only
    # when both land in the 0.25-wide overlap, so on average required facts lead.
    positions = {f: 0 for f in REQUIRED | OPTIONAL}
    for seed in range(200):
        order = DisclosurePlan.draw(Traits(), make_goal(), Mode.SHARDED, seed).order
        for i, f in enumerate(order):
            positions[f] += i
    assert max(positions[f] for f in REQUIRED) < min(positions[f] for f in OPTIONAL)


def test_mind_changes_follow_change_mind_probability() -> None:
    goal = make_goal()
    always = DisclosurePlan.draw(Traits(change_mind=1.0), goal, Mode.SHARDED, 4)
    assert [(c.fact, c.value) for c in always.changes] == [("date", "2026-12-21")]
    assert 1 <= always.changes[0].delay <= 3
    never = DisclosurePlan.draw(Traits(change_mind=0.0), goal, Mode.SHARDED, 4)
    assert never.changes == ()
    fired = sum(
        bool(DisclosurePlan.draw(Traits(change_mind=0.8), goal, Mode.SHARDED, s).changes)
        for s in range(500)
    )
    assert 360 < fired < 440  # 0.8 * 500 = 400, sd ~ 9


def test_fillers_follow_verbosity() -> None:
    goal = make_goal()
    assert DisclosurePlan.draw(Traits(verbosity=0.0), goal, Mode.FULL, 1).filler_turns == set()
    full = DisclosurePlan.draw(Traits(verbosity=1.0, patience=5), goal, Mode.FULL, 1)
    assert full.filler_turns == {1, 2, 3, 4, 5, 6}
    hits = sum(
        len(
            DisclosurePlan.draw(Traits(verbosity=0.3, patience=18), goal, Mode.FULL, s).filler_turns
        )
        for s in range(200)
    )
    assert 0.25 < hits / (200 * 19) < 0.35


def test_the_users_plan_and_generator_are_those_a_seeded_draw_gives() -> None:
    import random

    from simlab.simulators._plan import take_drawn

    traits, goal = Traits(verbosity=0.5, change_mind=0.5), make_goal()
    plan, rng = take_drawn(traits, goal, Mode.SHARDED, 7)
    fresh = random.Random(7)
    assert DisclosurePlan.draw_from(traits, goal, Mode.SHARDED, fresh) == plan
    assert DisclosurePlan.draw(traits, goal, Mode.SHARDED, 7) == plan
    assert [rng.random() for _ in range(5)] == [fresh.random() for _ in range(5)]
    assert take_drawn(traits, goal, Mode.SHARDED, 8)[0] != plan
