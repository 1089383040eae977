"""The report's tables as plain strings, shared by the terminal and markdown renderers.

Every pass rate travels with its n and Wilson interval, every aptitude and
unreliability with its bootstrap interval; the overall figure comes last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_DASH = "—"
_K_SHOWN = (1, 2, 3, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100)


@dataclass(frozen=True, slots=True)
class ReportTable:
    """A titled table of already-formatted cells."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""
    numeric: set[int] = field(default_factory=set)  # right-aligned columns


Section = ReportTable | str
"""A table, or a line of text."""


def pct(x: float | None) -> str:
    """A 0-1 rate as a percentage."""
    return _DASH if x is None else f"{100 * x:.1f}%"


def pct_ci(ci: list[float] | None) -> str:
    """A 0-1 interval as percentages."""
    return _DASH if ci is None else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"


def score(x: float | None, ci: list[float] | None = None) -> str:
    """A 0-100 figure, with its interval when there is one."""
    if x is None:
        return _DASH
    return f"{x:.1f}" if ci is None else f"{x:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"


def _pass_cells(row: dict[str, Any]) -> list[str]:
    return [str(row["n"]), pct(row["pass_rate"]), pct_ci(row["pass_ci"])]


def _spread_cells(row: dict[str, Any]) -> list[str]:
    return [
        score(row["aptitude"], row["aptitude_ci"]),
        score(row["unreliability"], row["unreliability_ci"]),
    ]


_PASS_HEAD = ["n", "Pass rate", "95% CI"]
_SPREAD_HEAD = ["Aptitude [95% CI]", "Unreliability [95% CI]"]


def _by_persona(s: dict[str, Any]) -> ReportTable:
    rows = []
    for name, r in s["by_persona"].items():
        gave_up = f"{pct(r['gave_up_rate'])} ({r['gave_up']}/{r['gave_up_n']})"
        walked = f"{pct(r['walked_out_rate'])} ({r['walked_out']}/{r['gave_up_n']})"
        rows.append(
            [
                name,
                *_pass_cells(r),
                *_spread_cells(r),
                str(r["n_cells"]),
                gave_up,
                walked,
                str(r["n_errors"]),
            ]
        )
    return ReportTable(
        "Pass rate by persona",
        ["Persona", *_PASS_HEAD, *_SPREAD_HEAD, "Cells", "Gave up", "Before any action", "Errors"],
        rows,
        "Aptitude = mean over cells of P90 score; unreliability = mean of P90 - P10. "
        "Before any action: gave up before the agent took the goal's final action.",
        numeric={1, 2, 6, 9},
    )


def _by_goal(s: dict[str, Any]) -> ReportTable:
    rows = [
        [name, *_pass_cells(r), *_spread_cells(r), str(r["n_cells"]), str(r["n_errors"])]
        for name, r in s["by_goal"].items()
    ]
    return ReportTable(
        "Pass rate by goal",
        ["Goal", *_PASS_HEAD, *_SPREAD_HEAD, "Cells", "Errors"],
        rows,
        numeric={1, 2, 6, 7},
    )


def _by_bucket(s: dict[str, Any]) -> ReportTable:
    rows = [
        [name, *_pass_cells(r), *_spread_cells(r), str(r["n_errors"])]
        for name, r in s["by_bucket"].items()
    ]
    return ReportTable(
        "Pass rate by conversation length (user turns)",
        ["Length", *_PASS_HEAD, *_SPREAD_HEAD, "Errors"],
        rows,
        "Within a length bucket a cell holds only its sessions of that length.",
        numeric={1, 2, 6},
    )


def _persona_bucket(s: dict[str, Any]) -> ReportTable:
    buckets = list(s["by_bucket"])
    rows = []
    for persona, cells in s["by_persona_bucket"].items():
        rows.append(
            [persona] + [f"{pct(cells[b]['pass_rate'])} (n={cells[b]['n']})" for b in buckets]
        )
    return ReportTable(
        "Pass rate by persona × length",
        ["Persona", *buckets],
        rows,
        "Wilson intervals per cell are in summary.json (by_persona_bucket).",
        numeric=set(range(1, len(buckets) + 1)),
    )


