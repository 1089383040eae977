"""A fixture an earlier one always answers for is flagged at its line."""

from __future__ import annotations

import shutil
from pathlib import Path

from simlab.spec import starter_dir, validate_specs


def test_a_fixture_that_leaves_out_an_argument_shadows_the_later_ones(tmp_path: Path) -> None:
    domain = tmp_path / "shop"
    shutil.copytree(starter_dir() / "domains" / "shop", domain)
    file = domain / "domain.yaml"
    text = file.read_text()
    first = "      - {when: {item: GREEN_TEA, quantity: 2}, result: {order_id: A2001, total: 24}}\n"
    assert first in text
    # a green-tea order of any quantity: it answers before the quantity-specific rows
    broad = "      - {when: {item: GREEN_TEA}, result: {order_id: A2000, total: 12}}\n"
    file.write_text(text.replace(first, broad + first))
    problems = validate_specs([domain], "domain").problems
    shadowed = [p for p in problems if "can never answer" in p.message]
    assert [p.field for p in shadowed] == [
        "tools.1.fixtures.1.when",
        "tools.1.fixtures.2.when",
    ]
    line = text.splitlines().index(first.rstrip("\n")) + 2  # 1-based, after the new row
    assert shadowed[0].line == line and shadowed[0].file == str(file)
    assert shadowed[0].message.startswith(
        "place_order's fixture 1 can never answer: fixture 0 comes first and matches every "
        "call this one matches (its `when` leaves out quantity, so it answers for any value"
    )
    # the starter domain itself has none
    assert not [p for p in validate_specs([starter_dir() / "domains" / "shop"]).problems]
