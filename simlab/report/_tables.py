"""The report's tables as plain strings, shared by the terminal, markdown and HTML renderers.

Every pass rate travels with its n and Wilson interval, every aptitude and
unreliability with its bootstrap interval (or says that one cell has none);
a rate over no session is a dash, never the empty interval [0%, 100%]. The
overall figure comes last.
"""

from __future__ import annotations

from collections.abc import Sequence

from simlab.core import escape_controls as escape_controls
from simlab.report._judge import criteria_table
from simlab.report._report_table import ReportTable as ReportTable
from simlab.report._report_table import Section as Section
from simlab.report._stages import stage_share_table, stage_transition_table
from simlab.report._tool_tables import efficiency_table, trajectory_table
from simlab.report._unheard import unheard_line
from simlab.store import (
    CheckStats,
    GroupStats,
    Interval,
    Kappa,
    ModeSpread,
    PassCounts,
    PassHatK,
    Rate,
    RunSummary,
    Spread,
    SpreadName,
)

_DASH = "—"
_K_SHOWN = (1, 2, 4, 8, 16, 32, 64, 100)


def plural(n: int, noun: str) -> str:
    """``1 cell``, ``2 cells``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def pct(x: float | None) -> str:
    """A 0-1 rate as a percentage."""
    return _DASH if x is None else f"{100 * x:.1f}%"


def pct_ci(ci: Interval | None) -> str:
    """A 0-1 interval as percentages."""
    return _DASH if ci is None else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"


def score(x: float | None, ci: Interval | None = None) -> str:
    """A 0-100 figure, with its interval when there is one."""
    if x is None:
        return _DASH
    return f"{x:.1f}" if ci is None else f"{x:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"


def spread(x: float | None, ci: Interval | None, n: int, unit: str = "cell") -> str:
    """A mean over cells with its bootstrap interval, or saying why it has none.

    Args:
        x: The mean, None over no cell.
        ci: Its interval, None under two cells (one cell says nothing of the spread).
        n: How many cells (or pairs of cells) the mean is over.
        unit: What ``n`` counts.
    """
    if x is not None and ci is None:
        return f"{x:.1f} ({plural(n, unit)}: no interval)"
    return score(x, ci)


def metric(
    row: Spread,
    name: SpreadName,
    n: int | None = None,
    unit: str = "cell",
    sessions: int | None = None,
) -> str:
    """A row's aptitude, unreliability or mean score: with its interval, or saying why
    there is none ("1 cell: no interval", or "no spread in n=96 sessions" when every
    resample gave the same value, which a zero-width interval would overstate).

    Args:
        row: A summary row.
        name: ``aptitude``, ``unreliability`` or ``mean_score``.
        n: How many cells (or pairs) the mean is over; the row's ``n_cells`` by default.
        unit: What ``n`` counts.
    """
    cells = n if n is not None else _cells_of(row)
    sessions = _sessions_of(row)
    x, ci, no_spread = row.figure(name)
    if x is not None and no_spread:
        where = f"n={sessions} sessions" if sessions is not None else plural(cells, unit)
        return f"{x:.1f} (no spread in {where})"
    return spread(x, ci, cells, unit)


def _cells_of(row: Spread) -> int:
    return row.n_cells if isinstance(row, GroupStats | ModeSpread) else 0


def _sessions_of(row: Spread) -> int | None:
    return row.n if isinstance(row, GroupStats | ModeSpread) else None


def rate_ci(ci: Interval | None, n: int) -> str:
    """A rate's Wilson interval; a dash over no session, where Wilson gives [0%, 100%]."""
    return pct_ci(ci) if n else _DASH


def count_rate(count: int, n: int, rate: float | None) -> str:
    """``40.0% (2/5)``: a rate and the counts it comes from (``— (0/0)`` over no session)."""
    return f"{pct(rate)} ({count}/{n})"


def _pass_cells(row: PassCounts) -> list[str]:
    n = row.n
    return [str(n), pct(row.pass_rate), rate_ci(row.pass_ci, n)]


