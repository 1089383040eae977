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
"""Failed sessions a report lists, spread over personas and goals; the rest are counted."""

_MAX_DETAIL_CHARS = 300


def failed_indices(records: Sequence[SessionRecord], limit: int = MAX_FAILED_LISTED) -> list[int]:
    """The positions in ``records`` of up to ``limit`` failed graded sessions, in key order.

    Spread over the run: each persona and goal's first failure (by key) in turn, then
    each one's second, and so on, so a run whose first persona fails often does not
    list that persona alone.
    """

    def key(i: int) -> tuple[str, str, str, int, tuple[str, ...]]:
        k = records[i].key
        return (k.persona, k.goal, str(k.mode), k.rep, tuple(k.perturbations))

    failed = sorted(
        (i for i, r in enumerate(records) if r.status == "ok" and not r.passed), key=key
    )
    groups: dict[tuple[str, str], list[int]] = {}
    for i in failed:
        groups.setdefault((records[i].key.persona, records[i].key.goal), []).append(i)
    picked: list[int] = []
    depth = 0
    while len(picked) < min(limit, len(failed)):
        picked += [g[depth] for g in groups.values() if depth < len(g)][: limit - len(picked)]
        depth += 1
    return sorted(picked, key=key)


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
