"""A run's diagnosed causes as a report table, for any agent (``diagnosis.json``).

Each row is a cause of failure (truncation, anchoring, drift, single-turn, unknown):
how many failed sessions it names, their share of the failures with a Wilson
interval, how many the counterfactual replays verified (and the share, with its
interval), and a few example sessions. No hidden truth is needed: the agreement with
a recorded true cause is a separate caption, present only when a target reports one.
"""

from __future__ import annotations

from simlab.report._report_table import ReportTable
from simlab.store import DiagnosisReport, Share

MAX_EXAMPLES = 3
"""Example sessions shown per cause."""


def causes_table(report: DiagnosisReport) -> ReportTable:
    """Per diagnosed cause: count, share of the failed sessions, share verified by
    replay (each with its 95% Wilson interval and n), and example sessions."""
    rows = []
    for row in report.causes:
        if not row.n:
            continue
        examples = [s.key for s in report.sessions if s.cause is row.cause][:MAX_EXAMPLES]
        rows.append(
            [
                row.cause.value,
                str(row.n),
                Share.of(row.n, report.n_failed).shown(0),
                f"{row.verified.k} of {row.n}",
                row.verified.shown(0),
                ", ".join(examples) or "-",
            ]
        )
    v = report.verified
    rows.append(["all", str(v.n), "100%", f"{v.k} of {v.n}", v.shown(0), "-"])
    unverifiable = sum(
        1
        for s in report.sessions
        if s.verification is not None and s.verification.outcome.startswith("cannot verify: ")
    )
    return ReportTable(
        f"Diagnosed causes of {report.n_failed} failed sessions",
        ["Cause", "n", "Share of failures [95% CI]", "Verified", "Share verified [95% CI]",
         "Example sessions"],
        rows,
        "A cause is read from the transcript (where the first failure lies against what the "
        "agent saw and said); verified: a counterfactual replay (a wider context window, a "
        "restated constraint, a reminder) made the failure go away. A cause the target's "
        f"knobs cannot replay is neither verified nor refuted ({unverifiable} such "
        "sessions: declare the knobs your agent honours to replay them). diagnosis.json "
        "holds every session's evidence.",
        numeric={1},
    )  # fmt: skip
