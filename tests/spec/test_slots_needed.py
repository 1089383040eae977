"""``Domain.slots_needed``: the one definition of what a call cannot go ahead without,
which ``simlab validate`` holds goals to and the reference agent asks the user for."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.agents.reference import DomainSkill
from simlab.spec import DomainSet, Goal, goal_problems, load_goals, shipped_domain

REPO = Path(__file__).resolve().parents[2]


def test_a_lookups_slots_are_needed_with_the_tool_that_needs_them() -> None:
    travel = shipped_domain("travel")
    # hold_booking's flight is picked from search_flights, which needs the route and day
    assert travel.slots_needed("hold_booking") == {
        "origin": "hold_booking",
        "destination": "hold_booking",
        "date": "hold_booking",
        "passengers": "hold_booking",
    }
    bank = shipped_domain("bank")
    assert bank.slots_needed("get_balance") == {
        "customer_id": "get_balance",
        "dob": "verify_identity",  # a tool it requires asks for it
        "account": "get_balance",
    }
    assert list(bank.slots_needed("get_balance", required_tools=False)) == [
        "customer_id",
        "account",
    ]
    assert bank.slots_needed("no_such_tool") == {}


def test_a_goal_without_the_slot_a_lookup_needs_is_a_problem() -> None:
    # it was valid: the agent asked for the day, the user could only say "I don't have
    # that", and every session of the goal failed
    one_way = load_goals([REPO / "goals"])["one_way"]
    dateless = Goal.model_validate(
        {
            **one_way.model_dump(exclude_defaults=True),
            "facts": [f.model_dump() for f in one_way.facts if f.slot != "date"],
            "mind_changes": [],
            "constraints": [c.model_dump() for c in one_way.constraints if c.fact != "date"],
        }
    )
    travel = shipped_domain("travel")
    domains = DomainSet({"travel": travel}, "travel")
    said = [str(p) for p in goal_problems(dateless, domains, "one_way.yaml")]
    assert said == [
        "one_way.yaml: facts: hold_booking needs 'date', a slot of domain 'travel', but no "
        "fact of the goal holds it, so the user cannot answer when asked and every session "
        "fails; add `- {id: date, slot: date, value: ...}` to facts"
    ]
    assert goal_problems(one_way, domains, "one_way.yaml") == []


@pytest.mark.parametrize("name", ["travel", "bank"])
def test_the_reference_agent_asks_for_what_a_goal_must_hold(name: str) -> None:
    domain = shipped_domain(name)
    skill = DomainSkill(domain)
    for intent in domain.intents:
        asked = skill.decide(intent.tool, {}, None).ask
        assert asked == tuple(domain.slots_needed(intent.tool)), intent.tool
