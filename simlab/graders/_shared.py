"""Making the built-in graders' checks, and naming copies of them."""

from __future__ import annotations

from simlab.core import Check


def new_check(
    name: str, passed: bool, detail: str, turn: int | None = None, score: float | None = None
) -> Check:
    """The check with these fields."""
    return Check(name=name, passed=passed, detail=detail, turn=turn, score=score)


def named(check: Check, name: str) -> Check:
    """``check`` under ``name``: itself when it has that name, else a copy."""
    return check if check.name == name else check.model_copy(update={"name": name})


def own(check: Check, name: str = "") -> Check:
    """A copy of ``check`` under ``name``: what the public check functions hand out."""
    return check.model_copy(update={"name": name})
