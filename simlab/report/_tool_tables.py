"""The report's tool-use tables: trajectory precision and recall, efficiency and latency."""

from __future__ import annotations

from simlab.report._report_table import ReportTable
from simlab.store import (
    Interval,
    LatencyRow,
    OpenInterval,
    PerPass,
    RunSummary,
    SessionShare,
    TrajectoryRow,
)

_DASH = "—"


def pct(x: float | None) -> str:
    """A 0-1 rate as a percentage."""
    return _DASH if x is None else f"{100 * x:.1f}%"


def rate_ci(ci: Interval | None, n: int) -> str:
    """A rate's Wilson interval as percentages; a dash over no session."""
    return _DASH if ci is None or not n else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"


def count_rate(count: int, n: int, rate: float | None) -> str:
    """``40.0% (2/5)``."""
    return f"{pct(rate)} ({count}/{n})"


def _unit(x: float | None, ci: Interval | None, n: int, digits: int = 2) -> str:
    """A mean with its interval; "no spread" where a zero-width interval would overstate."""
    if x is None:
        return _DASH
    if ci is None:
        return f"{x:.{digits}f} (no interval)"
    lo, hi = f"{ci[0]:.{digits}f}", f"{ci[1]:.{digits}f}"
    if lo == hi:
        return f"{x:.{digits}f} (no spread in n={n})"
    return f"{x:.{digits}f} [{lo}, {hi}]"


def _share(s: SessionShare | None, n: int) -> str:
    if s is None:
        return _DASH
    return f"{count_rate(s.count, n, s.rate)} {rate_ci(s.ci, n)}"


def _trajectory_row(name: str, r: TrajectoryRow) -> list[str]:
    n = r.n
    return [
        name,
        str(n),
        _unit(r.precision, r.precision_ci, n),
        _unit(r.recall, r.recall_ci, n),
        _share(r.wasteful, n),
        _share(r.gave_up_early, n),
        r.label or ("ok" if r.precision is not None else _DASH),  # as compare says
    ]


def trajectory_table(summary: RunSummary) -> ReportTable | None:
    """Precision and recall per persona, per goal, then overall; None for older summaries."""
    t = summary.trajectory
    if t is None or not t.overall.n:
        return None
    rows = [_trajectory_row(f"persona {p}", r) for p, r in t.by_persona.items()]
    rows += [_trajectory_row(f"goal {g}", r) for g, r in t.by_goal.items()]
    rows.append(_trajectory_row("overall", t.overall))
    empty = t.overall.n_no_calls_expected
    # absent from older summaries
    redone = t.overall.n_redone if "n_redone" in t.overall.model_fields_set else None
    return ReportTable(
        "Tool-call trajectory",
        ["Group", "n", "Precision [95% CI]", "Recall [95% CI]", "Wasteful", "Gave up early",
         "Label"],
        rows,
        f"LCS precision (right calls / calls made) and recall (right calls / calls "
        f"expected), means over graded sessions with bootstrap intervals. Under "
        f"{t.low:g}: low precision with fine recall is wasteful, low recall with fine "
        f"precision gave up early. {empty} session(s) of goals that expect no call count "
        "(no call there scores 1 and 1). A repeat of the final action (and its lookups) "
        "after the user changed their request following the previous one is right, not "
        "waste" + (f" ({redone} session(s))." if redone is not None else "."),
        numeric={1},
    )  # fmt: skip


def _latency(r: LatencyRow, q: str) -> str:
    x, ci, n = (r.p50, r.p50_ci, r.n) if q == "p50" else (r.p95, r.p95_ci, r.n)
    if x is None:
        return _DASH
    if ci is None:
        return f"{1000 * x:.1f} ms (n={n}: too few for an interval)"
    return _unit(1000 * x, (1000 * ci[0], 1000 * ci[1]), n, digits=1).replace(" ", " ms ", 1)


def _per_pass(r: PerPass, money: bool) -> str:
    if not r.n:
        return "none (no LLM call billed)"
    if r.unknown_sessions:
        return f"unknown ({r.unknown_sessions} of n={r.n} sessions called a model with no price)"
    if r.per_pass is None:
        return f"no passing session (n={r.n})"

    def fmt(v: float) -> str:
        return f"${v:.4f}" if money else f"{v:,.0f}"

    ci: OpenInterval | None = r.ci
    upper = "" if ci is None else "unbounded" if ci[1] is None else fmt(ci[1])
    shown = fmt(r.per_pass) + (f" [{fmt(ci[0])}, {upper}]" if ci else "")
    return f"{shown} ({r.passes} passes of n={r.n})"


def efficiency_table(summary: RunSummary) -> ReportTable | None:
    """Redundant calls, iterations, latency and cost per pass; None for older summaries."""
    e = summary.efficiency
    if e is None:
        return None
    red, calls, turns = e.redundant_calls, e.tool_calls, e.agent_turns
    with_red = e.sessions_with_redundant
    session_s, turn_s = e.latency_session_s, e.latency_turn_s
    rows = [
        ["redundant calls per session", _unit(red.mean, red.ci, red.n), str(red.n)],
        ["sessions with a redundant call",
         f"{pct(with_red.rate)} {rate_ci(with_red.ci, red.n)}", str(red.n)],
        ["tool calls per session (iterations)", _unit(calls.mean, calls.ci, calls.n),
         str(calls.n)],
        ["agent turns per session", _unit(turns.mean, turns.ci, turns.n), str(turns.n)],
        ["session latency p50", _latency(session_s, "p50"), str(session_s.n)],
        ["session latency p95", _latency(session_s, "p95"), str(session_s.n)],
        ["agent turn latency p50", _latency(turn_s, "p50"), str(turn_s.n)],
        ["agent turn latency p95", _latency(turn_s, "p95"), str(turn_s.n)],
        ["tokens per passing session", _per_pass(e.tokens_per_pass, False),
         str(e.tokens_per_pass.n)],
        ["cost per passing session", _per_pass(e.cost_usd_per_pass, True),
         str(e.cost_usd_per_pass.n)],
    ]  # fmt: skip
    return ReportTable(
        "Efficiency",
        ["Figure", "Value [95% CI]", "n"],
        rows,
        "A redundant call repeats an identical call (same tool, same arguments) made more "
        "than twice. Latency intervals are distribution-free (order statistics); a turn's "
        "pools every session's agent turns. Per passing session: the graded sessions' "
        "total over their passes (bootstrap interval).",
        numeric={2},
    )
