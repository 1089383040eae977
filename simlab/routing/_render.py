"""``simlab routing``'s tables as plain text (every figure with its n and interval)."""

from __future__ import annotations

from collections.abc import Sequence

from simlab.routing._analysis import RoutingReport
from simlab.routing._plan import PolicyRow
from simlab.routing._steps import Hazard

_DASH = "—"


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join([title, line, "  ".join("-" * w for w in widths), *body])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _hazard(h: Hazard) -> str:
    if not h.n:
        return f"{_DASH} (0/0)"
    return f"{_pct(h.failed / h.n)} ({h.failed}/{h.n}) [{_pct(h.ci[0])}, {_pct(h.ci[1])}]"


def _step_name(step: int, steps: int) -> str:
    return f"{step}+" if step == steps else str(step)


def _with_ci(shown: str, lo: str, hi: str) -> str:
    # a zero-width interval would overstate: every resample agreed
    return f"{shown} (no spread in the resamples)" if lo == hi else f"{shown} [{lo}, {hi}]"


def _money(value: tuple[float, tuple[float, float] | None] | None) -> str:
    if value is None:
        return _DASH
    x, ci = value
    if ci is None:
        return f"${x:.6f}"
    return _with_ci(f"${x:.6f}", f"{ci[0]:.6f}", f"{ci[1]:.6f}")


def _rate(value: tuple[float, tuple[float, float] | None] | None) -> str:
    if value is None:
        return f"{_DASH} (a step's model has no session there)"
    x, ci = value
    return _pct(x) if ci is None else _with_ci(_pct(x), _pct(ci[0]), _pct(ci[1]))


def _policy_row(p: PolicyRow, steps: int) -> list[str]:
    route = " ".join(f"{_step_name(i + 1, steps)}:{m}" for i, m in enumerate(p.by_step))
    return [
        p.name,
        route,
        str(p.n),
        _money(p.cost),
        _rate(p.failure),
        _money(p.cost_per_pass),
        f"{p.switches:.2f}",
        _pct(p.cache_share),
    ]


def render_routing(r: RoutingReport) -> str:
    """The report: runs, the step x model matrix, the assignment, the policies' costs."""
    steps = [_step_name(s, r.steps) for s in range(1, r.steps + 1)]
    runs = [
        [f.model, str(f.path), str(f.n), f"{_pct(f.failed / f.n)} ({f.failed}/{f.n}) "
         f"[{_pct(f.ci[0])}, {_pct(f.ci[1])}]"]
        for f in r.runs
    ]  # fmt: skip
    matrix = [[m, *(_hazard(h) for h in r.matrix[m])] for m in r.ranked]
    figure = "estimate" if r.rule == "estimate" else "upper bound of its interval"
    choices = [
        [_step_name(c.step, r.steps), c.model, _hazard(c.hazard),
         "yes" if c.within else "no: none is, lowest rate taken",
         "yes" if c.shown else "no (more sessions needed to show it)"]
        for c in r.choices
    ]  # fmt: skip
    policies = [_policy_row(p, r.steps) for p in r.policies]
    base = r.runs[0]
    parts = [
        _table("Runs (the first is the base run whose sessions are priced)",
               ["model", "run", "n graded", "sessions failed [95% CI]"], runs),
        _table(f"First-failure rate by step (agent turn; {steps[-1]} pools the rest) and "
               "model, cheapest model first: failed at the step / reached it [95% Wilson]",
               ["model", *(f"step {s}" for s in steps)], matrix),
        _table(f"Cheapest assignment with each step's first-failure rate ({figure}) within "
               f"{_pct(r.budget)}", ["step", "model", "rate (n) [95% CI]",
               "within budget", "upper bound within"], choices),
        _table(f"Cost of the base run's sessions ({base.model}) routed, with prompt caching "
               "(a model switch finds a cold cache); failure predicted from the matrix; "
               "[95% bootstrap]",
               ["policy", "model by step", "n", "USD per session", "predicted failure",
                "USD per passing session", "switches", "cache read"], policies),
        "Recorded agent cost of the base run: "
        f"{'unknown' if r.recorded_usd is None else f'${r.recorded_usd:.6f}'} per session "
        f"(n={base.n}). Per-turn tokens are apportioned from each session's recorded agent "
        "usage by the history its turns carried (one call per turn assumed).",
    ]  # fmt: skip
    return "\n\n".join(parts) + "\n"
