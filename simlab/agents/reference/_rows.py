"""Choosing a looked-up row: a lookup's tests (``where``) and order (``order_by``).

A test or a key reads a *source*: a slot's value, or ``TOOL.FIELD`` of the record an
earlier lookup in the request returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from simlab.spec import FactValue, OrderKey, RowTest, ToolLookup

Records = Mapping[str, Mapping[str, Any]]
"""The records earlier lookups of one request returned, by tool name."""


def source_value(source: str, slots: Mapping[str, FactValue], records: Records) -> Any:
    """A slot's value or ``TOOL.FIELD`` of an earlier lookup's record; None: unknown."""
    if "." not in source:
        return slots.get(source)
    tool, field = source.split(".", 1)
    record = records.get(tool)
    return record.get(field) if record is not None else None


def rows_of(result: Any) -> list[Mapping[str, Any]]:
    """A lookup's result as rows: each mapping of a list, or the one mapping."""
    if isinstance(result, Mapping):
        return [result]
    if isinstance(result, list | tuple):
        return [r for r in result if isinstance(r, Mapping)]
    return []


def choose_row(
    lookup: ToolLookup,
    rows: Sequence[Mapping[str, Any]],
    slots: Mapping[str, FactValue],
    records: Records,
) -> Mapping[str, Any] | None:
    """The first row passing ``lookup``'s tests, by its order keys (None: none passes)."""
    fitting = [r for r in rows if _fits(r, lookup.where, slots, records)]
    if not fitting:
        return None
    keys = [_order_key(k, slots, records) for k in lookup.order_by]
    if not keys:
        return fitting[0]
    return min(fitting, key=lambda row: tuple(number(key(row)) for key in keys))


def _fits(
    row: Mapping[str, Any],
    tests: Sequence[RowTest],
    slots: Mapping[str, FactValue],
    records: Records,
) -> bool:
    for test in tests:
        sources = [test.value] if isinstance(test.value, str) else test.value
        values = [v for s in sources if (v := source_value(s, slots, records)) is not None]
        if not values:
            continue  # nothing said about it: any row passes
        wanted = values[0] if len(values) == 1 else sum(number(v) for v in values)
        if not compare(row.get(test.field), test.op, wanted):
            return False
    return True


def _order_key(
    key: OrderKey, slots: Mapping[str, FactValue], records: Records
) -> Callable[[Mapping[str, Any]], Any]:
    """A row's field, or a weighted sum of its fields (weights read from sources)."""
    if isinstance(key, str):
        return lambda row: row.get(key)
    weights = {f: number(source_value(s, slots, records) or 0) for f, s in key.items()}
    return lambda row: sum(number(row.get(f)) * w for f, w in weights.items())


def number(value: Any) -> Any:
    """A number as a float (``"12"`` too); anything else as it is (times compare as text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return value
    return value


def compare(got: Any, op: str, wanted: Any) -> bool:
    """``got op wanted``: numbers as numbers, anything else as text."""
    a, b = number(got), number(wanted)
    if not (isinstance(a, float) and isinstance(b, float)):
        a, b = str(got), str(wanted)
    if op == "eq":
        return bool(a == b)
    if op == "ne":
        return bool(a != b)
    try:
        return bool({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])
    except TypeError:
        return False