def _spread_cells(row: Spread, n_cells: int | None = None, unit: str = "cell") -> list[str]:
    return [metric(row, "aptitude", n_cells, unit), metric(row, "unreliability", n_cells, unit)]


_PASS_HEAD = ["n", "Pass rate", "95% CI"]
_SPREAD_HEAD = ["Aptitude [95% CI]", "Unreliability [95% CI]"]


def _by_persona(s: RunSummary) -> ReportTable:
    rows = [
        [name, *_pass_cells(r), *_spread_cells(r), str(r.n_cells), str(r.n_errors)]
        for name, r in s.by_persona.items()
    ]
    return ReportTable(
        "Pass rate by persona",
        ["Persona", *_PASS_HEAD, *_SPREAD_HEAD, "Cells", "Errors"],
        rows,
        _estimand_note(s),
        numeric={1, 2, 6, 7},
    )


def _estimand_note(s: RunSummary) -> str:
    reps = s.estimands.reps if s.estimands.reps is not None else "R"
    return (
        f"Aptitude = mean over cells of the P90 of a cell's R={reps} repetitions' scores "
        f"(it estimates the expected P90 of {reps} draws); unreliability = the same for "
        f"P90 - P10. Both grow with R: compare them at equal R. Intervals: two-level "
        "bootstrap (cells, then repetitions within cells)."
    )


def _giving_up(s: RunSummary) -> ReportTable:
    rows = []
    for name, r in s.by_persona.items():
        n = r.gave_up_n
        rows.append(
            [
                name,
                str(n),
                count_rate(r.gave_up, n, r.gave_up_rate),
                rate_ci(r.gave_up_ci, n),
                count_rate(r.walked_out, n, r.walked_out_rate),
                rate_ci(r.walked_out_ci, n),
            ]
        )
    return ReportTable(
        "Giving up by persona",
        ["Persona", "n", "Gave up", "95% CI", "Before any action", "95% CI"],
        rows,
        "Of the persona's graded sessions, with Wilson intervals. Before any action: gave up "
        "before the agent took the goal's final action (slowness, not a wrong action).",
        numeric={1, 2, 4},
    )


def _by_goal(s: RunSummary) -> ReportTable:
    rows = [
        [name, *_pass_cells(r), *_spread_cells(r), str(r.n_cells), str(r.n_errors)]
        for name, r in s.by_goal.items()
    ]
    return ReportTable(
        "Pass rate by goal",
        ["Goal", *_PASS_HEAD, *_SPREAD_HEAD, "Cells", "Errors"],
        rows,
        numeric={1, 2, 6, 7},
    )


def _length_notes(s: RunSummary) -> str:
    found = s.lengths.notes if s.lengths is not None else ()
    return " ".join(n[0].upper() + n[1:] + "." for n in found)


def _bucket_cells(r: GroupStats) -> str:
    left_out = r.n_cells_fragments
    return f"{r.n_cells} (+{left_out} with 1 rep, left out)" if left_out else str(r.n_cells)


def _by_bucket(s: RunSummary) -> ReportTable:
    rows = [
        [name, *_pass_cells(r), *_spread_cells(r), _bucket_cells(r), str(r.n_errors)]
        for name, r in s.by_bucket.items()
    ]
    note = (
        "Length is the planned length: the user turns the session's plan needs (its facts, "
        "mind changes and perturbations, then the closing turn), fixed before it runs, so "
        "the same key is in the same bucket in every run and with every agent."
    )
    return ReportTable(
        "Pass rate by planned length (user turns the plan needs)",
        ["Planned length", *_PASS_HEAD, *_SPREAD_HEAD, "Cells", "Errors"],
        rows,
        " ".join(
            filter(
                None,
                [
                    note,
                    _length_notes(s),
                    "Within a length bucket a cell holds only its sessions planned at that "
                    "length; aptitude and unreliability use only the cells with at least 2 of "
                    "them (a single repetition's P90 - P10 is 0 by construction).",
                ],
            )
        ),
        numeric={1, 2, 6, 7},
    )


