"""``simlab validate`` in a project ``simlab init`` wrote, as its user runs it.

Each check is a subprocess run of the CLI on real files: a file or folder of the
project validated on its own, a mistake in the domain, YAML's unquoted dates and
decimals, and a goal's reference to a fact it does not have.
"""

from pathlib import Path

import pytest
from run_simlab import simlab


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("args", "cwd"),
    [
        (["goals"], "."),
        (["goals/order_tea.yaml", "personas/calm.yaml"], "."),
        (["personas"], "."),
        (["order_tea.yaml"], "goals"),  # from inside the library folder
    ],
)
def test_a_projects_goals_and_personas_validate_on_their_own(
    project: Path, args: list[str], cwd: str
) -> None:
    # they name the project's own domain, which the suite beside them declares: it was
    # "unknown domain 'shop'; known domains: bank, travel", exit 2
    checked = simlab("validate", *args, cwd=project / cwd)
    assert checked.returncode == 0, checked.stderr
    assert "unknown domain" not in checked.stderr
    assert "read as a" not in checked.stderr  # the folder says the kind


def test_a_goal_validated_on_its_own_is_checked_against_the_projects_domain(
    project: Path,
) -> None:
    edit(project / "goals" / "order_tea.yaml", "value: GREEN_TEA", "value: WHITE_TEA")
    checked = simlab("validate", "goals/order_tea.yaml", cwd=project)
    assert checked.returncode == 2
    assert "goals/order_tea.yaml:9: facts.0.value: item takes one of: GREEN_TEA, BLACK_TEA" in (
        checked.stderr
    ), checked.stderr


@pytest.mark.parametrize("args", [[], ["goals", "personas"]])
def test_a_mistake_in_the_domain_is_the_only_problem_said(project: Path, args: list[str]) -> None:
    # a domain that does not load made every goal and persona "unknown domain 'shop'"
    edit(
        project / "domains" / "shop" / "domain.yaml",
        "  - tool: start_return",
        "  - tool: start_retrun",
    )
    checked = simlab("validate", *args, cwd=project)
    assert checked.returncode == 2
    problems = [line.strip() for line in checked.stderr.splitlines() if line.startswith("  ")]
    assert len(problems) == 1, checked.stderr
    assert problems[0].startswith("domains/shop/domain.yaml:")
    assert "intents.1.tool: intent's tool 'start_retrun' is not a declared tool" in problems[0]


def test_the_projects_suite_is_read_as_a_suite_without_a_notice(project: Path) -> None:
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 0, checked.stderr
    assert "read as a suite" not in checked.stderr
    assert "1 suite" in checked.stderr


def test_unquoted_dates_and_decimals_are_values_of_their_slots(project: Path) -> None:
    # YAML reads 2027-01-15 as a date and 40.5 as a float: both were refused with two
    # pydantic lines each ("Input should be a valid string (got datetime.date(...))"),
    # though docs/domains.md writes money as 12.5
    goal = project / "goals" / "order_tea.yaml"
    edit(goal, 'value: "2027-01-15"', "value: 2027-01-15")
    edit(goal, "value: 40,", "value: 40.5,")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 0, checked.stderr
    ran = simlab("run", "--quiet", cwd=project)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (project / "results").iterdir()
    sessions = (run_dir / "sessions.jsonl").read_text()
    assert "January 15, 2027" in sessions  # the date is said as the domain says dates
    assert "40.5 USD" in sessions


def test_a_wrong_type_still_names_the_slots_type(project: Path) -> None:
    edit(project / "goals" / "order_tea.yaml", 'value: "2027-01-15"', "value: 2027-01-15 09:00")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert "Traceback" not in checked.stderr
    assert "goals/order_tea.yaml:" in checked.stderr and "facts.2.value" in checked.stderr


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        (
            "{fact: quantity, field: quantity}",
            "{fact: quantiy, field: quantity}",
            17,
            "constraints.1.fact",
        ),
        ("{fact: quantity, value: 3}", "{fact: qty, value: 3}", 14, "mind_changes.0.fact"),
        ("{id: budget,", "{id: item,", 12, "facts.3.id"),
    ],
)
def test_a_reference_to_a_fact_is_said_at_its_own_line_and_field(
    project: Path, old: str, new: str, line: int, field: str
) -> None:
    # it was said at the goal's first field, as "Value error, unknown fact ..."
    edit(project / "goals" / "order_tea.yaml", old, new)
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    said = [ln.strip() for ln in checked.stderr.splitlines() if "order_tea.yaml" in ln]
    assert said and said[0].startswith(f"goals/order_tea.yaml:{line}: {field}: "), checked.stderr
    assert "Value error" not in checked.stderr


def test_a_fixture_naming_no_parameter_is_said_at_the_fixture(project: Path) -> None:
    edit(
        project / "domains" / "shop" / "domain.yaml",
        "{when: {item: GREEN_TEA}, result: {item: GREEN_TEA, in_stock: true",
        "{when: {tea: GREEN_TEA}, result: {item: GREEN_TEA, in_stock: true",
    )
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert "tools.0.fixtures.0.when: names ['tea'], which are not parameters" in checked.stderr
    assert "Value error" not in checked.stderr


