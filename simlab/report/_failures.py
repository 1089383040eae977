"""The run's failed sessions, listed by key with what each failed check said.

The figures say how many sessions failed; this list says which, and why, so a
reader of report.md or the terminal can go from a rate to a conversation without
opening sessions.jsonl. The transcripts stay in report.html and sessions.jsonl.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simlab.store import SessionRecord

MAX_FAILED_LISTED = 10
"""Failed sessions a report lists, the first by key; the rest are counted."""

_MAX_DETAIL_CHARS = 300


def failed_indices(records: Sequence[SessionRecord], limit: int = MAX_FAILED_LISTED) -> list[int]:
    """The positions in ``records`` of the first ``limit`` failed graded sessions, by key."""
    failed = [i for i, r in enumerate(records) if r.status == "ok" and not r.passed]

    def key(i: int) -> tuple[str, str, str, int, tuple[str, ...]]:
        k = records[i].key
        return (k.persona, k.goal, str(k.mode), k.rep, tuple(k.perturbations))

    return sorted(failed, key=key)[:limit]


def failures_section(shown: Sequence[SessionRecord], n_failed: int) -> dict[str, Any]:
    """The summary's ``failed_sessions``: how many failed, and the listed ones' checks.

    Args:
        shown: The listed failed sessions, full records (their checks' detail and turn).
        n_failed: How many graded sessions of the run failed.
    """
    listed = []
    for r in shown:
        checks = [
            {"check": name, "turn": c.turn, "detail": (c.detail or "")[:_MAX_DETAIL_CHARS]}
            for name, c in r.checks.items()
            if not c.passed
        ]
        listed.append(
            {
                "session": r.key.id,
                "score": r.score,
                "stop_reason": r.stop_reason.value,
                "checks": checks,
            }
        )
    return {"n": n_failed, "shown": listed}
