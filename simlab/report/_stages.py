"""``summary.json``'s ``tool_stages`` section and its tables: where tool use first fails.

Each graded session's record says at which stage its tool use first failed, and the
next distinct stage that failed after it (``SessionRecord.tool_stages``). Per
persona, per goal and over the run: the share of sessions whose first failure is at
each stage, and of those with none, each with its n and a Wilson interval. The
first-failure transitions count the sessions that failed, by first stage (rows) and
next distinct stage or ``none`` (columns), with row and column totals.

The states are the built-in stages (``simlab.spec.TOOL_STAGES``), then any stage a
domain declared that some session failed at, alphabetically. Error sessions, and
records older than schema 5 (no stages), are not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from simlab.report._report_table import ReportTable
from simlab.report._rows import Row, interval, rnd
from simlab.spec import TOOL_STAGES
from simlab.stats import wilson_interval
from simlab.store import RunSummary, SessionRecord, SessionShare, StageShares

_DASH = "—"

NONE = "none"
"""No failure: a session's tool use never failed, or no stage failed after the first."""


def _staged(records: Sequence[SessionRecord]) -> list[SessionRecord]:
    return [r for r in records if r.status == "ok" and r.tool_stages is not None]


def stage_list(records: Sequence[SessionRecord]) -> list[str]:
    """The built-in stages, then every other stage the records fail at, alphabetically."""
    extra = {
        f.stage
        for r in _staged(records)
        for f in r.tool_stages.failures  # type: ignore[union-attr]
        if f.stage not in TOOL_STAGES
    }
    return [*TOOL_STAGES, *sorted(extra)]


def share_row(records: Sequence[SessionRecord], stages: Sequence[str], level: float) -> Row:
    """One group's share of sessions first failing at each stage, and failing at none."""
    firsts = [r.tool_stages.first for r in _staged(records)]  # type: ignore[union-attr]
    n = len(firsts)
    row: Row = {"n": n}
    for stage in [*stages, NONE]:
        count = sum(1 for f in firsts if (f or NONE) == stage)
        row[stage] = {
            "count": count,
            "rate": rnd(count / n) if n else None,
            "ci": interval(wilson_interval(count, n, level)) if n else None,
        }
    return row


def transitions(records: Sequence[SessionRecord], stages: Sequence[str]) -> Row:
    """First failing stage (rows) to the next distinct one or ``none`` (columns)."""
    cols = [*stages, NONE]
    counts = [[0] * len(cols) for _ in stages]
    for r in _staged(records):
        found = r.tool_stages
        if found is None or found.first is None:
            continue
        counts[stages.index(found.first)][cols.index(found.next or NONE)] += 1
    return {
        "rows": list(stages),
        "columns": cols,
        "counts": counts,
        "row_totals": [sum(row) for row in counts],
        "column_totals": [sum(col) for col in zip(*counts, strict=True)] if counts else [],
        "n": sum(sum(row) for row in counts),
    }


def stages_section(records: Sequence[SessionRecord], level: float) -> Row:
    """The ``tool_stages`` section: shares overall, by persona and by goal; transitions."""
    stages = stage_list(records)

    def grouped(key: Callable[[SessionRecord], str]) -> dict[str, Row]:
        groups: dict[str, list[SessionRecord]] = {}
        for r in records:
            groups.setdefault(key(r), []).append(r)
        return {name: share_row(groups[name], stages, level) for name in sorted(groups)}

    graded = [r for r in records if r.status == "ok"]
    return {
        "stages": stages,
        "estimand": "share of graded sessions whose tool use first failed at each stage "
        "(none: it never failed), Wilson intervals",
        "n_without_stages": len(graded) - len(_staged(graded)),
        "overall": share_row(records, stages, level),
        "by_persona": grouped(lambda r: r.key.persona),
        "by_goal": grouped(lambda r: r.key.goal),
        "transitions": transitions(records, stages),
    }


def _cell(share: SessionShare, n: int) -> str:
    """``26.0% (25) [18.3, 35.6]``: the share, its count of n, its interval in percent."""
    if not n or share.ci is None or share.rate is None:
        return _DASH
    lo, hi = share.ci
    return f"{100 * share.rate:.1f}% ({share.count}) [{100 * lo:.1f}, {100 * hi:.1f}]"


def stage_share_table(summary: RunSummary) -> ReportTable | None:
    """Share first failing at each stage per persona, per goal, then overall; None when
    no session has stages (older runs)."""
    s = summary.tool_stages
    if s is None or not s.overall.n:
        return None
    cols = [*s.stages, NONE]

    def row(name: str, r: StageShares) -> list[str]:
        return [name, str(r.n), *(_cell(r.at(c), r.n) for c in cols)]

    rows = [row(f"persona {p}", r) for p, r in s.by_persona.items()]
    rows += [row(f"goal {g}", r) for g, r in s.by_goal.items()]
    rows.append(row("overall", s.overall))
    return ReportTable(
        "Where tool calls first fail",
        ["Group", "n", *cols],
        rows,
        "Each graded session counts once, at the stage of its first tool-use failure: "
        "selection (wrong or missing tool), arguments (against the schema or what the user "
        "said), execution (a tool error, or an empty result taken as success), output (the "
        "reply misstates what the tool returned); none: no failure. Each cell: share "
        "(count of the row's n) [95% Wilson interval, in %].",
        numeric={1},
    )


def stage_transition_table(summary: RunSummary) -> ReportTable | None:
    """Counts of first failing stage (rows) to next distinct stage (columns), with totals;
    None when no session failed."""
    s = summary.tool_stages
    t = s.transitions if s is not None else None
    if t is None or not t.n:
        return None
    rows = [
        [stage, *(str(k) if k else "." for k in counts), str(total)]
        for stage, counts, total in zip(t.rows, t.counts, t.row_totals, strict=True)
    ]
    rows.append(["total", *(str(k) for k in t.column_totals), str(t.n)])
    return ReportTable(
        f"First-failure transitions between stages ({t.n} sessions that failed)",
        ["first \\ next", *t.columns, "total"],
        rows,
        "Rows: the stage of a session's first tool-use failure; columns: the next distinct "
        "stage that failed later in it, or none. Each failed session counts once.",
        numeric=set(range(1, len(t.columns) + 2)),
    )
