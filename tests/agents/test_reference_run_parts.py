"""The reference agent's run-wide parts: a run's agents share each domain's reading,
answers and decisions (by value), a canary is planted where a fixture asks for it,
and what the agent decides is read-only."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from simlab.agents.reference import Decision, Plan, ReferenceTargets
from simlab.agents.reference._fixtures import FixtureAnswers, holds_canary_slot, plant_canary
from simlab.spec import shipped_domain


def test_a_canary_is_planted_in_every_string_that_asks_for_it() -> None:
    value: Any = {"a": "say {canary}", "b": [1, "{canary}{canary}", {"c": None}], "d": "x"}
    assert holds_canary_slot(value) and not holds_canary_slot({"a": ["plain", 3]})
    assert plant_canary(value, "CANARY-1") == {
        "a": "say CANARY-1",
        "b": [1, "CANARY-1CANARY-1", {"c": None}],
        "d": "x",
    }
    assert value["a"] == "say {canary}"  # the fixture's own value is left as it was


def test_each_call_is_a_tool_call_of_its_own_with_the_fixtures_answer() -> None:
    answers = FixtureAnswers(shipped_domain("bank"))
    args = {"customer_id": "C10001", "account": "savings"}
    first, planted = answers.call("get_balance", args, "CANARY-1")
    again, _ = answers.call("get_balance", dict(args), "CANARY-2")
    assert not planted and first == again and first is not again
    assert first.args is not again.args and first.result["balance"] == 15230
    # a boolean is not the number 1 to the schema, whatever their equality says
    limit = {"customer_id": "C10001", "card_last4": "4821"}
    one, _ = answers.call("raise_limit", {**limit, "new_limit": 1}, None)
    true, _ = answers.call("raise_limit", {**limit, "new_limit": True}, None)
    assert one.error != true.error and "invalid arguments" in str(true.error)


def test_a_runs_agents_share_their_domains_parts_and_keep_their_own_state() -> None:
    targets = ReferenceTargets("v1")
    setup: Any = SimpleNamespace(goal=SimpleNamespace(domain=None), agent_seed=1)
    other: Any = SimpleNamespace(goal=SimpleNamespace(domain=None), agent_seed=2)
    first, second = targets(setup), targets(other)
    assert first._skill._reader is second._skill._reader  # one reader for the run's domain
    assert first._skill.canary != second._skill.canary  # each session its own canary
    assert first._heard is not second._heard
    with pytest.raises(ValueError, match="unknown reference agent version"):
        ReferenceTargets("v9")


def test_what_the_agent_decides_cannot_be_changed() -> None:
    plan = Plan("book", (("adults", 2),), {"total": 40})
    decision = Decision(problem="no_fit", detail={"what": "x"})
    with pytest.raises(TypeError):
        plan.info["total"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        decision.detail["what"] = "y"  # type: ignore[index]
    assert plan == Plan("book", (("adults", 2),)) and dict(plan.info) == {"total": 40}
