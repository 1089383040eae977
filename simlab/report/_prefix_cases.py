"""The prefix regression cases a suite replayed after its run, as a report table.

They come from ``prefix_cases.json`` (written by the run's prefix replay), not from
``sessions.jsonl``: each case was replayed K times against the run's target.
"""

from __future__ import annotations

from simlab.report._report_table import ReportTable
from simlab.store import PrefixCaseOutcome, PrefixCases

_HEADERS = [
    "Case",
    "Logged reply",
    "Replays",
    "Kept",
    "Broken",
    "No action",
    "Errors",
    "Keep-rate [95% CI]",
    "Reproduced",
]
_LOGGED = {"broken": "broke", "kept": "kept", "no_action": "no action", "error": "error"}


def prefix_cases_table(cases: PrefixCases) -> ReportTable:
    """One row per case: what its logged reply did and what the K replays did."""
    rows = [
        [
            c.case,
            _LOGGED.get(c.logged or "", c.logged or "-"),
            str(c.n),
            str(c.kept),
            str(c.broken),
            str(c.no_action),
            str(c.errors),
            _keep_rate(c),
            "-" if c.reproduced is None else ("yes" if c.reproduced else "no"),
        ]
        for c in cases.cases
    ]
    kept = sum(1 for c in cases.cases if c.keep_rate == 1.0)
    return ReportTable(
        f"Prefix regression cases: {len(cases.cases)} replayed after the run "
        f"({kept} kept every constraint in every replay that acted)",
        _HEADERS,
        rows,
        "Each case is a logged conversation cut before its failing agent turn, replayed "
        "against this run's target (prefix_cases.json). Keep-rate: replays that acted and "
        "kept every constraint, over those that acted or broke one (Wilson interval); no "
        "action never counts as kept. Reproduced: most graded replays broke a constraint "
        f"again. {_reproduction(cases)}",
        numeric={2, 3, 4, 5, 6},
    )


def _keep_rate(case: PrefixCaseOutcome) -> str:
    if case.keep_rate is None:
        return "- (no replay acted)"
    acted = case.kept + case.broken
    lo, hi = case.keep_ci
    return f"{case.keep_rate:.0%} ({case.kept}/{acted}) [{lo:.0%}, {hi:.0%}]"


def _reproduction(cases: PrefixCases) -> str:
    r = cases.reproduction
    if not r.n or r.rate is None:
        return "No case's logged reply broke a constraint: no reproduction rate."
    lo, hi = r.ci
    return (
        f"Reproduced {r.reproduced} of {r.n} recorded constraint breaks: {r.rate:.1%} "
        f"[{lo:.1%}, {hi:.1%}] (Wilson 95%, n={r.n} cases)."
    )
