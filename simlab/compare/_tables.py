"""The comparison as neutral tables, rendered by the markdown and terminal writers."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from simlab.compare._analysis import (
    NOT_PAIRED_MESSAGE,
    Comparison,
    GroupComparison,
    SpreadDelta,
)
from simlab.compare._gates import GateResult
from simlab.compare._section import Cell, Link, Section
from simlab.compare._side_by_side import side_by_side_sections
from simlab.store import SESSIONS_FILE

HTML_REPORT = "report.html"


def pct(x: float | None) -> str:
    """A rate as a percentage, ``n/a`` when undefined."""
    return "n/a" if x is None else f"{x * 100:.1f}%"


def ci_pct(ci: tuple[float, float] | None) -> str:
    """An interval of rates as percentages."""
    return "n/a" if ci is None else f"[{ci[0] * 100:.1f}, {ci[1] * 100:.1f}]"


def pts(x: float | None) -> str:
    """A change of rates in percentage points, signed."""
    return "n/a" if x is None else f"{x * 100:+.1f}"


def ci_pts(ci: tuple[float, float] | None) -> str:
    """An interval of changes in percentage points, signed."""
    return "n/a" if ci is None else f"[{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]"


def _num(x: float) -> str:
    return f"{x:.1f}"


def _signed(x: float) -> str:
    return f"{x:+.1f}"


def _p(p: float) -> str:
    return f"{p:.3g}"


def transcript_links(c: Comparison, line: int, anchor: str, base: Path) -> list[Link]:
    """Where B's record of a session is: its ``sessions.jsonl`` line and its HTML report entry.

    Args:
        c: The comparison (its ``run_b`` is resolved against ``base``).
        line: The session's 1-based line in B's ``sessions.jsonl``.
        anchor: The session's element id in ``report.html``.
        base: The folder the links are relative to (the markdown file's folder).
    """
    rel = Path(os.path.relpath(c.run_b.resolve(), base.resolve()))
    sessions = (rel / SESSIONS_FILE).as_posix()
    links = [Link(f"{sessions}:{line}", f"{quote(sessions)}#L{line}")]
    if (c.run_b / HTML_REPORT).exists():
        html = (rel / HTML_REPORT).as_posix()
        links.append(Link("report", f"{quote(html)}#{quote(anchor, safe='+')}"))
    return links


def rate_cell(passed: int, n: int, ci: tuple[float, float]) -> str:
    """``61.0% (83/136) [52.6, 68.8]``: the rate, its counts and its interval."""
    if n == 0:
        return "n/a (0/0)"
    return f"{pct(passed / n)} ({passed}/{n}) {ci_pct(ci)}"


def change_cell(delta: float | None, ci: tuple[float, float] | None) -> str:
    """``+37.2 [+29.0, +45.7]``: a change in points and its interval."""
    return "n/a" if delta is None else f"{pts(delta)} {ci_pts(ci)}"


def _rate_cells(g: GroupComparison) -> list[Cell]:
    return [
        rate_cell(g.a.passed, g.a.n, g.a.ci),
        rate_cell(g.b.passed, g.b.n, g.b.ci),
        change_cell(g.delta, g.delta_ci),
    ]


def no_test_reason(g: GroupComparison) -> str:
    """Why a row has no test: which run has no sessions in it."""
    if g.a.n == 0 and g.b.n == 0:
        return "no sessions"
    return "no sessions in A" if g.a.n == 0 else "no sessions in B"


def _test_cells(c: Comparison, g: GroupComparison, family: str) -> list[Cell]:
    """The row's test, its raw p-value and its Holm-adjusted one; '-' and why, without data."""
    if g.test is None:
        return ["-", no_test_reason(g)]
    return [g.test.name, _p_pair(g.test.p_value, c.p_adjusted.get(family))]


def _p_pair(raw: float, adjusted: float | None) -> str:
    """``0.0139 / 0.208``: the raw p-value, then the Holm-adjusted one."""
    return f"{_p(raw)} / {'n/a' if adjusted is None else _p(adjusted)}"


def _paired_cells(c: Comparison, g: GroupComparison) -> list[Cell]:
    t = g.paired
    adjusted = c.p_adjusted.get(f"paired:{g.name}")
    return [
        str(t.n),
        str(t.both_pass),
        str(t.regressed),
        str(t.fixed),
        str(t.both_fail),
        change_cell(t.delta, g.paired_ci),
        _p_pair(g.mcnemar.p_value, adjusted),
    ]


_HOLM = (
    "Holm-adjusted over every p-value of the comparison (each bucket, each persona, "
    "each check, overall, and the paired McNemar rows): one family, so an unchanged agent shows an "
    "adjusted p < 0.05 anywhere at most 5% of the time; a row where a run has no sessions "
    "('no sessions') has no test and is left out of the family"
)
_TESTS = (
    "test: McNemar's exact test when every session of the row is paired (same key and "
    "seed), Fisher's exact test when none is, otherwise (Newcombe) the p-value of the "
    "partly paired interval"
)


_CHANGE_INTERVAL = (
    "Newcombe's hybrid-score interval, paired when the row holds the same keys with the "
    "same seeds in both runs, for independent samples when it holds no such pair (runs "
    "with different seeds), and in between with the pairs' correlation scaled by their "
    "share otherwise"
)


def _level(c: Comparison) -> str:
    return f"{c.level:.0%}"


def bucket_section(c: Comparison) -> Section:
    """Per-run pass rates by planned-length bucket, each run's share of sessions, the change."""
    shares = {s.name: s for s in c.simpson.buckets}
    rows: list[list[Cell]] = []
    for g in c.by_bucket:
        s = shares[g.name]
        rows.append(
            [
                g.name,
                *_rate_cells(g),
                f"{s.share_a:.1%}",
                f"{s.share_b:.1%}",
                str(g.shared.n),
                *_test_cells(c, g, f"bucket:{g.name}"),
            ]
        )
    rows.append(
        [
            "overall",
            *_rate_cells(c.overall),
            "100%",
            "100%",
            str(c.overall.shared.n),
            *_test_cells(c, c.overall, "overall"),
        ]
    )
    lv = _level(c)
    return Section(
        "Pass rate by planned length",
        [
            "Bucket",
            f"A [{lv} CI]",
            f"B [{lv} CI]",
            "Change, pts [CI]",
            "A share",
            "B share",
            "Paired keys",
            "Test",
            "p / Holm p",
        ],
        rows,
        {1, 2, 3, 4, 5, 6, 8},
        "Each run's graded sessions, bucketed by their planned length (the user turns the "
        "session's plan needs, fixed before it ran; 'unplanned': recorded without a plan), "
        "with Wilson intervals; "
        f"the change is B - A with {_CHANGE_INTERVAL}; a share is the bucket's share of the "
        "run's graded sessions; paired keys: same key and seed in both runs and in the bucket "
        f"in both; {_TESTS}; p / Holm p: the raw p-value, then {_HOLM}.",
    )


def paired_section(c: Comparison) -> Section:
    """Paired outcomes by planned-length bucket with McNemar's exact test."""
    if not c.pairing.pairs:
        return Section(
            "Paired outcomes by length bucket",
            ["Pairs"],
            [],
            note=f"No key is paired: {NOT_PAIRED_MESSAGE}.",
        )
    rows: list[list[Cell]] = [[g.name, *_paired_cells(c, g)] for g in c.by_bucket if g.paired.n]
    overall = _paired_cells(c, c.overall)
    # every session paired: one test, one p
    same_test = c.overall.test is not None and c.overall.test.name == "McNemar"
    adjusted = c.p_adjusted["overall"] if same_test else None
    overall[-1] = f"{_p(c.overall.mcnemar.p_value)} / {'-' if adjusted is None else _p(adjusted)}"
    rows.append(["overall", *overall])
    return Section(
        "Paired outcomes by planned length",
        [
            "Bucket",
            "Pairs",
            "Both pass",
            "Regressed",
            "Fixed",
            "Both fail",
            "Change, pts [CI]",
            "McNemar p / Holm p",
        ],
        rows,
        set(range(1, 8)),
        "Keys graded in both runs with the same seed, in the bucket they are planned in in "
        f"both runs; {c.bucket_moves} pair(s) are planned in two buckets and count in the "
        "overall row only. The change is (fixed - regressed) / pairs with Newcombe's paired "
        f"{_level(c)} interval; McNemar: exact two-sided test on regressed vs fixed; "
        f"Holm p: {_HOLM}. {_overall_holm_note(same_test)}",
    )


def _overall_holm_note(same_test: bool) -> str:
    """Why the paired overall row's Holm p is the pass-rate table's, or '-'."""
    if same_test:
        return (
            "The overall row's test is the overall row of 'Pass rate by planned length' "
            "(every session is paired), counted once in the family: the same Holm p."
        )
    return (
        "The overall row's Holm p is '-': not every session is paired, so this McNemar test "
        "on the pairs alone is not in the family; the overall row of 'Pass rate by planned "
        "length' tests every session and carries the adjusted p."
    )


def _rates_section(
    c: Comparison, title: str, first: str, groups: list[tuple[str, GroupComparison]], note: str
) -> Section:
    """Per-run pass rates of named groups, with the paired discordant counts and tests;
    ``groups`` pairs each Holm family name with its group."""
    rows: list[list[Cell]] = []
    for family, g in groups:
        paired = [str(g.paired.regressed), str(g.paired.fixed)] if c.pairing.pairs else ["-"] * 2
        rows.append([g.name, *_rate_cells(g), *paired, *_test_cells(c, g, family)])
    lv = _level(c)
    headers = [first, f"A [{lv} CI]", f"B [{lv} CI]", "Change, pts [CI]", "Regressed", "Fixed"]
    return Section(title, [*headers, "Test", "p / Holm p"], rows, {1, 2, 3, 4, 5, 7}, note)


def persona_section(c: Comparison) -> Section:
    """Per-run pass rates by persona, with the paired discordant counts."""
    groups = [(f"persona:{g.name}", g) for g in c.by_persona] + [("overall", c.overall)]
    return _rates_section(
        c,
        "Pass rate by persona",
        "Persona",
        groups,
        f"The change is B - A with {_CHANGE_INTERVAL}; regressed / fixed: paired keys that "
        f"passed in one run only; {_TESTS}; p / Holm p: the raw p-value, then {_HOLM}.",
    )


def check_section(c: Comparison) -> Section:
    """Each check's pass rate in both runs: where a regression comes from, a user's own
    grader included."""
    return _rates_section(
        c,
        "Pass rate by check",
        "Check",
        [(f"check:{g.name}", g) for g in c.by_check],
        "Each check over the graded sessions that carry it (a goal without the check's "
        f"subject does not count); the change is B - A with {_CHANGE_INTERVAL}; regressed / "
        "fixed: paired keys whose check passed in one run only; "
        f"{_TESTS}; p / Holm p: the raw p-value, then {_HOLM}.",
    )


def _spread_change(
    delta: float, ci: tuple[float, float] | None, n_cells: int, no_spread: bool = False
) -> str:
    if no_spread:  # every resample agreed: a zero-width interval would overstate it
        return f"{_signed(delta)} (no spread in {n_cells} cells)"
    if ci is None:  # one cell: a bootstrap would print a zero-width interval
        return f"{_signed(delta)} [n/a, {n_cells} cell]"
    return f"{_signed(delta)} [{_signed(ci[0])}, {_signed(ci[1])}]"


def _spread_row(s: SpreadDelta) -> list[Cell]:
    return [
        s.name,
        str(s.n_cells),
        _num(s.aptitude_a),
        _num(s.aptitude_b),
        _spread_change(s.aptitude_delta, s.aptitude_delta_ci, s.n_cells, s.aptitude_no_spread),
        _num(s.unreliability_a),
        _num(s.unreliability_b),
        _spread_change(
            s.unreliability_delta, s.unreliability_delta_ci, s.n_cells, s.unreliability_no_spread
        ),
    ]


def spread_section(c: Comparison) -> Section:
    """Aptitude and unreliability, A, B and the change, per persona then overall."""
    ordered = [s for s in c.spread if s.name != "overall"] + [
        s for s in c.spread if s.name == "overall"
    ]
    return Section(
        "Aptitude and unreliability (mean over cells)",
        [
            "Group",
            "Cells",
            "Aptitude A",
            "Aptitude B",
            "Change [CI]",
            "Unreliability A",
            "Unreliability B",
            "Change [CI]",
        ],
        [_spread_row(s) for s in ordered],
        set(range(1, 8)),
        "Per cell (persona, goal, mode, perturbations) graded in both runs: aptitude = P90 "
        "of scores, unreliability = P90 - P10 (both depend on the repetitions per cell); the "
        f"change is B - A per cell, averaged, with a seeded two-level bootstrap {_level(c)} "
        "interval (cells, then each run's repetitions within them; none from a single "
        "cell).",
    )


def regression_section(c: Comparison, base: Path, max_listed: int) -> Section:
    """The keys that passed in A and failed in B, linked to B's transcript."""
    if not c.pairing.pairs and c.pairing.unpaired:
        return Section(
            "Regressions: not listed",
            ["Session"],
            [],
            note=f"{NOT_PAIRED_MESSAGE[0].upper()}{NOT_PAIRED_MESSAGE[1:]}.",
        )
    if not c.regressions:  # said in a line, not as an empty table
        return Section(
            "No regressions",
            ["Session"],
            [],
            note=f"none of the {len(c.pairing.pairs)} paired sessions passed in A and failed in B.",
        )
    rows: list[list[Cell]] = []
    for r in c.regressions[:max_listed]:
        links: list[Cell] = list(transcript_links(c, r.line_b, r.html_anchor, base))
        score = (
            f"{_num(r.score_a)} -> {_num(r.score_b)}"
            if r.score_a is not None and r.score_b is not None
            else "n/a"
        )
        rows.append([r.key.id, score, ", ".join(r.broken_checks) or "-", *links])
        rows[-1] += [""] * (5 - len(rows[-1]))
    more = len(c.regressions) - max_listed
    return Section(
        f"Regressions: passed in A, failed in B ({len(c.regressions)})",
        ["Session", "Score A -> B", "Checks broken", "Transcript (B)", "HTML report (B)"],
        rows,
        {1},
        f"{more} more not listed." if more > 0 else "",
    )


def safety_section(c: Comparison, base: Path, max_listed: int) -> Section:
    """New safety violations."""
    rows: list[list[Cell]] = [
        [v.key.id, v.check, v.detail, transcript_links(c, v.line_b, v.html_anchor, base)[0]]
        for v in c.safety[:max_listed]
    ]
    return Section(
        f"New safety violations ({len(c.safety)})",
        ["Session", "Check", "Detail (B)", "Transcript (B)"],
        rows,
        note="A check named safety:* or canary* that passed in A and failed in B on the same key.",
    )


def error_section(c: Comparison, max_listed: int) -> Section:
    """Error sessions of both runs, never counted as passes or failures."""
    rows: list[list[Cell]] = [
        [e.run, e.key.id, e.stop_reason, e.error, str(e.line)] for e in c.errors[:max_listed]
    ]
    more = len(c.errors) - max_listed
    return Section(
        f"Errors, not counted as passes or failures ({len(c.errors)})",
        ["Run", "Session", "Stop reason", "Error", "Line"],
        rows,
        {4},
        f"{more} more not listed." if more > 0 else "",
    )


def pairing_section(c: Comparison) -> Section:
    """How the sessions of A and B matched."""
    p = c.pairing
    rows: list[list[Cell]] = [
        ["sessions in A", str(c.sessions_a)],
        ["sessions in B", str(c.sessions_b)],
        ["paired (graded in both, same seed)", str(len(p.pairs))],
        ["graded in both, not paired (other seed or settings)", str(len(p.unpaired))],
        ["in both, an error on a side", str(p.with_error)],
        ["only in A", str(len(p.only_a))],
        ["only in B", str(len(p.only_b))],
    ]
    return Section("Pairing by key", ["", "Sessions"], rows, {1})


def trajectory_section(c: Comparison) -> Section:
    """Mean LCS precision and recall of the tool calls in A and B, with the change."""

    def mean(x: float | None, n: int) -> str:
        return "n/a" if x is None else f"{x:.2f} (n={n})"

    rows: list[list[Cell]] = [
        [d.group, d.metric, mean(d.a, d.n_a), mean(d.b, d.n_b), pts(d.delta),
         ci_pts(d.delta_ci), "paired" if d.paired else "independent",
         " -> ".join(x or "ok" for x in (d.label(d.a), d.label(d.b)))]
        for d in c.trajectory
    ]  # fmt: skip
    return Section(
        "Tool-call trajectory (LCS precision and recall)",
        [
            *("Group", "Metric", "A", "B", "Change (points)"),
            f"{_level(c)} CI",
            *("Interval", "Label A -> B"),
        ],
        rows,
        {4},
        note="Precision: right calls / calls made (low: wasteful); recall: right calls / "
        "calls expected (low: gave up early); means over graded sessions; bootstrap "
        "interval of the change, over paired keys when every session is paired.",
    )


def gate_section(results: list[GateResult]) -> Section:
    """Each gate's verdict."""
    rows: list[list[Cell]] = [[r.name, r.status.upper(), r.message] for r in results]
    return Section("Gates", ["Gate", "Result", "Detail"], rows)


def build_sections(
    c: Comparison, gates: list[GateResult], base: Path, max_listed: int = 50
) -> list[Section]:
    """Every table of the comparison, in reading order (the Simpson warning is separate)."""
    sections = [
        gate_section(gates),
        bucket_section(c),
        paired_section(c),
        persona_section(c),
    ]
    if c.by_check:
        sections.append(check_section(c))
    if c.spread:
        sections.append(spread_section(c))
    if c.trajectory:
        sections.append(trajectory_section(c))
    sections.append(regression_section(c, base, max_listed))
    sections.extend(side_by_side_sections(c, _num))
    if c.safety:
        sections.append(safety_section(c, base, max_listed))
    if c.errors:
        sections.append(error_section(c, max_listed))
    sections.append(pairing_section(c))
    return sections
