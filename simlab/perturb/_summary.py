"""Brittleness figures: Kaplan-Meier curves, medians, survivors, what broke it, log-rank.

Everything here is a pure function of the chains, and every figure written
to ``brittleness.json`` can be recomputed from ``brittleness_sessions.jsonl``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from simlab.perturb._brittleness import BrittlenessResult, SessionBrittleness, TargetBrittleness
from simlab.stats import KaplanMeier, kaplan_meier, log_rank, wilson_interval

Curve = list[tuple[float, float, float, float]]


def curve_of(km: KaplanMeier) -> Curve:
    """``(t, survival, lo, hi)`` steps from t = 0 (everyone passing), for the report's chart."""
    out: Curve = [(0.0, 1.0, 1.0, 1.0)]
    out += [(float(s.t), s.survival, s.ci[0], s.ci[1]) for s in km.steps if s.t > 0]
    return out


def group_summary(sessions: Sequence[SessionBrittleness], max_k: int) -> dict[str, Any]:
    """The figures of one group of chains (a persona, or everything).

    Keys: ``n``, ``failed``, ``censored``, ``median`` (Kaplan-Meier; None when
    survival never reaches 0.5), ``survived_all`` with ``survived_all_share``
    and its Wilson ``survived_all_ci`` (censored at ``max_k``: every
    perturbation stacked and still passing), ``broke_by`` (the perturbation
    whose addition broke each failing chain, counted), ``curve``.
    """
    times = [s.k for s in sessions]
    events = [s.event for s in sessions]
    n = len(sessions)
    survived = sum(1 for s in sessions if not s.event and s.k == max_k)
    km = kaplan_meier(times, events) if sessions else None
    killers = Counter(s.broke_by for s in sessions if s.broke_by is not None)
    return {
        "n": n,
        "failed": sum(events),
        "censored": n - sum(events),
        "median": km.median if km else None,
        "survived_all": survived,
        "survived_all_share": survived / n if n else None,
        "survived_all_ci": list(wilson_interval(survived, n)) if n else None,
        "broke_by": dict(sorted(killers.items(), key=lambda kv: (-kv[1], kv[0]))),
        "curve": [list(step) for step in curve_of(km)] if km else [],
    }


def _target_summary(t: TargetBrittleness, max_k: int) -> dict[str, Any]:
    personas = sorted({s.key.persona for s in t.sessions})
    return {
        "n_baseline": t.n_baseline,
        "n_baseline_errors": t.n_errors,
        "n_passed_baseline": len(t.sessions),
        "overall": group_summary(t.sessions, max_k),
        "by_persona": {
            p: group_summary([s for s in t.sessions if s.key.persona == p], max_k) for p in personas
        },
        "sessions": [
            {
                "key": s.key.model_dump(mode="json"),
                "order": list(s.order),
                "k": s.k,
                "event": s.event,
                "broke_by": s.broke_by,
                "error": s.error,
            }
            for s in t.sessions
        ],
    }


def comparison(a: TargetBrittleness, b: TargetBrittleness) -> dict[str, Any]:
    """The log-rank test of ``a``'s survival curve against ``b``'s."""
    test = log_rank(
        [s.k for s in a.sessions],
        [s.event for s in a.sessions],
        [s.k for s in b.sessions],
        [s.event for s in b.sessions],
    )
    return {
        "a": a.target,
        "b": b.target,
        "n": [len(a.sessions), len(b.sessions)],
        "chi2": test.chi2,
        "p_value": test.p_value,
        "observed": list(test.observed),
        "expected": list(test.expected),
    }


def brittleness_summary(result: BrittlenessResult) -> dict[str, Any]:
    """The content of ``brittleness.json``.

    ``curves`` maps each target to its overall curve ``[(t, survival, lo, hi)]``
    (the HTML report draws those); ``comparison`` is the log-rank test of the
    first target against the second when there are two.
    """
    targets = list(result.targets.values())
    return {
        "schema_version": 1,
        "perturbations": list(result.perturbations),
        "max_k": result.max_k,
        "targets": {t.target: _target_summary(t, result.max_k) for t in targets},
        "curves": {t.target: group_summary(t.sessions, result.max_k)["curve"] for t in targets},
        "comparison": comparison(targets[0], targets[1]) if len(targets) >= 2 else None,
    }
