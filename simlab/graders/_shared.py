"""Checks shared by the sessions that reach the same verdict.

A run grades thousands of sessions that end the same few ways, and making a ``Check``
(a validated pydantic model) costs more than most of the grading that decides it.
Checks are read-only once made (records and reports only read them), so the built-in
graders hand out one object per distinct verdict; a grader that names a check otherwise
copies it (``named``), never renames the shared one.
"""

from __future__ import annotations

from functools import lru_cache

from simlab.core import Check


@lru_cache(maxsize=8192, typed=True)
def shared_check(
    name: str, passed: bool, detail: str, turn: int | None = None, score: float | None = None
) -> Check:
    """The check with these fields, one object for each distinct set of them (typed, so
    a score of 1 and of 1.0 stay apart)."""
    return Check(name=name, passed=passed, detail=detail, turn=turn, score=score)


def named(check: Check, name: str) -> Check:
    """``check`` under ``name``: itself when it has that name, else a copy (it may be shared)."""
    return check if check.name == name else check.model_copy(update={"name": name})


def own(check: Check, name: str = "") -> Check:
    """A copy of a shared ``check`` that its caller may change, under ``name``: what the
    public check functions hand out (a user's grader that builds on them names them, or
    changes them, without touching the check every session shares)."""
    return check.model_copy(update={"name": name})
