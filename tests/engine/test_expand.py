"""A suite of several domains pairs each domain's personas with its own goals."""

from __future__ import annotations

from pathlib import Path

from simlab.engine import expand
from simlab.spec import load_goals, load_personas, load_suite

ROOT = Path(__file__).resolve().parents[2]


def test_a_persona_meets_the_goals_of_its_domain_and_any_goal_when_it_names_none() -> None:
    suite = load_suite(ROOT / "examples" / "bank" / "simlab.yaml").model_copy(
        update={"domains": ("bank", "travel"), "reps": 1, "modes": suite_modes()}
    )
    bank_personas = load_personas([ROOT / "personas" / "bank"])
    travel = load_personas([ROOT / "personas"])["terse_en"]
    personas = {
        **bank_personas,
        "traveller": travel.model_copy(update={"id": "traveller", "domain": "travel"}),
        "anyone": travel.model_copy(update={"id": "anyone", "domain": None}),
    }
    goals = {
        **load_goals([ROOT / "goals" / "bank"]),
        **{
            gid: g.model_copy(update={"domain": "travel"})
            for gid, g in load_goals([ROOT / "goals"]).items()
        },
    }
    pairs = {(j.persona.id, j.goal.id) for j in expand(suite, personas, goals)}
    bank_goals = {g for g, goal in goals.items() if goal.domain == "bank"}
    travel_goals = set(goals) - bank_goals
    assert {g for p, g in pairs if p in bank_personas} == bank_goals
    assert {g for p, g in pairs if p == "traveller"} == travel_goals
    assert {g for p, g in pairs if p == "anyone"} == set(goals)
    assert len(pairs) == len(bank_personas) * len(bank_goals) + len(travel_goals) + len(goals)


def suite_modes() -> tuple[object, ...]:
    return load_suite(ROOT / "examples" / "bank" / "simlab.yaml").modes[:1]
