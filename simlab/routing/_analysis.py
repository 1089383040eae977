"""Runs of one suite on several models -> the routing analysis ``simlab routing`` prints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from simlab.core import sum_costs
from simlab.llm import PriceTable, Pricing
from simlab.routing._cost import route_cost, turn_tokens
from simlab.routing._plan import (
    BaseSession,
    ModelRun,
    PolicyRow,
    Rule,
    StepChoice,
    choose,
    policy_steps,
    price_policies,
)
from simlab.routing._steps import Hazard, default_steps, hazards, session_path
from simlab.stats import wilson_interval
from simlab.store import SessionRecord, read_run_info, read_sessions


class RoutingError(Exception):
    """The runs cannot be compared for routing (one message naming the run and the fix)."""


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One model's run: where it is, its graded sessions and its observed failure rate."""

    model: str
    path: Path
    n: int
    failed: int
    ci: tuple[float, float]


@dataclass(frozen=True, slots=True)
class RoutingReport:
    """Everything ``simlab routing`` prints.

    Attributes:
        runs: The runs, in the order given; the first is the base run.
        ranked: Models from cheapest to dearest (base sessions all on one model).
        steps: Steps of the matrix; the last pools the turns from it on.
        matrix: Model to its first-failure rate per step.
        budget: The failure budget per step.
        rule: Whether the budget reads the estimate or its upper bound.
        choices: The cheapest assignment within the budget.
        policies: per_turn, sticky and sticky_escalate from the assignment, then each
            model alone, priced on the base run's sessions.
        recorded_usd: What the base run's agent calls cost as recorded, per session
            (None: some session's cost is unknown).
    """

    runs: list[RunFigures]
    ranked: list[str]
    steps: int
    matrix: dict[str, list[Hazard]]
    budget: float
    rule: Rule
    choices: list[StepChoice]
    policies: list[PolicyRow]
    recorded_usd: float | None


def _model_of(run_dir: Path) -> tuple[str, PriceTable]:
    info = read_run_info(run_dir)
    agent = info.models.get("agent", "")
    model = agent.split(":", 1)[1] if ":" in agent else agent
    return model, PriceTable.from_mapping(info.pricing)


def _graded(run_dir: Path) -> list[SessionRecord]:
    return [r for r in read_sessions(run_dir).records if r.status == "ok"]


def analyse_routing(
    run_dirs: Sequence[Path],
    budget: float = 0.03,
    rule: Rule = "estimate",
    steps: int | None = None,
    seed: int = 0,
    n_resamples: int = 500,
    level: float = 0.95,
) -> RoutingReport:
    """The step x model matrix, the cheapest assignment within ``budget`` and the
    policies' costs, from runs of one suite on different agent models.

    Raises:
        RoutingError: a run has no graded session, two runs share a model, or a
            model has no price.
        RunDirError: a run directory cannot be read.
    """
    prices: dict[str, Pricing] = {}
    records: dict[str, list[SessionRecord]] = {}
    paths: dict[str, Path] = {}
    for run_dir in run_dirs:
        model, table = _model_of(run_dir)
        if model in records:
            raise RoutingError(
                f"{run_dir}: its agent model {model!r} is also {paths[model]}'s: give each "
                "model one run"
            )
        price = table.lookup(model)
        if price is None:
            raise RoutingError(
                f"{run_dir}: no price for the agent model {model!r}; add it to the suite's "
                "pricing: (input, output, cache_read per million tokens) and run again"
            )
        graded = _graded(run_dir)
        if not graded:
            raise RoutingError(f"{run_dir}: no graded session (every one ended in error)")
        prices[model], records[model], paths[model] = price, graded, run_dir
    models = list(records)
    runs = [ModelRun(m, [session_path(r) for r in records[m]]) for m in models]
    k = steps or default_steps([r.paths for r in runs])
    base_model = models[0]
    base = [BaseSession(session_path(r), turn_tokens(r)) for r in records[base_model]]
    base = [b for b in base if b.tokens]
    alone = {m: [m] * k for m in models}
    mean_alone = {
        m: sum(route_cost(b.tokens, [m] * len(b.tokens), prices).usd for b in base) for m in models
    }
    ranked = sorted(models, key=lambda m: (mean_alone[m], models.index(m)))
    matrix = {r.model: hazards(r.paths, k, level) for r in runs}
    choices = choose(matrix, ranked, budget, rule)
    policies = policy_steps([c.model for c in choices], ranked)
    policies |= {f"all {m}": alone[m] for m in ranked}
    rows = price_policies(runs, base, policies, prices, seed, n_resamples, level)
    figures = []
    for m in models:
        failed = sum(1 for r in records[m] if not r.passed)
        n = len(records[m])
        figures.append(RunFigures(m, paths[m], n, failed, wilson_interval(failed, n, level)))
    # over the same sessions the policies are priced on: those with agent tokens
    recorded: list[float | None] = [
        ((r.meta.get("llm") or {}).get("agent") or {}).get("cost_usd", 0.0)
        for r in records[base_model]
        if turn_tokens(r)
    ]
    recorded_total = sum_costs(recorded)
    return RoutingReport(
        runs=figures,
        ranked=ranked,
        steps=k,
        matrix=matrix,
        budget=budget,
        rule=rule,
        choices=choices,
        policies=rows,
        recorded_usd=(
            None
            if recorded_total is None
            else (recorded_total / len(recorded) if recorded else 0.0)
        ),
    )
