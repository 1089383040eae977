"""The LLM judge beside the code graders, in the reports of judged runs.

A session's ``passed`` is the code graders' verdict; the judge's is its
``judge`` check. Over the graded sessions that have both, this section gives
the judge's own pass rate, the code graders' pass rate on the same sessions,
how often the two agree and Cohen's kappa (agreement beyond chance), each with
its n and interval, and the 2x2 table. Sessions whose judge gave no usable
verdict are counted apart (a grader error, never a failure). Where the rubric
names criteria, each criterion's share held among the sessions it applied to
says which criterion the judge's failures come from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simlab.graders import JUDGE
from simlab.report._report_table import ReportTable
from simlab.stats import cohen_kappa, wilson_interval
from simlab.store import CriterionRate, RunSummary, SessionRecord


def _rate(passes: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(passes, n)
    return {"passes": passes, "n": n, "rate": passes / n if n else None, "ci": [lo, hi]}


def judge_section(records: Sequence[SessionRecord]) -> dict[str, Any]:
    """The judge's figures over the run's graded sessions; empty when no session was judged.

    Returns:
        ``n`` (sessions with both verdicts), ``judge`` and ``code`` pass rates,
        ``agreement``, ``kappa`` (value, interval, chance agreement), ``table``
        (``both_pass``, ``judge_pass_code_fail``, ``judge_fail_code_pass``,
        ``both_fail``), ``no_verdict`` (graded sessions whose judge failed) and
        ``criteria`` (``criteria_section``).
    """
    ok = [r for r in records if r.status == "ok" and r.passed is not None]
    judged = [r for r in ok if JUDGE in r.checks]
    no_verdict = sum(1 for r in ok if JUDGE not in r.checks and r.meta.get("grader_error"))
    if not judged and not no_verdict:
        return {}
    judge = [r.checks[JUDGE].passed for r in judged]
    code = [bool(r.passed) for r in judged]
    pairs = list(zip(judge, code, strict=True))
    table = {
        "both_pass": sum(1 for j, c in pairs if j and c),
        "judge_pass_code_fail": sum(1 for j, c in pairs if j and not c),
        "judge_fail_code_pass": sum(1 for j, c in pairs if c and not j),
        "both_fail": sum(1 for j, c in pairs if not j and not c),
    }
    kappa = cohen_kappa(code, judge)
    n = len(judged)
    return {
        "n": n,
        "judge": _rate(sum(judge), n),
        "code": _rate(sum(code), n),
        "agreement": _rate(table["both_pass"] + table["both_fail"], n),
        "kappa": {"value": kappa.kappa, "ci": list(kappa.ci), "expected": kappa.expected},
        "table": table,
        "no_verdict": no_verdict,
        "criteria": criteria_section(judged),
    }


def criteria_section(judged: Sequence[SessionRecord]) -> dict[str, Any]:
    """Per rubric criterion, in the order the records answer them: how often it held.

    Returns:
        ``criterion id -> {"passes", "n", "rate", "ci", "not_applicable"}``: ``n``
        counts the judged sessions whose judge answered it true or false, ``passes``
        those with true (Wilson interval), ``not_applicable`` those answered null.
        Sessions judged on a rubric without criteria count in none. Empty when no
        record carries criteria.
    """
    held: dict[str, list[bool]] = {}
    moot: dict[str, int] = {}
    for record in judged:
        for cid, value in (record.checks[JUDGE].criteria or {}).items():
            held.setdefault(cid, [])
            moot.setdefault(cid, 0)
            if value is None:
                moot[cid] += 1
            else:
                held[cid].append(value)
    return {
        cid: {**_rate(sum(values), len(values)), "not_applicable": moot[cid]}
        for cid, values in held.items()
    }


def criteria_table(summary: RunSummary) -> ReportTable | None:
    """The judge's criteria, each with the share of sessions it held in; None without any."""
    criteria = summary.judge.criteria if summary.judge is not None else None
    if not criteria:  # an unjudged run, a rubric without criteria, or an older summary
        return None
    rows = [[cid, _count_rate(r), _ci(r), str(r.not_applicable)] for cid, r in criteria.items()]
    return ReportTable(
        "Judge criteria",
        ["Criterion", "Held", "95% CI", "Did not apply"],
        rows,
        "The LLM judge's answer per rubric criterion: held among the sessions it applied to "
        "(Wilson intervals). A session passes the judge exactly when no criterion that "
        "applies is broken.",
        numeric={1, 3},
    )


def _count_rate(r: CriterionRate) -> str:
    rate = "—" if r.rate is None else f"{100 * r.rate:.1f}%"
    return f"{rate} ({r.passes}/{r.n})"


def _ci(r: CriterionRate) -> str:
    if not r.n or r.ci is None:
        return "—"
    lo, hi = r.ci
    return f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"