def _by_realised_length(s: RunSummary) -> ReportTable | None:
    realised = s.by_realised_length
    if not realised:
        return None
    rows = []
    for name, r in realised.items():
        ended = ", ".join(f"{k} {v}" for k, v in r.stop_reasons.items()) or _DASH
        rows.append([name, *_pass_cells(r), str(r.n_errors), ended])
    return ReportTable(
        "Realised length — depends on the outcome (failing users talk longer); not a cause",
        ["Realised length", *_PASS_HEAD, "Errors", "Ended by"],
        rows,
        "Descriptive only: a user whose request went wrong keeps talking until it is fixed "
        "or they give up, so long realised conversations fail by construction. Compare "
        "lengths with the planned-length table above.",
        numeric={1, 2, 4},
    )


def _bucket_cell(row: GroupStats) -> str:
    rate = count_rate(row.passes, row.n, row.pass_rate)
    return f"{rate} {pct_ci(row.pass_ci)}" if row.n else rate


def _persona_bucket(s: RunSummary) -> ReportTable:
    buckets = list(s.by_bucket)
    rows = [
        [persona] + [_bucket_cell(cells[b]) for b in buckets]
        for persona, cells in s.by_persona_bucket.items()
    ]
    return ReportTable(
        "Pass rate by persona × planned length",
        ["Persona", *buckets],
        rows,
        "Each cell: pass rate (passes/n) [Wilson 95% interval] of the persona's graded "
        "sessions of that planned length.",
        numeric=set(range(1, len(buckets) + 1)),
    )


def _full_vs_sharded(s: RunSummary) -> ReportTable:
    rows = []
    fvs = s.full_vs_sharded
    for mode, r in fvs.modes.items():
        p = s.by_mode[mode]
        rows.append(
            [
                mode,
                str(r.n_cells),
                *_pass_cells(p),
                metric(r, "mean_score"),
                *_spread_cells(r),
            ]
        )
    delta = fvs.sharded_minus_full
    if delta is not None:
        rows.append(
            [
                "sharded − full (paired)",
                str(delta.n_pairs),
                _DASH,
                _DASH,
                _DASH,
                metric(delta, "mean_score", delta.n_pairs, "pair"),
                *_spread_cells(delta, delta.n_pairs, "pair"),
            ]
        )
    return ReportTable(
        "Full vs sharded",
        ["Mode", "Cells", *_PASS_HEAD, "Mean score [95% CI]", *_SPREAD_HEAD],
        rows,
        "Means over cells, two-level bootstrap intervals (cells, then repetitions within "
        "cells); the paired row pairs cells on persona, goal and perturbations.",
        numeric={1, 2, 3},
    )


def _pass_k_value(g: PassHatK, k: int) -> str:
    value = g.k.get(str(k))
    if value is None:
        return _DASH
    if g.k_no_spread.get(str(k)):
        return f"{pct(value)} (no spread)"
    ci = g.k_ci.get(str(k))
    if ci is None:  # a single task: between-task spread unknown
        return f"{pct(value)} ({plural(g.tasks, 'task')}: no interval)"
    return f"{pct(value)} {pct_ci(ci)}"


def _trials(g: PassHatK) -> str:
    lo, hi = g.trials_min, g.trials_max
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _pass_hat_k(s: RunSummary) -> ReportTable:
    by_goal = s.pass_hat_k.by_goal
    overall = s.pass_hat_k.overall
    k_max = max((int(k) for g in by_goal.values() for k in g.k), default=0)
    ks = [k for k in _K_SHOWN if k <= k_max]
    rows = [
        [goal, str(g.tasks), _trials(g), str(g.n), str(g.passes)]
        + [_pass_k_value(g, k) for k in ks]
        for goal, g in by_goal.items()
    ]
    rows.append(
        [
            "all goals",
            str(overall.tasks),
            _trials(overall),
            _DASH if overall.n is None else str(overall.n),
            _DASH if overall.passes is None else str(overall.passes),
        ]
        + [_pass_k_value(overall, k) for k in ks]
    )
    return ReportTable(
        "pass^k by goal (all k trials pass)",
        ["Goal", "Tasks", "Trials/task", "n", "Passes", *[f"k={k} [95% CI]" for k in ks]],
        rows,
        "A task is a cell (persona x goal x mode x perturbations), its trials its repetitions; "
        "pass^k = C(passes, k) / C(trials, k) per task, averaged over the goal's tasks (it "
        "estimates the mean over tasks of p^k) for k up to the fewest trials; intervals: "
        "two-level bootstrap (tasks, then trials within tasks).",
        numeric=set(range(1, 5 + len(ks))),
    )


