"""``summary.json``'s ``trajectory`` and ``efficiency`` sections, from the records alone.

* trajectory: LCS precision and recall of the agent's tool calls against the goal's
  expected trajectory (``SessionRecord.tool_use``), averaged over the graded
  sessions of the run, of each persona and of each goal, each mean with its n and
  a bootstrap interval (sessions resampled). A session is *wasteful* when its
  precision is under ``LOW`` while its recall is not (it called what it needed and
  more), *gave up early* when its recall is under ``LOW`` while its precision is
  not (what it called was right, but it stopped short); a group is labelled by its
  means the same way. Goals that expect no call (a greeting, an out-of-scope
  question) count: calling nothing there is precision 1 and recall 1, and every
  call made is waste (precision 0). A repeat of the final action the user asked for,
  by changing their request after it, is right, not waste (``ToolUse.repeats``,
  ``simlab.graders.redo_windows``); ``n_redone`` counts the sessions with one.
* efficiency: redundant calls and iterations (tool calls) per session, latency
  p50/p95 per session and per agent turn (order-statistic intervals), and tokens
  and cost per passing session (a ratio of sums, bootstrap interval).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from simlab.report._rows import Row, Settings, group_seed, interval, rnd
from simlab.stats import (
    bootstrap_means_ci,
    bootstrap_ratio_ci,
    quantile,
    quantile_ci,
    wilson_interval,
)
from simlab.store import SessionRecord, ToolUse

LOW = 0.8
"""Precision (recall) under this is low: the session is wasteful (gave up early)."""

Label = str
WASTEFUL = "wasteful"
GAVE_UP_EARLY = "gave up early"
OFF_TRACK = "off track"


def label(precision: float, recall: float, low: float = LOW) -> Label | None:
    """``wasteful``, ``gave up early``, ``off track`` (both low) or None (both fine)."""
    if precision < low and recall < low:
        return OFF_TRACK
    if precision < low:
        return WASTEFUL
    if recall < low:
        return GAVE_UP_EARLY
    return None


def _used(records: Sequence[SessionRecord]) -> list[ToolUse]:
    return [r.tool_use for r in records if r.status == "ok" and r.tool_use is not None]


def _share(count: int, n: int, level: float) -> Row:
    return {
        "count": count,
        "rate": rnd(count / n) if n else None,
        "ci": interval(wilson_interval(count, n, level)) if n else None,
    }


def trajectory_row(uses: Sequence[ToolUse], settings: Settings, *group: str) -> Row:
    """One group's mean precision and recall with intervals, and its labels' shares."""
    n = len(uses)
    row: Row = {
        "n": n,
        "n_no_calls_expected": sum(1 for u in uses if u.expected == 0),
        "n_redone": sum(1 for u in uses if u.repeats),
    }
    if not n:
        row.update(precision=None, precision_ci=None, recall=None, recall_ci=None, label=None)
        return row
    values = np.array([[u.precision, u.recall] for u in uses])
    means = values.mean(axis=0)
    p_ci, r_ci = bootstrap_means_ci(
        values, group_seed(settings.seed, "trajectory", *group), settings.n_resamples,
        settings.level,
    )  # fmt: skip
    labels = [label(u.precision, u.recall) for u in uses]
    row.update(
        precision=rnd(means[0]),
        precision_ci=interval(p_ci),
        recall=rnd(means[1]),
        recall_ci=interval(r_ci),
        label=label(float(means[0]), float(means[1])),
        wasteful=_share(labels.count(WASTEFUL), n, settings.level),
        gave_up_early=_share(labels.count(GAVE_UP_EARLY), n, settings.level),
        off_track=_share(labels.count(OFF_TRACK), n, settings.level),
    )
    return row


def _grouped(
    records: Sequence[SessionRecord],
    key: Callable[[SessionRecord], str],
    settings: Settings,
    dimension: str,
) -> dict[str, Row]:
    groups: dict[str, list[SessionRecord]] = {}
    for r in records:
        groups.setdefault(key(r), []).append(r)
    return {
        name: trajectory_row(_used(groups[name]), settings, dimension, name)
        for name in sorted(groups)
    }


def trajectory_section(records: Sequence[SessionRecord], settings: Settings) -> Row:
    """The ``trajectory`` section: overall, by persona, by goal (see the module docstring)."""
    return {
        "low": LOW,
        "estimand": "mean over graded sessions of LCS precision ((LCS + calls redoing the "
        "final action the user asked for by a later change) / calls made) and recall "
        "(LCS / calls expected); 1 where nothing was made (expected)",
        "overall": trajectory_row(_used(records), settings, "overall"),
        "by_persona": _grouped(records, lambda r: r.key.persona, settings, "persona"),
        "by_goal": _grouped(records, lambda r: r.key.goal, settings, "goal"),
    }


def _mean_row(values: Sequence[float], settings: Settings, *group: str) -> Row:
    if not values:
        return {"n": 0, "mean": None, "ci": None}
    ci = bootstrap_means_ci(
        values, group_seed(settings.seed, *group), settings.n_resamples, settings.level
    )[0]
    return {"n": len(values), "mean": rnd(float(np.mean(values))), "ci": interval(ci)}


def _latency_row(values: Sequence[float], level: float) -> Row:
    row: Row = {"n": len(values)}
    for name, q in (("p50", 0.5), ("p95", 0.95)):
        row[name] = rnd(quantile(values, q)) if values else None
        row[f"{name}_ci"] = interval(quantile_ci(values, q, level)) if values else None
    return row


def _per_pass(
    records: Sequence[SessionRecord], value: Callable[[SessionRecord], float], settings: Settings,
    name: str,
) -> Row:  # fmt: skip
    passes = [1.0 if r.passed else 0.0 for r in records]
    amounts = [value(r) for r in records]
    n_passed = int(sum(passes))
    ci = bootstrap_ratio_ci(
        amounts, passes, group_seed(settings.seed, "per-pass", name), settings.n_resamples,
        settings.level,
    )  # fmt: skip
    return {
        "n": len(records),
        "passes": n_passed,
        "total": rnd(sum(amounts)),
        "per_pass": rnd(sum(amounts) / n_passed) if n_passed else None,
        # an upper bound past every finite draw is "unbounded" (null), never Infinity
        "ci": [rnd(ci[0]), None if math.isinf(ci[1]) else rnd(ci[1])] if n_passed and ci else None,
    }


def efficiency_section(records: Sequence[SessionRecord], settings: Settings) -> Row:
    """The ``efficiency`` section: redundant calls, iterations, latency, cost per pass.

    Latency counts every session (errors too: their time was spent); the rest the
    graded ones. Per-turn latency pools the agent turns of every session (turns of
    one session are not independent: read its interval as optimistic).
    """
    graded = [r for r in records if r.status == "ok"]
    uses = _used(graded)
    with_redundant = sum(1 for u in uses if u.redundant)
    turns = [t for r in records for t in r.agent_turn_s]
    billed = [r for r in records if r.usage.calls]  # offline sessions cost nothing
    return {
        "redundant_calls": _mean_row([float(u.redundant) for u in uses], settings, "redundant"),
        "sessions_with_redundant": _share(with_redundant, len(uses), settings.level),
        "tool_calls": _mean_row([float(u.calls) for u in uses], settings, "tool-calls"),
        "agent_turns": _mean_row(
            [float(len(r.agent_turn_s)) for r in graded if r.agent_turn_s], settings, "turns"
        ),
        "latency_session_s": _latency_row([r.duration_s for r in records], settings.level),
        "latency_turn_s": _latency_row(turns, settings.level),
        "tokens_per_pass": _per_pass(
            graded if billed else [],
            lambda r: float(r.usage.input_tokens + r.usage.output_tokens),
            settings,
            "tokens",
        ),
        "cost_usd_per_pass": _cost_per_pass(graded if billed else [], settings),
    }


def _cost_per_pass(graded: Sequence[SessionRecord], settings: Settings) -> Row:
    """Cost per passing session; when some session's cost is unknown there is no figure,
    only how many sessions that is (an unpriced model is never counted as $0)."""
    unknown = sum(1 for r in graded if r.cost_usd is None)
    if unknown:
        return {"n": len(graded), "passes": sum(1 for r in graded if r.passed),
                "unknown_sessions": unknown}  # fmt: skip
    return _per_pass(graded, lambda r: r.cost_usd or 0.0, settings, "cost")


def tool_use_sections(records: Sequence[SessionRecord], settings: Settings) -> dict[str, Any]:
    """Both sections, keyed as ``summary.json`` stores them."""
    return {
        "trajectory": trajectory_section(records, settings),
        "efficiency": efficiency_section(records, settings),
    }
