"""``simlab validate`` holds a tool's fixture results to the tool's ``returns``.

A fixture result lacking a declared field, holding one ``returns`` does not
declare, or holding a value of another type, validated silently; a goal's
constraint or ``confirm_fields`` check on that field then passed or failed at run
time for no reason the run showed. Each run here is the CLI on a ``simlab init``
project whose domain was edited as a user would.
"""

from pathlib import Path

import pytest
from run_simlab import simlab

DOMAIN = Path("domains") / "shop" / "domain.yaml"

ORDER = "{when: {item: GREEN_TEA, quantity: 3}, result: {order_id: A2002, total: 36}}"
"""The starter's second ``place_order`` fixture (tool 1, fixture 1)."""


def edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (once in the file) by ``new``; the 1-based line it is on."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1


def problems_of(project: Path) -> list[str]:
    """``simlab validate``'s problems (exit 2, no traceback), a line each."""
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 2, checked.stderr
    assert "Traceback" not in checked.stderr, checked.stderr
    return [ln.strip() for ln in checked.stderr.splitlines() if ln.startswith("  ")]


@pytest.mark.parametrize(
    ("result", "field", "says"),
    [
        (
            "{order_id: A2002}",
            "tools.1.fixtures.1.result",
            "place_order's fixture 1: no field 'total', which place_order's `returns` "
            "declares; add total to the result",
        ),
        (
            "{order_id: A2002, total: 36, currency: USD}",
            "tools.1.fixtures.1.result.currency",
            "place_order's fixture 1: field 'currency' is not in place_order's `returns` "
            "(order_id, total); add field currency to returns",
        ),
        (
            '{order_id: A2002, total: "36"}',
            "tools.1.fixtures.1.result.total",
            "place_order's fixture 1: field 'total' is '36', a string, but `returns` declares "
            "it a number; fix the value's type",
        ),
    ],
    ids=["missing", "undeclared", "wrong-type"],
)
def test_a_fixture_result_that_misses_its_returns_is_said_at_the_fixture(
    project: Path, result: str, field: str, says: str
) -> None:
    line = edit(project / DOMAIN, ORDER, ORDER.replace("{order_id: A2002, total: 36}", result))
    (problem,) = problems_of(project)
    assert problem.startswith(f"{DOMAIN}:{line}: {field}: {says}"), problem


def test_each_mismatch_is_one_problem(project: Path) -> None:
    line = edit(
        project / DOMAIN,
        ORDER,
        ORDER.replace("{order_id: A2002, total: 36}", '{order: A2002, total: "36"}'),
    )
    problems = problems_of(project)
    assert len(problems) == 3, problems
    assert all(p.startswith(f"{DOMAIN}:{line}: tools.1.fixtures.1.result") for p in problems)
    said = " | ".join(problems)
    assert "field 'order' is not in" in said  # undeclared
    assert "no field 'order_id'" in said  # missing
    assert "field 'total' is '36', a string" in said  # wrong type


def test_a_list_of_records_is_checked_row_by_row_at_the_rows_line(project: Path) -> None:
    # a search's result is a list of rows: each is a record of the declared fields
    edit(
        project / DOMAIN,
        "    returns: {order_id: string, item: string, status: string}\n    fixtures:\n"
        "      - {when: {order_id: A1002}, result: {order_id: A1002, item: TEA_MUG, "
        "status: delivered}}\n",
        "    returns: {order_id: string, item: string, status: string}\n    fixtures:\n"
        "      - when: {order_id: A1002}\n"
        "        result:\n"
        "          - {order_id: A1002, item: TEA_MUG, status: delivered}\n"
        "          - {order_id: A1003, item: TEA_MUG, status: 3}\n",
    )
    lines = (project / DOMAIN).read_text(encoding="utf-8").splitlines()
    row = next(i for i, text in enumerate(lines, 1) if "A1003" in text)
    (problem,) = problems_of(project)
    assert problem.startswith(
        f"{DOMAIN}:{row}: tools.2.fixtures.0.result.1.status: get_order's fixture 0 (row 1): "
        "field 'status' is 3, an integer, but `returns` declares it a string"
    ), problem


def test_a_correct_domain_with_every_form_of_returns_validates(project: Path) -> None:
    # names only; typed fields; an optional field left out or null; a list of rows;
    # an empty result and an error: nothing to say
    edit(
        project / DOMAIN,
        "    returns: {item: string, in_stock: boolean, unit_price: number}   # each result's "
        "fields\n",
        "    returns: [item, in_stock, unit_price]\n",
    )
    edit(
        project / DOMAIN,
        "    returns: {order_id: string, item: string, status: string}\n    fixtures:\n"
        "      - {when: {order_id: A1002}, result: {order_id: A1002, item: TEA_MUG, "
        "status: delivered}}\n",
        "    returns:\n"
        "      order_id: string\n"
        "      item: {type: string, description: what was ordered}\n"
        "      status: string\n"
        "      note: {type: string, optional: true}\n"
        "    fixtures:\n"
        "      - when: {order_id: A1002}\n"
        "        result: [{order_id: A1002, item: TEA_MUG, status: delivered, note: gift}]\n"
        "      - {when: {order_id: A1003}, result: {order_id: A1003, item: TEA_MUG, "
        "status: sent, note: null}}\n"
        "      - {when: {order_id: A1004}, result: {order_id: A1004, item: TEA, status: sent}}\n"
        "      - {when: {order_id: A1005}, result: []}\n"
        "      - {when: {order_id: A1006}, error: lost in transit}\n",
    )
    checked = simlab("validate", cwd=project)
    assert checked.returncode == 0, checked.stderr
    assert "6 files valid" in checked.stderr, checked.stderr