def _errors(s: RunSummary) -> Section:
    e = s.errors
    retries = "" if e.retries is None else f"; {e.retries} retries in all"
    if e.n == 0:
        return f"No errors (0 of {e.n_sessions} sessions{retries})."
    rows = [
        [reason, str(g.count), ", ".join(g.sessions), " / ".join(g.examples) or _DASH]
        for reason, g in e.by_stop_reason.items()
    ]
    return ReportTable(
        f"Errors: {e.n} of {e.n_sessions} sessions, excluded from every rate",
        ["Stop reason", "Count", "Example sessions", "Example errors"],
        rows,
        f"Errors count neither as passes nor as failures{retries}.",
        numeric={1},
    )


def _failed_sessions(s: RunSummary) -> Section | None:
    f = s.failed_sessions
    if f is None:  # a summary written by summarize alone, or before failures were listed
        return None
    if not f.n:
        return None
    rows = []
    for session in f.shown:
        said = "; ".join(
            f"{c.check}" + (f" (turn {c.turn})" if c.turn is not None else "")
            + (f": {c.detail}" if c.detail else "")
            for c in session.checks
        )  # fmt: skip
        score = _DASH if session.score is None else f"{session.score:.1f}"
        rows.append([session.session, score, session.stop_reason, said or _DASH])
    shown = len(f.shown)
    title = (
        f"Failed sessions: {f.n}"
        if shown == f.n
        else f"Failed sessions: {shown} of {f.n}, spread over personas and goals"
    )
    return ReportTable(
        title,
        ["Session", "Score", "Stop reason", "Failed checks (first failing turn): detail"],
        rows,
        "Session: persona/goal/mode/rep. Each session's transcript is in report.html's "
        "viewer and in sessions.jsonl (its checks in full there too).",
        numeric={1},
    )


def _faults(s: RunSummary) -> str:
    f = s.faults
    if f is None or not (f.simulator.findings or f.grader.sessions):
        return "LLM role faults: none."
    sim = f.simulator
    kinds = ", ".join(
        f"{kind} {c.findings}" + (f" ({c.kept} kept in the text sent)" if c.kept else "")
        for kind, c in sim.by_kind.items()
    )
    return (
        f"LLM role faults: the simulated user's fidelity audit found {sim.findings} "
        f"in {plural(sim.sessions, 'session')} ({kinds or _DASH}); "
        f"{plural(sim.sessions_failed, 'session')} ended as simulator_error after "
        f"retries; the judge failed in {plural(f.grader.sessions, 'session')}."
    )


def _tool_results(s: RunSummary) -> str | None:
    t = s.tool_results
    if t is None or not t.unreported_calls:
        return None  # every result reported, or a summary from before they were counted
    return (
        f"Tool results not reported: the target sent {t.unreported_calls} of its "
        f"{t.calls} tool calls without their results, in "
        f"{plural(t.unreported_sessions, 'session')} (e.g. {', '.join(t.examples)}), so "
        "checks on what a tool returned (confirmation, constraints on result fields) cannot "
        "pass; an HTTP endpoint reports them as docs/http-targets.md shows."
    )