def _full_vs_sharded(s: dict[str, Any]) -> ReportTable:
    rows = []
    fvs = s["full_vs_sharded"]
    for mode, r in fvs.items():
        if mode == "sharded_minus_full":
            continue
        p = s["by_mode"][mode]
        rows.append(
            [
                mode,
                str(r["n_cells"]),
                *_pass_cells(p),
                score(r["mean_score"], r["mean_score_ci"]),
                *_spread_cells(r),
            ]
        )
    delta = fvs.get("sharded_minus_full")
    if delta is not None:
        rows.append(
            [
                "sharded − full (paired)",
                str(delta["n_pairs"]),
                _DASH,
                _DASH,
                _DASH,
                score(delta["mean_score"], delta["mean_score_ci"]),
                *_spread_cells(delta),
            ]
        )
    return ReportTable(
        "Full vs sharded",
        ["Mode", "Cells", *_PASS_HEAD, "Mean score [95% CI]", *_SPREAD_HEAD],
        rows,
        "Means over cells, bootstrap intervals over cells; the paired row pairs cells "
        "on persona, goal and perturbations.",
        numeric={1, 2, 3},
    )


def _pass_hat_k(s: dict[str, Any]) -> ReportTable:
    by_goal = s["pass_hat_k"]["by_goal"]
    overall = s["pass_hat_k"]["overall"]
    k_max = max((int(k) for g in by_goal.values() for k in g["k"]), default=0)
    ks = [k for k in _K_SHOWN if k <= k_max]
    rows = [
        [goal, str(g["tasks"]), str(g["n"]), str(g["passes"])]
        + [pct(g["k"].get(str(k))) for k in ks]
        for goal, g in by_goal.items()
    ]
    rows.append(
        [f"all goals ({overall['tasks']} cells)", _DASH, _DASH, _DASH]
        + [pct(overall["k"].get(str(k))) for k in ks]
    )
    return ReportTable(
        "pass^k by goal (all k trials pass)",
        ["Goal", "Cells", "n", "Passes", *[f"k={k}" for k in ks]],
        rows,
        "pass^k = C(passes, k) / C(reps, k) per cell (persona x goal x mode), averaged over "
        "the goal's cells for k up to its smallest number of reps.",
        numeric=set(range(1, 4 + len(ks))),
    )


def _errors(s: dict[str, Any]) -> Section:
    e = s["errors"]
    retries = "" if e["retries"] is None else f"; {e['retries']} retries in all"
    if e["n"] == 0:
        return f"No errors (0 of {e['n_sessions']} sessions{retries})."
    rows = [
        [reason, str(g["count"]), ", ".join(g["sessions"]), " / ".join(g["examples"]) or _DASH]
        for reason, g in e["by_stop_reason"].items()
    ]
    return ReportTable(
        f"Errors: {e['n']} of {e['n_sessions']} sessions, excluded from every rate",
        ["Stop reason", "Count", "Example sessions", "Example errors"],
        rows,
        f"Errors count neither as passes nor as failures{retries}.",
        numeric={1},
    )


def _cost(s: dict[str, Any]) -> str:
    c = s.get("cost") or {}
    if not c.get("calls"):
        return "LLM cost: none (no LLM role in this run)."
    roles = ", ".join(
        f"{role} ${r['cost_usd']:.4f} ({r['calls']} calls, {r['retries']} retries)"
        for role, r in c["by_role"].items()
    )
    replaced = c.get("replaced_sessions", 0)
    retried = f" (with {replaced} error sessions a retry replaced)" if replaced else ""
    return (
        f"LLM cost: ${c['total_usd']:.4f} over {c['calls']} calls{retried} — {roles}; "
        f"tokens in {c['input_tokens']:,}, cache read {c['cache_read_tokens']:,}, "
        f"cache write {c['cache_write_tokens']:,}, out {c['output_tokens']:,}."
    )


def _stop_reasons(s: dict[str, Any]) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in s["stop_reasons"].items())
    return f"Stop reasons: {counts or _DASH}."


def overall_line(s: dict[str, Any]) -> str:
    """The overall figure, with n, intervals and the errors left out."""
    o = s["overall"]
    return (
        f"Overall: pass rate {pct(o['pass_rate'])} {pct_ci(o['pass_ci'])} "
        f"(n={o['n']}, {o['n_errors']} errors excluded); "
        f"aptitude {score(o['aptitude'], o['aptitude_ci'])}; "
        f"unreliability {score(o['unreliability'], o['unreliability_ci'])} "
        f"over {o['n_cells']} cells."
    )


def build_sections(summary: dict[str, Any]) -> list[Section]:
    """Every table and line of a report, in order; the overall line is last."""
    return [
        _by_persona(summary),
        _by_goal(summary),
        _by_bucket(summary),
        _persona_bucket(summary),
        _full_vs_sharded(summary),
        _pass_hat_k(summary),
        _errors(summary),
        _cost(summary),
        _stop_reasons(summary),
        overall_line(summary),
    ]
