"""Which personas and goals a suite's patterns pick from a library."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from simlab.spec._loader import Problem, SpecError


def select(patterns: Iterable[str], available: Mapping[str, object], what: str) -> list[str]:
    """Ids matching ``patterns`` (exact ids or globs like ``*_vi``), in sorted order."""
    chosen: set[str] = set()
    problems = []
    for pattern in patterns:
        hits = fnmatch.filter(available, pattern)
        if not hits:
            valid = ", ".join(sorted(available)) or "(none found)"
            problems.append(
                Problem("suite", None, what, f"{pattern!r} matches no {what[:-1]}; valid: {valid}")
            )
        chosen.update(hits)
    if problems:
        raise SpecError(problems)
    return sorted(chosen)