def _truncated(s: RunSummary) -> str | None:
    t = s.truncated
    if t is None or not t.sessions:
        return None
    fields = ", ".join(f"{name} {n}" for name, n in t.by_field.items())
    return (
        f"Target output cut at the suite's limits in {plural(t.sessions, 'session')} "
        f"({fields}; the largest was {t.largest_chars:,} characters), e.g. "
        f"{', '.join(t.examples)}: each cut is listed in the session's meta.truncated "
        "and marked where it happened; raise `limits:` in the suite to keep more."
    )


def _usd(cost: float | None, unknown_sessions: int) -> str:
    """A cost as printed: ``$0.0123``, or ``unknown`` (never $0) when it is not known."""
    if cost is None:
        return f"unknown in {unknown_sessions} sessions" if unknown_sessions else "unknown"
    return f"${cost:.4f}"


def _cost(s: RunSummary) -> str:
    c = s.cost
    if not c.calls:
        return "LLM cost: none (no LLM role in this run)."
    roles = ", ".join(
        f"{role} {_usd(r.cost_usd, r.unknown_sessions)} ({r.calls} calls, {r.retries} retries)"
        for role, r in c.by_role.items()
    )
    replaced = c.replaced_sessions
    retried = f" (with {replaced} error sessions a retry replaced)" if replaced else ""
    total = _usd(c.total_usd, 0)
    if c.total_usd is None:
        others = c.sessions - c.unknown_sessions
        known = f" the other {others} cost ${c.known_usd:.4f};" if others else ""
        total += (
            f" ({c.unknown_sessions} of {c.sessions} sessions called a model with no price;"
            f"{known} add the model under the suite's `pricing:`)"
        )
    return (
        f"LLM cost: {total} over {c.calls} calls{retried} — {roles}; "
        f"tokens in {c.input_tokens:,}, cache read {c.cache_read_tokens:,}, "
        f"cache write {c.cache_write_tokens:,}, out {c.output_tokens:,}."
    )


def _stop_reasons(s: RunSummary) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in s.stop_reasons.items())
    return f"Stop reasons: {counts or _DASH}."


def _overall_spread(o: GroupStats) -> str:
    apt, unrel = o.aptitude, o.unreliability
    n = o.n_cells
    if n >= 2:
        return (
            f"aptitude {metric(o, 'aptitude')}; "
            f"unreliability {metric(o, 'unreliability')} over {plural(n, 'cell')}"
        )
    why = "no scored cell" if n == 0 else f"{plural(n, 'cell')}: no interval"
    return f"aptitude {score(apt)}; unreliability {score(unrel)} ({why})"


def overall_line(s: RunSummary) -> str:
    """The overall figure, with n, intervals (or why there are none) and the errors left out."""
    o = s.overall
    ci = f" {rate_ci(o.pass_ci, o.n)}" if o.n else ""  # no rate: no second dash
    return (
        f"Overall: pass rate {pct(o.pass_rate)}{ci} "
        f"(n={o.n}, {plural(o.n_errors, 'error')} excluded); {_overall_spread(o)}."
    )


def _by_check(s: RunSummary) -> ReportTable | None:
    checks = s.by_check
    if not checks:  # a summary written before checks were tallied
        return None
    rows = [
        [name, count_rate(r.passes, r.n, r.pass_rate) + _no_verdict(r),
         rate_ci(r.pass_ci, r.n), _DASH if r.mean_credit is None else f"{r.mean_credit:.2f}",
         _counted(r)]
        for name, r in checks.items()
    ]  # fmt: skip
    return ReportTable(
        "Checks",
        ["Check", "Passed", "95% CI", "Mean credit", "Counted"],
        rows,
        "Every check of the graded sessions that have it (built-in and your own graders), "
        "with Wilson intervals; credit is a check's partial score (0-1). Counted: whether "
        "it counts in the verdict or the score; a check the grading waives (and does not "
        "weigh) is run and shown, but NOT COUNTED.",
        numeric={1, 3},
    )


def _counted(row: CheckStats) -> str:
    left_out = row.not_counted
    if not left_out:
        return "yes"
    if left_out >= row.n:
        return "NOT COUNTED"
    return f"NOT COUNTED in {left_out} of {row.n}"


