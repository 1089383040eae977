"""A suite's prefix regression cases, replayed to its target after the run."""

from __future__ import annotations

from pathlib import Path

from simlab.engine import build_roles
from simlab.replay._case import load_prefix_cases
from simlab.replay._prefix import PrefixResult, reproduction_rate, run_prefix_case
from simlab.spec import Suite
from simlab.store import (
    PREFIX_CASES_FILE,
    PrefixCaseOutcome,
    PrefixCases,
    Reproduction,
    write_json,
)


async def run_suite_prefix_cases(
    suite: Suite, suite_dir: Path, run_dir: Path
) -> list[PrefixResult]:
    """Replay every case of ``suite.prefix_cases``; write and return the results.

    ``prefix_cases.json`` holds each case's outcomes (broken, kept, no action,
    errors; the keep-rate over continuations that acted) and the reproduction
    rate of the cases whose logged reply broke a constraint.
    """
    paths = [p if p.is_absolute() else suite_dir / p for p in map(Path, suite.prefix_cases)]
    cases = load_prefix_cases(paths)
    roles = build_roles(suite, suite_dir, parts=("agent",))
    results = []
    try:
        for case in cases:
            domain = roles.domains.of(case.domain) if roles.domains is not None else None
            results.append(
                await run_prefix_case(case, roles.target, seed=suite.seed, domain=domain)
            )
    finally:
        await roles.aclose()
    rows = [
        PrefixCaseOutcome(
            case=r.case_id,
            logged=r.logged,
            kept=r.kept,
            broken=r.broken,
            no_action=r.no_action,
            n=r.n,
            errors=r.errors,
            keep_rate=r.keep_rate,
            keep_ci=r.ci,
            reproduced=r.reproduced,
            restored=r.restored,
            diverged=r.diverged,
        )
        for r in results
    ]
    rate = reproduction_rate(results)
    reproduction = Reproduction(
        reproduced=rate.reproduced, n=rate.n, rate=rate.rate, ci=rate.ci, not_breaks=rate.not_breaks
    )
    written = PrefixCases(seed=suite.seed, cases=rows, reproduction=reproduction)
    write_json(run_dir / PREFIX_CASES_FILE, written.model_dump(mode="json"))
    return results