def test_a_confirm_field_the_final_tool_does_not_return_is_a_problem(project: Path) -> None:
    # a typo made the confirmation check vacuous: a field the tool did not return
    # is no fault of the reply, so every session passed it
    edit(
        project / "goals" / "order_tea.yaml",
        "confirm_fields: [order_id, total]",
        "confirm_fields: [order_id, totl]",
    )
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert (
        "goals/order_tea.yaml:21: confirm_fields.1: no 'totl' in what place_order takes or returns"
        in (checked.stderr)
    ), checked.stderr


def test_a_goal_without_a_fact_its_final_tool_requires_is_a_problem(project: Path) -> None:
    # the user was asked for the delivery day, could only say "I don't have that", and
    # every session of the goal failed, while `simlab validate` said the files were valid
    goal = project / "goals" / "order_tea.yaml"
    edit(goal, '  - {id: delivery_date, slot: delivery_date, value: "2027-01-15"}\n', "")
    edit(goal, "  - {fact: delivery_date, field: delivery_date}\n", "")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2, checked.stderr
    assert "Traceback" not in checked.stderr
    assert (
        "goals/order_tea.yaml:7: facts: place_order needs 'delivery_date', a slot of "
        "domain 'shop', but no fact of the goal holds it" in checked.stderr
    ), checked.stderr
    assert "`- {id: delivery_date, slot: delivery_date, value: ...}`" in checked.stderr
    ran = simlab("run", "--quiet", cwd=project)
    assert ran.returncode == 2, ran.stderr  # refused before any session starts


def test_a_key_left_empty_says_so_and_how_to_write_none(project: Path) -> None:
    # `mind_changes:` with its only entry deleted is null in YAML: it was said as
    # "mind_changes: Input should be a valid list", with no fix
    goal = project / "goals" / "order_tea.yaml"
    edit(goal, "  - {fact: quantity, value: 3}\n", "")
    edit(project / "personas" / "calm.yaml", "name: Sarah Miller", "name:")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert (
        "goals/order_tea.yaml:13: mind_changes: Input should be a valid list (got nothing: "
        "`mind_changes:` has no value; write `mind_changes: []` for none, or remove the line)"
    ) in checked.stderr, checked.stderr
    assert (
        "personas/calm.yaml:4: name: Input should be a valid string (got nothing: `name:` has "
        "no value; give it one)"
    ) in checked.stderr, checked.stderr


def test_a_persona_with_an_unknown_domain_names_only_the_projects_domains(
    project: Path,
) -> None:
    # the shipped domains, which the project's suite does not use, were named too:
    # "known domains: bank, shop, travel"
    edit(project / "personas" / "calm.yaml", "domain: shop", "domain: shoop")
    checked = simlab("validate", "personas", cwd=project)
    assert checked.returncode == 2
    assert (
        "personas/calm.yaml:6: domain: unknown domain 'shoop'; known domains: shop (add its "
        "folder to the suite's `domains`)"
    ) in checked.stderr, checked.stderr


def test_a_suites_domain_not_found_is_said_at_its_line(project: Path) -> None:
    edit(project / "simlab.yaml", "domains: [domains/shop]", "domains: [domains/shopp]")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert "simlab.yaml:6: domains: domain 'domains/shopp' not found: give a folder" in (
        checked.stderr
    ), checked.stderr


def test_a_reference_to_no_fact_says_the_fix(project: Path) -> None:
    goal = project / "goals" / "order_tea.yaml"
    edit(goal, "{fact: quantity, field: quantity}", "{fact: quantiy, field: quantity}")
    checked = simlab("validate", "goals", cwd=project)
    assert (
        "goals/order_tea.yaml:17: constraints.1.fact: unknown fact 'quantiy'; did you mean "
        "'quantity'? (the goal's facts: item, quantity, delivery_date, budget)"
    ) in checked.stderr, checked.stderr
    edit(goal, "{fact: quantiy, field: quantity}", "{fact: colour, field: quantity}")
    checked = simlab("validate", "goals", cwd=project)
    assert "unknown fact 'colour'; add a fact with `id: colour` to facts (the goal's" in (
        checked.stderr
    ), checked.stderr


def test_a_long_value_is_quoted_whole(project: Path) -> None:
    # it was cut inside its quotes: (got 'drip feed the facts ... until the agent...)
    said = "drip feed the facts one by one across the whole conversation until the agent asks"
    edit(project / "personas" / "calm.yaml", "disclosure: drip", f'disclosure: "{said}"')
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert f"Input should be 'drip' or 'batch' (got '{said}')" in checked.stderr, checked.stderr


def test_a_phrasing_with_a_placeholder_the_slot_has_no_value_for_is_a_problem(
    project: Path,
) -> None:
    # it was valid, and every session whose user stated the item ended in a
    # simulator_error (KeyError: 'valu')
    domain = project / "domains" / "shop" / "domain.yaml"
    edit(domain, "I'd like some {value}.", "I'd like some {valu}.")
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2
    assert (
        'domains/shop/domain.yaml:33: slots.0.say: the en phrasing "I\'d like some {valu}." '
        "holds {valu}, which it has no value for; an enum slot's phrasings take {value}, {code}"
    ) in checked.stderr, checked.stderr
    edit(domain, "I'd like some {valu}.", "I'd like some {value} }.")
    checked = simlab("validate", cwd=project)
    assert "cannot be filled in (Single '}' encountered in format string" in checked.stderr
