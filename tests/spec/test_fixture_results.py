"""A domain tool's fixture results against its ``returns``, through the Python API.

``load_domain`` (which ``simlab validate``, ``simlab run`` and ``simlab.run`` all
read domains with) raises every mismatch as a ``Problem`` at its file and line.
The CLI's own runs are in ``tests/cli/test_validate_fixture_results.py``.
"""

from pathlib import Path

import pytest

import simlab
from simlab.spec import SpecError, load_domain, write_starter

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "examples" / "starter"

TOOLS = """tools:
  - name: order
    description: Orders an item.
    effect: write
    parameters: {type: object, properties: {item: {type: string}}, required: [item]}
    returns: RETURNS
    fixtures:
FIXTURES
"""


def domain_with(tmp_path: Path, returns: str, fixtures: str) -> Path:
    """The starter's shop domain with one more file: a tool ``order`` so declared."""
    folder = tmp_path / "shop"
    folder.mkdir()
    starter = STARTER / "domains" / "shop" / "domain.yaml"
    (folder / "domain.yaml").write_text(starter.read_text(encoding="utf-8"), encoding="utf-8")
    text = TOOLS.replace("RETURNS", returns).replace("FIXTURES", fixtures)
    (folder / "order.yaml").write_text(text, encoding="utf-8")
    return folder


def problems(folder: Path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_domain(folder)
    return [str(p) for p in caught.value.problems]


def test_the_shipped_domains_and_the_starter_hold_to_their_returns() -> None:
    for folder in (ROOT / "domains" / "travel", ROOT / "domains" / "bank", STARTER / "domains"):
        load_domain(folder / "shop" if folder.name == "domains" else folder)


def test_a_names_only_returns_checks_fields_not_types(tmp_path: Path) -> None:
    folder = domain_with(
        tmp_path,
        "[order_id, total]",
        '      - {when: {item: tea}, result: {order_id: A1, total: "4"}}\n'
        "      - {when: {item: cake}, result: {order_id: A2, total: 4, note: fresh}}\n",
    )
    (said,) = problems(folder)
    assert said.startswith(f"{folder / 'order.yaml'}:9: tools.0.fixtures.1.result.note: ")
    assert "add field note to returns" in said


def test_the_default_result_is_checked_and_a_plain_value_is_no_record(tmp_path: Path) -> None:
    folder = domain_with(
        tmp_path,
        "{order_id: string, total: number}",
        "      - {when: {item: tea}, result: ok}\n    default: {result: {order_id: A0}}\n",
    )
    first, second = problems(folder)
    assert first.startswith(f"{folder / 'order.yaml'}:8: tools.0.fixtures.0.result: ")
    assert "the result is 'ok', not a record of the fields order's `returns` declares" in first
    assert second.startswith(f"{folder / 'order.yaml'}:9: tools.0.default.result: ")
    assert "order's default: no field 'total'" in second


def test_an_unquoted_date_is_said_to_be_a_date(tmp_path: Path) -> None:
    folder = domain_with(
        tmp_path,
        "{order_id: string, ships: string}",
        "      - {when: {item: tea}, result: {order_id: A1, ships: 2027-01-15}}\n",
    )
    (said,) = problems(folder)
    assert "field 'ships' is datetime.date(2027, 1, 15), a date, but `returns` declares" in said
    assert "quote it" in said


def test_a_required_field_may_not_be_null_an_optional_one_may(tmp_path: Path) -> None:
    folder = domain_with(
        tmp_path,
        "{order_id: string, note: {type: string, optional: true}}",
        "      - {when: {item: tea}, result: {order_id: null, note: null}}\n",
    )
    (said,) = problems(folder)
    assert "field 'order_id' is None, null, but `returns` declares it a string" in said


@pytest.mark.parametrize(
    ("returns", "says"),
    [
        ("[order_id, order_id]", "fields repeat: ['order_id']; list each once"),
        ("{order_id: text}", "'string', 'integer', 'number', 'boolean', 'array', 'object'"),
        ("[{order_id: string}]", "declare each with its type"),
    ],
)
def test_a_mistaken_returns_is_said_with_its_fix(tmp_path: Path, returns: str, says: str) -> None:
    folder = domain_with(tmp_path, returns, "      - {when: {item: tea}, result: {}}\n")
    said = problems(folder)
    assert len(said) == 1 and says in said[0], said
    assert said[0].startswith(f"{folder / 'order.yaml'}:6: tools.0.returns"), said


def test_simlab_run_refuses_a_mismatch_before_any_session(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_starter(project)
    domain = project / "domains" / "shop" / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    old = "result: {order_id: A2002, total: 36}"
    domain.write_text(text.replace(old, "result: {order_id: A2002}"), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        simlab.run(project / "simlab.yaml", out=tmp_path / "results")
    (problem,) = caught.value.problems
    assert problem.field == "tools.1.fixtures.1.result"
    assert "no field 'total'" in problem.message
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())
