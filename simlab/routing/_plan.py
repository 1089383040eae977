"""The cheapest step -> model assignment within a failure budget, and routing policies.

Given runs of one suite on several models, each model gets a first-failure rate
per step (``simlab.routing.hazards``). The assignment takes, step by step, the
cheapest model whose rate is within the budget (``rule="estimate"``: the point
estimate, as a router tuned on these runs would; ``rule="upper"``: the upper end
of its interval, so small samples do not pass for safe); when none is, the model
with the lowest rate. Models are ranked by what the base run's sessions cost
when all their turns are on that model.

Three policies follow from an assignment, each priced on the base run's sessions
(``simlab.routing.route_cost``) and given a predicted failure rate (one minus
the chance of surviving each step's first-failure rate on the step's model):

* ``per_turn``: every turn on its step's model;
* ``sticky``: every turn on the model the first step gets;
* ``sticky_escalate``: start on the first step's model, move to a pricier one at
  the first step whose model is pricier, and stay.

Intervals come from one bootstrap: each model's sessions and the base sessions
are resampled together, and the matrix, the cost and the failure rate of every
policy recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from simlab.llm import Pricing
from simlab.routing._cost import TurnTokens, route_cost
from simlab.routing._steps import Hazard, SessionPath, hazards, step_of

Rule = Literal["estimate", "upper"]
POLICIES = ("per_turn", "sticky", "sticky_escalate")


@dataclass(frozen=True, slots=True)
class ModelRun:
    """One model's graded sessions: their paths through the steps."""

    model: str
    paths: list[SessionPath]


@dataclass(frozen=True, slots=True)
class BaseSession:
    """A session of the base run: its path and its agent turns' tokens."""

    path: SessionPath
    tokens: list[TurnTokens]


@dataclass(frozen=True, slots=True)
class StepChoice:
    """The model a step gets, and whether its rate is within the budget.

    Attributes:
        step: 1-based; the last one pools the turns from it on.
        model: The chosen model.
        hazard: Its first-failure rate at this step.
        within: The rule's figure (estimate or upper bound) is within the budget.
        shown: Even the upper bound is within the budget.
    """

    step: int
    model: str
    hazard: Hazard
    within: bool
    shown: bool


@dataclass(frozen=True, slots=True)
class PolicyRow:
    """A routing priced on the base sessions, with intervals.

    Attributes:
        name: ``per_turn``, ``sticky``, ``sticky_escalate`` or ``all MODEL``.
        by_step: The model of each step.
        n: Base sessions priced.
        cost: Mean USD per session and its interval.
        failure: Predicted session failure rate and its interval (None when a step's
            model has no session there).
        cost_per_pass: Mean cost over the predicted pass rate, and its interval.
        switches: Mean model switches per session.
        cache_share: Share of prompt tokens read from a cache.
    """

    name: str
    by_step: list[str]
    n: int
    cost: tuple[float, tuple[float, float] | None]
    failure: tuple[float, tuple[float, float] | None] | None
    cost_per_pass: tuple[float, tuple[float, float] | None] | None
    switches: float
    cache_share: float


def choose(
    matrix: dict[str, list[Hazard]], ranked: Sequence[str], budget: float, rule: Rule
) -> list[StepChoice]:
    """The cheapest model per step within ``budget`` (see the module docstring)."""
    steps = len(next(iter(matrix.values())))
    out = []
    for i in range(steps):

        def figure(model: str, i: int = i) -> float:
            h = matrix[model][i]
            if not h.n:  # no session there: nothing shows the model can do this step
                return 1.0
            return h.failed / h.n if rule == "estimate" else h.ci[1]

        ok = [m for m in ranked if matrix[m][i].n and figure(m) <= budget]
        # nothing within budget: the lowest rate, cheaper first on a tie
        model = ok[0] if ok else min(ranked, key=lambda m: (figure(m), ranked.index(m)))
        h = matrix[model][i]
        out.append(StepChoice(i + 1, model, h, figure(model) <= budget, h.ci[1] <= budget))
    return out


