"""Spec models are frozen all the way down: loaded once, shared by every session, and
changed only by making a copy (``model_copy(update=...)``), never in place."""

from __future__ import annotations

import datetime as dt
import enum
from pathlib import Path
from typing import Any

import pytest
from frozendict import frozendict
from pydantic import BaseModel, ValidationError

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import CONSTRAINT_PREFIX, constraint_checks, grade
from simlab.spec import (
    DomainFile,
    Goal,
    Grading,
    SpecError,
    Suite,
    default_suite,
    load_agent_spec,
    load_goals,
    load_personas,
    load_perturbations,
    load_suite,
    parse_model,
    shipped_dir,
    suite_domains,
)

_SCALARS = (str, int, float, bool, type(None), enum.Enum, Path, dt.date)


def _shipped_specs() -> list[BaseModel]:
    """The default suite and every spec it runs with: personas, goals, domains,
    perturbations, and the travel domain's LLM agent."""
    path = default_suite()
    suite = load_suite(path)
    base = path.parent
    specs: list[BaseModel] = [suite]
    specs += load_personas([base / d for d in suite.persona_dirs]).values()
    specs += load_goals([base / d for d in suite.goal_dirs]).values()
    specs += suite_domains(suite, path).domains.values()
    specs += load_perturbations([base / d for d in suite.perturbation_dirs]).values()
    specs.append(load_agent_spec(shipped_dir("domains") / "travel" / "agents" / "booking_llm.yaml"))
    return specs


def _mutable_parts(root: BaseModel) -> tuple[list[str], int]:
    """Where below ``root`` a value can be changed in place (a list, dict or set, or a
    model that is not frozen), and how many models were walked."""
    found: list[str] = []
    models = 0
    pending: list[tuple[str, Any]] = [(type(root).__name__, root)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, BaseModel):
            models += 1
            if not type(value).model_config.get("frozen"):
                found.append(f"{where}: {type(value).__name__} is not frozen")
            for name in type(value).model_fields:
                pending.append((f"{where}.{name}", getattr(value, name)))
        elif isinstance(value, frozendict):
            for key, item in value.items():
                pending.append((f"{where}[{key!r}]", key))
                pending.append((f"{where}[{key!r}]", item))
        elif isinstance(value, tuple | frozenset):
            pending.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
        elif not isinstance(value, _SCALARS):
            found.append(f"{where}: a {type(value).__name__}")
    return found, models


def test_every_model_reachable_from_the_default_suite_is_frozen_all_the_way_down() -> None:
    specs = _shipped_specs()
    walked = 0
    for spec in specs:
        mutable, models = _mutable_parts(spec)
        assert not mutable, mutable[:10]
        walked += models
    assert walked > 1000  # the walk went down into domains, tools and fixtures


def test_specs_built_in_code_and_gradings_laid_over_one_another_are_frozen_too() -> None:
    suite = Suite.model_validate(
        {
            "personas": ["a_*"],
            "pricing": {"model": {"input": 1.0}},
            "buckets": ["1-3", "4+"],
            "grading": {"weights": {"constraints": 1.0}, "require": ["constraint:*"]},
        }
    )
    over = Grading.model_validate({"preset": "composite"}).over(suite.grading)
    for spec in (suite, over, Grading.model_validate({"graders": ["canary"]}).over(over)):
        mutable, _ = _mutable_parts(spec)
        assert not mutable, mutable
    assert isinstance(over.weights, frozendict) and over.graders is not None


def test_the_walk_finds_a_list_a_dict_and_an_unfrozen_model() -> None:
    class Loose(BaseModel):
        items: list[int] = [1]

    class Held(BaseModel):
        model_config = {"frozen": True}
        by_name: dict[str, int] = {"a": 1}
        loose: Loose = Loose()

    found, _ = _mutable_parts(Held())
    assert sorted(found) == [
        "Held.by_name: a dict",
        "Held.loose.items: a list",
        "Held.loose: Loose is not frozen",
    ]


