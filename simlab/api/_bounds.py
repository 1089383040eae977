"""Assertions on a run's figures by their interval's lower bound, for users' own tests.

A test that asserts a point estimate passes or fails by luck; one that asserts
the lower bound of a 95% interval fails only when the data say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from simlab.api._result import RunResult
from simlab.store import GroupStats, Interval

Grouping = Literal["overall", "persona", "goal", "mode", "bucket"]
Metric = Literal["pass_rate", "aptitude", "mean_score"]


def assert_lower_bound(
    result: RunResult,
    at_least: float,
    *,
    metric: Metric = "pass_rate",
    by: Grouping = "persona",
) -> None:
    """Fail unless every group's ``metric`` has its 95% lower bound at or above ``at_least``.

    Args:
        result: A finished run (``simlab.run`` or the ``simlab_run`` fixture).
        at_least: The bound: a rate in [0, 1] for ``pass_rate``, points (0-100)
            for ``aptitude`` and ``mean_score``.
        metric: Which figure.
        by: ``overall``, or every ``persona``, ``goal``, ``mode`` or ``bucket``.

    Raises:
        AssertionError: naming each group below the bound, its figure, interval
            and n, and the run directory to read the report in.
    """
    __tracebackhide__ = True  # pytest shows the message, not this function's source
    groups = _groups(result, by)
    failing = []
    for name, row in groups.items():
        value, ci = _figure(row, metric)
        n = row.n
        if value is None or ci is None or n == 0:
            failing.append(f"  {by} {name}: no graded session (n=0)")
            continue
        low = ci[0]
        if low < at_least:
            failing.append(
                f"  {by} {name}: {metric} {_fmt(metric, value)} "
                f"[{_fmt(metric, ci[0])}, {_fmt(metric, ci[1])}] (n={n}): lower bound "
                f"{_fmt(metric, low)} < required {_fmt(metric, at_least)}"
            )
    if failing:
        raise AssertionError(
            f"{len(failing)} of {len(groups)} {by} group(s) below the bound on {metric}'s "
            f"95% lower bound:\n" + "\n".join(failing) + f"\nreport: {result.paths.report_md}"
        )


def _groups(result: RunResult, by: Grouping) -> Mapping[str, GroupStats]:
    summary = result.summary
    if by == "overall":
        return {"overall": summary.overall}
    if by == "persona":
        return summary.by_persona
    if by == "goal":
        return summary.by_goal
    if by == "mode":
        return summary.by_mode
    return summary.by_bucket


def _figure(row: GroupStats, metric: Metric) -> tuple[float | None, Interval | None]:
    if metric == "pass_rate":
        return row.pass_rate, row.pass_ci
    value, ci, _ = row.figure(metric)
    return value, ci


def _fmt(metric: str, value: float) -> str:
    return f"{value:.1%}" if metric == "pass_rate" else f"{value:.1f}"
