"""What an aspect scenario reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Aspect(StrEnum):
    """The memory aspects the suite checks, one scenario each."""

    STORAGE = "storage"
    RETRIEVAL = "retrieval"
    UPDATE = "update"
    STALENESS = "staleness"
    DELETION = "deletion"
    ISOLATION = "isolation"


@dataclass(frozen=True, slots=True)
class AspectResult:
    """The verdict of one scenario.

    Attributes:
        aspect: The aspect (``Aspect`` value) or end-to-end variant (``e2e:update``) checked.
        passed: Every check in the scenario held.
        evidence: One line per check, ``ok`` or ``FAIL``, naming the simulated time,
            what was expected and what came back.
    """

    aspect: str
    passed: bool
    evidence: list[str] = field(default_factory=list)

    @property
    def failures(self) -> list[str]:
        """The evidence lines of the checks that failed."""
        return [e for e in self.evidence if e.startswith("FAIL")]
