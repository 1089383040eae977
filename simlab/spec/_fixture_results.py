"""A domain tool's fixture results against its ``returns``: the fields it declares.

Graders read a result's fields by name (a goal's constraint on a returned field,
``confirm_fields``) and compare their values with what the user said. A result
lacking a declared field, holding one ``returns`` does not declare, or holding a
value of another type than declared, makes them pass or fail for no reason a run
shows; ``simlab validate`` says each such mismatch at the fixture's line.

A result is a record (``{order_id: A1, total: 4}``) or a list of records (a
search's rows), each checked alike; an empty one (``{}``, ``[]``, ``""``, null) is
a call that found nothing and has no fields to check, as is an ``error``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from simlab.spec._domain import DomainTool, ResultField, ResultType
from simlab.spec._loader import Loc
from simlab.spec._yaml import as_written


def result_problems(tool: DomainTool) -> list[tuple[Loc, str]]:
    """Each mismatch between ``tool``'s fixture results (and default) and its ``returns``.

    Returns:
        (where in the tool, message with its fix) per mismatch: a field missing,
        a field not declared, a value of the wrong type, a result that is no record.
    """
    outcomes: list[tuple[Loc, str, Any]] = [
        (("fixtures", i), f"fixture {i}", f.result)
        for i, f in enumerate(tool.fixtures)
        if f.error is None
    ]
    if tool.default is not None and tool.default.error is None:
        outcomes.append((("default",), "default", tool.default.result))
    out: list[tuple[Loc, str]] = []
    for at, name, result in outcomes:
        if _empty(result):
            continue
        who = f"{tool.name}'s {name}"
        if isinstance(result, list | tuple):
            for r, row in enumerate(result):
                out.extend(_record_problems(tool, (*at, "result", r), f"{who} (row {r})", row))
        else:
            out.extend(_record_problems(tool, (*at, "result"), who, result))
    return out


def _empty(result: Any) -> bool:
    return result is None or (isinstance(result, Mapping | list | tuple | str) and not result)


def _record_problems(tool: DomainTool, at: Loc, who: str, record: Any) -> list[tuple[Loc, str]]:
    declared = tool.returns
    names = ", ".join(declared) or "none declared"
    if not isinstance(record, Mapping):
        if not declared:
            return []  # a plain value, and no fields said: nothing to compare
        return [
            (
                at,
                f"{who}: the result is {as_written(record)!r}, not a record of the fields "
                f"{tool.name}'s `returns` declares ({names}); give a record ({{field: value}}) "
                "or a list of records",
            )
        ]
    out: list[tuple[Loc, str]] = []
    for key, value in record.items():
        field_ = declared.get(str(key))
        if field_ is None:
            out.append(
                (
                    (*at, key),
                    f"{who}: field {str(key)!r} is not in {tool.name}'s `returns` ({names}); "
                    f"add field {key} to returns, or remove it from the result",
                )
            )
            continue
        why = _type_problem(field_, value)
        if why is not None:
            out.append(((*at, key), f"{who}: field {str(key)!r} {why}"))
    for name, field_ in declared.items():
        if name not in record and not field_.optional:
            typed = f"type: {field_.type}, " if field_.type != "any" else ""
            out.append(
                (
                    at,
                    f"{who}: no field {name!r}, which {tool.name}'s `returns` declares; add "
                    f"{name} to the result, or, if only some results have it, declare it "
                    f"optional in returns (`{name}: {{{typed}optional: true}}`)",
                )
            )
    return out


def _type_problem(field_: ResultField, value: Any) -> str | None:
    """Why ``value`` is not of the declared field's type; None when it is."""
    if value is None and field_.optional:
        return None  # an optional field may hold null as well as be left out
    if _holds(field_.type, value):
        return None
    hint = " (YAML reads an unquoted date as a date: quote it)" if _is_date(value) else ""
    return (
        f"is {as_written(value)!r}, {_kind(value)}, but `returns` declares it "
        f"{_word(field_.type)}; fix the value's type{hint} (or the type declared in returns)"
    )


# a value's JSON type, by its Python type (bool before int: YAML's true is no number)
# (a result is frozen: its arrays are tuples, its records frozen mappings)
_TYPE_WORDS: tuple[tuple[type | tuple[type, ...], ResultType], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    ((list, tuple), "array"),
    (Mapping, "object"),
)


def _json_word(value: Any) -> ResultType | None:
    return next((word for kind, word in _TYPE_WORDS if isinstance(value, kind)), None)


def _holds(kind: ResultType, value: Any) -> bool:
    word = _json_word(value)
    return kind in ("any", word) or (kind == "number" and word == "integer")


def _is_date(value: Any) -> bool:
    return isinstance(value, dt.date | dt.datetime)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if _is_date(value):
        return "a date"
    word = _json_word(value)
    return f"a {type(value).__name__}" if word is None else _word(word)


def _word(kind: ResultType) -> str:
    return {"integer": "an integer", "array": "an array", "object": "an object"}.get(
        kind, f"a {kind}"
    )


def shadowed_fixtures(tool: DomainTool) -> list[tuple[Loc, str]]:
    """Each fixture no call can reach: an earlier fixture's ``when`` is a part of its
    own (the same values), so the earlier one answers every call it would match.
    Most often the earlier fixture leaves out an argument (a store, a date) and so
    answers for every value of it."""
    out: list[tuple[Loc, str]] = []
    for j, later in enumerate(tool.fixtures):
        for i, earlier in enumerate(tool.fixtures[:j]):
            if not earlier.matches(later.when):
                continue
            free = [k for k in later.when if k not in earlier.when]
            why = (
                f"its `when` leaves out {', '.join(free)}, so it answers for any value of it"
                if free
                else "its `when` is the same"
            )
            out.append(
                (
                    ("fixtures", j, "when"),
                    f"{tool.name}'s fixture {j} can never answer: fixture {i} comes first and "
                    f"matches every call this one matches ({why}); add the missing arguments "
                    f"to fixture {i}'s `when`, or put fixture {j} before it",
                )
            )
            break
    return out
