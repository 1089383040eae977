"""A judge rubric's criteria: the ids the judge answers one by one, and the verdict rule.

A rubric file names its criteria in a numbered list, one per line, each
opening with its id in backticks::

    1. `resolved`: The user's request is resolved ...
    2. `constraints_kept` (may not apply: no final action was taken): ...

The judge answers each id with ``true`` (held) or ``false`` (broken); a
criterion whose line says ``(may not apply`` may also be answered ``null``
(it did not apply to this conversation). The session passes exactly when
every criterion that applies holds: no ``false``. A rubric that names no
criteria (a user's own, in the older form) is graded on the judge's one
``verdict`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from simlab.spec import Problem, SpecError

_LINE = re.compile(r"^\s*\d+\.\s+`(?P<id>[a-z][a-z0-9_]*)`(?P<rest>.*)$", re.MULTILINE)
_MAY_NOT_APPLY = "(may not apply"


@dataclass(frozen=True, slots=True)
class Criterion:
    """One criterion of a rubric.

    Attributes:
        id: Its stable id (``no_repeat``): the key of the judge's answer and of
            the record's ``criteria``.
        may_not_apply: Whether the judge may answer null (did not apply).
    """

    id: str
    may_not_apply: bool = False


def rubric_criteria(rubric: str, file: str = "rubric") -> tuple[Criterion, ...]:
    """The criteria a rubric names, in its order; empty for a rubric without any.

    Args:
        rubric: The rubric's text.
        file: Its path, for the error message.

    Raises:
        SpecError: An id is named twice (the problem names the file and line).
    """
    found: list[Criterion] = []
    for match in _LINE.finditer(rubric):
        cid = match.group("id")
        if any(c.id == cid for c in found):
            line = rubric.count("\n", 0, match.start("id")) + 1
            message = f"`{cid}` is named twice: give each criterion its own id"
            raise SpecError([Problem(file, line, "criteria", message)])
        found.append(Criterion(cid, _MAY_NOT_APPLY in match.group("rest")))
    return tuple(found)


def criteria_verdict(criteria: Mapping[str, bool | None]) -> bool:
    """The verdict rule: pass exactly when every criterion that applies holds (none is false)."""
    return all(value is not False for value in criteria.values())


def broken_criteria(criteria: Mapping[str, bool | None]) -> list[str]:
    """The ids of the criteria that do not hold, in order."""
    return [cid for cid, value in criteria.items() if value is False]
