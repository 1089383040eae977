"""Pass rate of each check across a run's graded sessions (built-in and users' graders)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from simlab.stats import wilson_interval
from simlab.store import SessionRecord


def check_rows(records: Iterable[SessionRecord]) -> dict[str, dict[str, Any]]:
    """Check name to its pass count, n (graded sessions that have it), Wilson
    interval and mean credit, in the order checks first appear; ``not_counted``: the
    sessions whose grading left it out of both verdict and score (only when some did)."""
    seen: dict[str, list[tuple[bool, float]]] = {}
    uncounted: dict[str, int] = {}
    for r in records:
        if r.status != "ok":
            continue
        for name, check in r.checks.items():
            seen.setdefault(name, []).append((check.passed, check.credit))
        for name in r.uncounted:
            uncounted[name] = uncounted.get(name, 0) + 1
    rows: dict[str, dict[str, Any]] = {}
    for name, outcomes in seen.items():
        n, passes = len(outcomes), sum(1 for passed, _ in outcomes if passed)
        lo, hi = wilson_interval(passes, n)
        rows[name] = {
            "n": n,
            "passes": passes,
            "pass_rate": passes / n,
            "pass_ci": [lo, hi],
            "mean_credit": round(sum(c for _, c in outcomes) / n, 4),
        }
        if name in uncounted:
            rows[name]["not_counted"] = uncounted[name]
    return rows