def _no_verdict(row: CheckStats) -> str:
    failed = row.grader_failures
    return f" + {failed} grader {'failure' if failed == 1 else 'failures'}" if failed else ""


def _grader_failures(s: RunSummary) -> str | None:
    g = s.grader_failures
    if g is None:  # no grader raised (or a summary from before they were recorded)
        return None
    checks = ", ".join(f"{name} {n}" for name, n in g.by_check.items())
    examples = "; ".join(f"{e.session} {e.check}: {e.error}" for e in g.examples)
    return (
        f"Grader failures: {plural(g.checks, 'check')} in "
        f"{plural(g.sessions, 'graded session')} had no verdict, their grader raised "
        f"({checks}), e.g. {examples}. Each is a failed check, not the target's failure "
        "nor a session error; the other checks stand, and the exception's traceback is "
        "in sessions.jsonl (the check's error)."
    )


def _judge(s: RunSummary) -> ReportTable | None:
    j = s.judge
    if j is None:  # no session was judged (or a summary written before the judge was tallied)
        return None
    n = j.n

    def rate_row(name: str, r: Rate) -> list[str]:
        return [name, count_rate(r.passes, r.n, r.rate), rate_ci(r.ci, r.n)]

    k = j.kappa
    if k.value is None or k.ci is None:
        kappa = [
            "Cohen's kappa (judge vs code)",
            f"— (one verdict only, n={n})" if n else _DASH,
            _DASH,
        ]
    else:
        lo, hi = k.ci
        kappa = [
            "Cohen's kappa (judge vs code)",
            f"{k.value:.2f} (n={n})",
            f"[{lo:.2f}, {hi:.2f}]",
        ]
    t = j.table
    no_verdict = (
        f" The judge gave no usable verdict in {plural(j.no_verdict, 'session')} "
        "(grader errors, left out)."
        if j.no_verdict
        else ""
    )
    return ReportTable(
        "Judge vs code graders",
        ["Measure", "Value", "95% CI"],
        [
            rate_row("judge pass rate", j.judge),
            rate_row("code graders' pass rate, same sessions", j.code),
            rate_row("agreement", j.agreement),
            kappa,
        ],
        f"Over the {plural(n, 'graded session')} the LLM judge rated: the judge passed and "
        f"the code failed {t.judge_pass_code_fail}, the judge failed and the code passed "
        f"{t.judge_fail_code_pass}. Wilson intervals; kappa is agreement beyond chance "
        f"(chance here {_chance(k)}), its interval the Wilson interval of the agreement mapped "
        f"through kappa's formula.{no_verdict}",
        numeric={1},
    )


def _chance(k: Kappa) -> str:
    return _DASH if k.expected is None else f"{k.expected:.2f}"


def build_sections(summary: RunSummary, more: Sequence[Section] = ()) -> list[Section]:
    """Every table and line of a report, in order; the overall line is last.

    ``more``: the tables of analyses made on the run beside its sessions (its prefix
    regression cases), placed after the sessions' tables, before the closing lines.
    """
    sections: list[Section | None] = [
        _by_persona(summary),
        _giving_up(summary),
        _by_goal(summary),
        _by_bucket(summary),
        _persona_bucket(summary),
        _by_realised_length(summary),
        _full_vs_sharded(summary),
        _pass_hat_k(summary),
        _by_check(summary),
        _judge(summary),
        criteria_table(summary),
        trajectory_table(summary),
        efficiency_table(summary),
        stage_share_table(summary),
        stage_transition_table(summary),
        _failed_sessions(summary),
        _errors(summary),
        _faults(summary),
        _grader_failures(summary),
        _tool_results(summary),
        _truncated(summary),
        _cost(summary),
        _stop_reasons(summary),
        *more,
        unheard_line(summary),  # next to the headline: it says whose the failures may be
        overall_line(summary),
    ]
    return [section for section in sections if section is not None]