def test_a_loaded_spec_cannot_be_changed_in_place() -> None:
    path = default_suite()
    suite = load_suite(path)
    goal = next(g for g in load_goals([path.parent / "goals"]).values() if g.constraints)
    domain = suite_domains(suite, path).domains["travel"]
    tool = next(t for t in domain.tools if t.fixtures)
    with pytest.raises(AttributeError):
        goal.constraints.pop()  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        goal.constraints = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        domain.languages["xx"] = domain.languages["en"]  # type: ignore[index]
    with pytest.raises(TypeError):
        tool.parameters["type"] = "array"  # type: ignore[index]
    with pytest.raises(AttributeError):
        suite.modes.append(suite.modes[0])  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        tool.fixtures[0].when["extra"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        suite.pricing["model"] = {}  # type: ignore[index]


def _honouring(goal: Goal) -> Transcript:
    """One turn: the user states every fact, the agent makes the final call with each
    constrained field set to its fact's value."""
    args = {c.field: goal.fact(c.fact).value for c in goal.constraints}
    call = ToolCall(name=goal.final_tool, args=args, result={})
    disclosed = {f.id: f.value for f in goal.facts}
    return Transcript(
        turns=[
            Turn(
                index=1,
                user=UserTurn(text="here is everything", disclosed=disclosed),
                agent=AgentReply(text="done", tool_calls=[call]),
            )
        ]
    )


def _constraint_names(checks: dict[str, Any]) -> list[str]:
    return sorted(n for n in checks if n.startswith(CONSTRAINT_PREFIX))


def test_a_copy_with_fewer_constraints_grades_with_fewer_constraint_checks() -> None:
    goals = load_goals([default_suite().parent / "goals"])
    goal = next(g for g in goals.values() if len({c.fact for c in g.constraints}) >= 2)
    transcript = _honouring(goal)
    every = _constraint_names(constraint_checks(goal, transcript))
    assert len(every) == len(goal.constraints)

    fewer = goal.model_copy(update={"constraints": goal.constraints[:1]})
    assert len(_constraint_names(constraint_checks(fewer, transcript))) == 1
    assert len(_constraint_names(grade(fewer, transcript).checks)) == 1
    # the original, graded again after its copy, still has every check
    assert _constraint_names(grade(goal, transcript).checks) == every


_GOAL = "id: g\ntitle: t\nfinal_tool: book\n"
_LOOKUP = (
    "tools:\n  - name: book\n    description: d\n    lookups:\n      - tool: find\n"
    "        where: [{field: a, value: [1, {}]}]\n        order_by: [{}]\n"
)


@pytest.mark.parametrize(
    ("model", "text", "said"),
    [
        (Goal, _GOAL + "facts: []\n", "g.yaml:4: facts: List should have at least 1 item"),
        (
            Goal,
            _GOAL + "facts: [{id: a, slot: a, value: 1}]\nconstraints:\n",
            "g.yaml:5: constraints: Input should be a valid list (got nothing: `constraints:` "
            "has no value; write `constraints: []` for none, or remove the line)",
        ),
        (Goal, _GOAL + "facts: x\n", "g.yaml:4: facts: Input should be a valid list (got 'x')"),
        (
            DomainFile,
            _LOOKUP,
            "g.yaml:6: tools.0.lookups.0.where.0.value.list[constrained-str].0: "
            "Input should be a valid string (got 1)",
        ),
        (
            DomainFile,
            _LOOKUP,
            "g.yaml:7: tools.0.lookups.0.order_by.0.dict[str,constrained-str]: "
            "Dictionary should have at least 1 item after validation, not 0",
        ),
    ],
)
def test_a_frozen_fields_problems_read_as_a_written_list_or_mappings(
    model: type[BaseModel], text: str, said: str
) -> None:
    with pytest.raises(SpecError) as raised:
        parse_model(model, Path("g.yaml"), text)
    shown = str(raised.value)
    assert said in shown
    assert "uple" not in shown and "function-after" not in shown
    # a list whose items failed says their problems only, not a length (pydantic's
    # tuples count the valid items alone)
    assert "value.list[constrained-str]: List should" not in shown
