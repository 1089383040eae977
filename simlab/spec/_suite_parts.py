"""A suite with one of its parts (target, simulator) replaced from a short form, and the
one plain sentence said when the form is wrong: ``simlab run --target``, ``simlab.run``
and ``simlab replay --target`` all say it the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from simlab.spec._models import TARGET_FORMS, Suite

PART_FORMS = {"target": TARGET_FORMS, "simulator": "scripted or llm"}
"""What each replaceable part may be, as a user writes it."""


class PartSpecError(ValueError):
    """A part's value is none of the forms it takes; the message says what is wrong
    with it (pydantic's problems, one line, no docs URL) and the forms it takes."""


def suite_with_part(fields: Mapping[str, Any], part: str, value: Any) -> Suite:
    """The suite of ``fields`` (a suite's fields, as ``Suite.model_dump`` gives them)
    with ``part`` set to ``value``.

    Raises:
        PartSpecError: ``value`` is no valid value of ``part``, each problem said.
    """
    try:
        return Suite.model_validate({**fields, part: value})
    except ValidationError as e:
        # pydantic's own text names union branches and a docs URL: say it plainly
        problems = "; ".join(
            f"{err['loc'][-1] if err['loc'] else part}: {err['msg']}" for err in e.errors()
        )
        forms = PART_FORMS.get(part)
        hint = f"; a {part} is {forms}" if forms else ""
        raise PartSpecError(f"{problems}{hint}") from None
