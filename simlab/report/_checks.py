"""Pass rate of each check across a run's graded sessions (built-in and users' graders)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from simlab.stats import wilson_interval
from simlab.store import SessionRecord

_MAX_EXAMPLES = 3


def check_rows(records: Iterable[SessionRecord]) -> dict[str, dict[str, Any]]:
    """Check name to its pass count, n (graded sessions that have its verdict), Wilson
    interval and mean credit, in the order checks first appear. A check whose grader
    raised has no verdict: it is counted in ``grader_failures`` (present when any),
    not in ``n``. ``not_counted``: the sessions whose grading left the check out of
    both verdict and score (present when any did)."""
    seen: dict[str, list[tuple[bool, float]]] = {}
    failures: dict[str, int] = {}
    uncounted: dict[str, int] = {}
    for r in records:
        if r.status != "ok":
            continue
        for name, check in r.checks.items():
            outcomes = seen.setdefault(name, [])
            if check.error is not None:
                failures[name] = failures.get(name, 0) + 1
            else:
                outcomes.append((check.passed, check.credit))
        for name in r.uncounted:
            uncounted[name] = uncounted.get(name, 0) + 1
    rows: dict[str, dict[str, Any]] = {}
    for name, outcomes in seen.items():
        n, passes = len(outcomes), sum(1 for passed, _ in outcomes if passed)
        lo, hi = wilson_interval(passes, n)
        rows[name] = {
            "n": n,
            "passes": passes,
            "pass_rate": passes / n if n else None,
            "pass_ci": [lo, hi],
            "mean_credit": round(sum(c for _, c in outcomes) / n, 4) if n else None,
        }
        if name in failures:  # only then: summaries of runs without one read as before
            rows[name]["grader_failures"] = failures[name]
        if name in uncounted:  # the same
            rows[name]["not_counted"] = uncounted[name]
    return rows


def grader_failures_section(records: Iterable[SessionRecord]) -> dict[str, Any]:
    """The graded sessions' checks whose grader raised instead of judging: how many,
    in how many sessions, by check, and a few examples (session, check, exception's
    first line); their tracebacks stay in sessions.jsonl. ``{}`` when none did."""
    by_check: dict[str, int] = {}
    sessions = 0
    examples: list[dict[str, str]] = []
    for r in sorted((r for r in records if r.status == "ok"), key=lambda r: r.key.id):
        failed = [(name, c.error) for name, c in r.checks.items() if c.error is not None]
        sessions += bool(failed)
        for name, error in failed:
            by_check[name] = by_check.get(name, 0) + 1
            if len(examples) < _MAX_EXAMPLES:
                examples.append({"session": r.key.id, "check": name, "error": error.headline})
    if not sessions:
        return {}
    return {
        "checks": sum(by_check.values()),
        "sessions": sessions,
        "by_check": dict(sorted(by_check.items(), key=lambda kv: (-kv[1], kv[0]))),
        "examples": examples,
    }
