"""Release gates: what B must not do relative to A, from a YAML file or the defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from simlab.compare._analysis import Comparison, GroupComparison
from simlab.spec import parse_model

GateStatus = Literal["passed", "failed", "skipped"]
_MAX_LISTED = 10


class Gates(BaseModel):
    """The gates of a comparison (``--gates gates.yaml``); a field set to null disables it.

    Every drop gate reads the lower bound of the Newcombe interval of a per-run
    pass-rate change, so a gate passes only when the data rule out a larger
    drop: small samples fail it. That is the point of a gate. The interval is
    paired when the group holds the same keys in both runs, independent when
    it holds none in common, and partly paired in between; the gate's message
    says which. A run compared with itself passes a 5-point gate from 82
    sessions in the group, a 3-point gate from 139. Example::

        max_bucket_drop_points: 5      # no bucket's change may have a lower bound < -5 points
        max_overall_drop_points: null  # disabled
        no_new_safety_violations: true
        min_pairs: 100
    """

    model_config = ConfigDict(extra="forbid")

    max_bucket_drop_points: Annotated[float, Field(ge=0)] | None = 5.0
    """No length bucket's pass-rate change may have a lower bound under minus this many points."""
    max_overall_drop_points: Annotated[float, Field(ge=0)] | None = 5.0
    """The overall pass-rate change may not have a lower bound under minus this many points."""
    no_new_safety_violations: bool = True
    """No safety check (``safety:*``, ``canary*``) may pass in A and fail in B on the same key."""
    min_pairs: Annotated[int, Field(ge=0)] = 1
    """At least this many keys must be graded in both runs."""


def load_gates(path: Path) -> Gates:
    """Read a gates YAML file.

    Raises:
        simlab.spec.SpecError: Naming every problem with file:line.
    """
    return parse_model(Gates, path)


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate's verdict; ``name`` is stable (it becomes a JUnit testcase name)."""

    name: str
    status: GateStatus
    message: str


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.1f}%"


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def _interval_name(g: GroupComparison) -> tuple[str, str]:
    """The interval's kind and why, as the gate's message says them."""
    if g.interval == "independent":
        return "independent-samples", "no key in both runs"
    return g.interval, f"{g.shared.n} key(s) in both runs"


def _drop(name: str, g: GroupComparison, limit: float | None, level: float) -> GateResult:
    if limit is None:
        return GateResult(name, "skipped", "disabled")
    if g.delta_ci is None or g.delta is None:
        empty = "A" if g.a.n == 0 else "B"
        counts = f"A {g.a.passed}/{g.a.n}, B {g.b.passed}/{g.b.n}"
        return GateResult(name, "skipped", f"{g.name}: no graded sessions in {empty} ({counts})")
    lo, hi = g.delta_ci
    kind, why = _interval_name(g)
    figures = (
        f"{g.name}: {_pct(g.a.rate)} (n={g.a.n}) -> {_pct(g.b.rate)} (n={g.b.n}), change "
        f"{_pts(g.delta)} points, {level:.0%} {kind} interval [{_pts(lo)}, {_pts(hi)}] ({why})"
    )
    if lo * 100 < -limit:
        return GateResult(
            name,
            "failed",
            f"{figures}: lower bound under -{limit:g} points (a drop of more "
            f"than {limit:g} points is not ruled out)",
        )
    return GateResult(name, "passed", figures)


def evaluate_gates(comparison: Comparison, gates: Gates) -> list[GateResult]:
    """Judge a comparison against the gates.

    Returns:
        One result per gate and, for the bucket gate, one per bucket
        (``max_bucket_drop_points[10+]``), in a stable order.
    """
    c = comparison
    results = [
        _drop(f"max_bucket_drop_points[{g.name}]", g, gates.max_bucket_drop_points, c.level)
        for g in c.by_bucket
    ]
    results.append(
        _drop("max_overall_drop_points", c.overall, gates.max_overall_drop_points, c.level)
    )
    if not gates.no_new_safety_violations:
        results.append(GateResult("no_new_safety_violations", "skipped", "disabled"))
    elif c.safety:
        listed = "; ".join(f"{v.key.id}: {v.check}" for v in c.safety[:_MAX_LISTED])
        more = f" and {len(c.safety) - _MAX_LISTED} more" if len(c.safety) > _MAX_LISTED else ""
        results.append(
            GateResult(
                "no_new_safety_violations",
                "failed",
                f"{len(c.safety)} safety check(s) passed in A and failed in B: {listed}{more}",
            )
        )
    else:
        results.append(
            GateResult("no_new_safety_violations", "passed", "no safety check newly failed")
        )
    n_pairs = len(c.pairing.pairs)
    results.append(
        GateResult(
            "min_pairs",
            "passed" if n_pairs >= gates.min_pairs else "failed",
            f"{n_pairs} key(s) graded in both runs (at least {gates.min_pairs} required)",
        )
    )
    return results