def policy_steps(assignment: Sequence[str], ranked: Sequence[str]) -> dict[str, list[str]]:
    """The model of each step under each policy, from the assignment's models."""
    escalated, top = [], assignment[0]
    for model in assignment:
        if ranked.index(model) > ranked.index(top):
            top = model
        escalated.append(top)
    return {
        "per_turn": list(assignment),
        "sticky": [assignment[0]] * len(assignment),
        "sticky_escalate": escalated,
    }


def _route(by_step: Sequence[str], turns: int) -> list[str]:
    return [by_step[step_of(t, len(by_step)) - 1] for t in range(1, turns + 1)]


def _failure(
    base: Sequence[SessionPath], by_step: Sequence[str], rates: dict[str, list[float | None]]
) -> float | None:
    steps = len(by_step)
    survive = []
    for p in base:
        alive = 1.0
        for s in range(step_of(p.turns, steps)):
            rate = rates[by_step[s]][s]
            if rate is None:
                return None
            alive *= 1.0 - rate
        survive.append(alive)
    return 1.0 - sum(survive) / len(survive) if survive else None


def _rates(runs: Sequence[ModelRun], steps: int) -> dict[str, list[float | None]]:
    return {r.model: [h.rate for h in hazards(r.paths, steps)] for r in runs}


def price_policies(
    runs: Sequence[ModelRun],
    base: Sequence[BaseSession],
    policies: dict[str, list[str]],
    prices: dict[str, Pricing],
    seed: int = 0,
    n_resamples: int = 500,
    level: float = 0.95,
) -> list[PolicyRow]:
    """Each policy priced on the base sessions, its predicted failure, with intervals."""
    steps = len(next(iter(policies.values())))
    costs = {
        name: [route_cost(s.tokens, _route(by, len(s.tokens)), prices) for s in base]
        for name, by in policies.items()
    }
    point_rates = _rates(runs, steps)
    rng = np.random.default_rng(seed)
    boot: dict[str, list[tuple[float, float | None]]] = {name: [] for name in policies}
    for _ in range(n_resamples if base else 0):
        drawn = [
            ModelRun(r.model, [r.paths[i] for i in rng.integers(0, len(r.paths), len(r.paths))])
            for r in runs
        ]
        rates = _rates(drawn, steps)
        pick = rng.integers(0, len(base), len(base))
        paths = [base[i].path for i in pick]
        for name, by in policies.items():
            mean = float(np.mean([costs[name][i].usd for i in pick]))
            boot[name].append((mean, _failure(paths, by, rates)))
    alpha = (1.0 - level) / 2.0

    def ci(values: Sequence[float]) -> tuple[float, float] | None:
        if not values:
            return None
        lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
        return (float(lo), float(hi))

    rows = []
    for name, by in policies.items():
        priced = costs[name]
        mean_cost = float(np.mean([c.usd for c in priced])) if priced else 0.0
        fail = _failure([s.path for s in base], by, point_rates)
        fails = [f for _, f in boot[name] if f is not None]
        per_pass = [c / (1.0 - f) for c, f in boot[name] if f is not None and f < 1.0]
        prompt = sum(c.prompt for c in priced)
        rows.append(
            PolicyRow(
                name=name,
                by_step=list(by),
                n=len(base),
                cost=(mean_cost, ci([c for c, _ in boot[name]])),
                failure=None if fail is None else (fail, ci(fails)),
                cost_per_pass=None
                if fail is None or fail >= 1.0
                else (mean_cost / (1.0 - fail), ci(per_pass)),
                switches=float(np.mean([c.switches for c in priced])) if priced else 0.0,
                cache_share=sum(c.cached for c in priced) / prompt if prompt else 0.0,
            )
        )
    return rows
