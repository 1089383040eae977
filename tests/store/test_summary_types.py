"""summary.json's model is typed all the way down: no field, however deep, is Any,
and every key a run's summary holds is a declared field (none read as an extra)."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel

from simlab.store import RunSummary


def _any_fields(model: type[BaseModel], seen: set[type[BaseModel]], path: str) -> list[str]:
    if model in seen:
        return []
    seen.add(model)
    found = []
    for name, info in model.model_fields.items():
        found += _any_in(info.annotation, seen, f"{path}.{name}")
    return found


def _any_in(annotation: object, seen: set[type[BaseModel]], path: str) -> list[str]:
    if annotation is Any or annotation is object:
        return [path]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _any_fields(annotation, seen, path)
    args = typing.get_args(annotation)
    if annotation is dict or annotation is list or annotation is tuple:
        return [f"{path} (bare {annotation.__name__})"]
    origin = typing.get_origin(annotation)
    if origin in (dict, list, tuple, set, frozenset) and not args:
        return [f"{path} (bare {origin})"]
    found = []
    for arg in args:
        if arg is Ellipsis or arg is types.NoneType:
            continue
        found += _any_in(arg, seen, path)
    return found


def test_no_field_of_the_summary_is_any() -> None:
    assert _any_fields(RunSummary, set(), "RunSummary") == []


def test_the_walk_finds_an_any_where_there_is_one() -> None:
    class Loose(BaseModel):
        rows: dict[str, dict[str, Any]]

    class Outer(BaseModel):
        inner: Loose | None = None
        figures: list[float]

    assert _any_fields(Outer, set(), "Outer") == ["Outer.inner.rows"]
