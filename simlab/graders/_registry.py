"""Graders a suite lists, by built-in name or ``module:attr``, made into objects."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.agents import TargetLoadError, import_ref
from simlab.contracts import Grader, GraderResult, GradingContext
from simlab.graders._builtin import BUILTIN
from simlab.spec import BUILTIN_GRADERS, Problem, SpecError


@dataclass(frozen=True)
class FunctionGrader:
    """A plain function ``grade(ctx) -> Check | [Check] | None`` as a grader."""

    name: str
    fn: Callable[[GradingContext], GraderResult]

    def grade(self, ctx: GradingContext) -> GraderResult:
        return self.fn(ctx)


def as_grader(obj: Any, name: str | None = None) -> Grader:
    """A grader from a ``Grader`` object, a class (instantiated with no arguments)
    or a function of the grading context (named ``name``, else its own name).

    Raises:
        TypeError: ``obj`` is none of these.
    """
    if inspect.isclass(obj):
        obj = obj()
    if callable(getattr(obj, "grade", None)) and isinstance(getattr(obj, "name", None), str):
        grader: Grader = obj
        return grader
    if callable(obj):
        return FunctionGrader(name or str(getattr(obj, "__name__", "grader")), obj)
    raise TypeError(
        f"{obj!r} is not a grader: give an object with `name` and `grade(ctx)`, a class "
        "of them, or a function grade(ctx) -> Check"
    )


def resolve_graders(names: Sequence[str] | None, search: Sequence[Path] = ()) -> list[Grader]:
    """The graders ``names`` lists (None: the built-ins), in that order.

    Args:
        names: Built-in names, or ``module:attr`` for a user's grader.
        search: Folders a user's module is looked for in first (the suite's).

    Raises:
        SpecError: a name is neither a built-in nor an importable grader.
    """
    found: list[Grader] = []
    problems: list[Problem] = []
    for name in BUILTIN_GRADERS if names is None else names:
        if name in BUILTIN:
            found.append(BUILTIN[name])
            continue
        if ":" not in name:
            valid = ", ".join(BUILTIN)
            problems.append(
                Problem("suite", None, "grading.graders", f"unknown grader {name!r}; built-in: "
                        f"{valid}, or a grader of yours as 'module:attr'")
            )  # fmt: skip
            continue
        try:
            found.append(as_grader(import_ref(name, search), name.rpartition(".")[2]))
        except (TargetLoadError, TypeError) as e:
            problems.append(Problem("suite", None, "grading.graders", f"{name}: {e}"))
    if problems:
        raise SpecError(problems)
    return found
