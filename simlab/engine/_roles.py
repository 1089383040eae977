"""A run's roles: who plays the user, the agent and the judge, and their LLM clients.

One LLM client per role serves every session of the run (limits, retries and
the budget are per run); each session's parts report their calls to that
session's meter.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simlab.agents import (
    anthropic_http_target_factory,
    body_limit,
    callable_target_factory,
    http_target_factory,
    llm_target_factory,
    process_target_factory,
)
from simlab.agents.reference import ReferenceTargets
from simlab.contracts import (
    Grader,
    Judge,
    SessionSetup,
    SimulatorFactory,
    TargetAgent,
    TargetFactory,
    UserSimulator,
)
from simlab.engine._session import Scoring
from simlab.engine._source import RoleOverrides
from simlab.graders import LLMJudge, resolve_graders
from simlab.llm import LLM, Budget, LLMSpec, LLMStats, PriceTable, RoleLimits, create_llm
from simlab.simulators import (
    DomainVoice,
    PerturbationLookup,
    ReplyReader,
    ScriptedSimulator,
    llm_simulator_factory,
    session_perturbations,
)
from simlab.spec import (
    DomainSet,
    Problem,
    SpecError,
    Suite,
    load_agent_spec,
    load_domains,
    shipped_domain,
)

RoleLimitsFactory = Callable[[str, LLMSpec], RoleLimits]
"""The limits of one LLM role (``"user"``, ``"agent"``, ``"judge"``) with its spec."""


@dataclass
class RunRoles:
    """The factories of a run's parts, and the clients behind them."""

    simulator: SimulatorFactory
    target: TargetFactory
    judge: Judge | None
    budget: Budget
    stats: LLMStats
    prices: PriceTable
    models: dict[str, str]
    closers: list[Any] = field(default_factory=list)
    unpriced: dict[str, str] = field(default_factory=dict)
    """Role to model, for the LLM roles whose model has no price (their cost is unknown)."""
    graders: list[Grader] = field(default_factory=list)
    """The code graders the suite lists (``grading.graders``), built-ins by default."""
    domains: DomainSet | None = None
    """The suite's domains (graders read a goal's from it); None: not loaded."""
    max_sessions: int | None = None
    """The most sessions worth running at once: an LLM role serves at most its
    connections in parallel, so more sessions would only queue inside simlab and
    spend the target's per-turn timeout waiting (a local model serves one)."""

    async def aclose(self) -> None:
        """Close every client (connection pools, HTTP sessions)."""
        for closer in self.closers:
            await closer.aclose()


def run_scoring(suite: Suite, suite_dir: Path, overrides: RoleOverrides) -> Scoring:
    """How a run grades its sessions: graders given in code, else the suite's (its
    ``module:attr`` ones found beside it), with the suite's weights and pass rule.

    Raises:
        SpecError: a grader the suite names cannot be found.
    """
    graders = overrides.graders or resolve_graders(suite.grading.graders, [suite_dir, Path.cwd()])
    return Scoring(list(graders), suite.grading, load_domains(suite.domains, suite_dir))


def refuse_unknown_budget(suite: Suite, roles: RunRoles) -> None:
    """A ``budget_usd`` that cannot be computed: refused before any session starts.

    Raises:
        SpecError: the suite has a budget and some LLM role's model has no price.
    """
    if suite.budget_usd is None or not roles.unpriced:
        return
    named = ", ".join(f"{role} ({model!r})" for role, model in sorted(roles.unpriced.items()))
    first = next(iter(sorted(roles.unpriced.values())))
    message = (
        f"a budget of ${suite.budget_usd:g} cannot be kept: the cost of {named} is unknown "
        f"(no price for the model). Fix: add it under the suite's `pricing:` "
        f"(e.g. `pricing: {{{first}: {{input: 0.5, output: 1.5}}}}`, USD per million "
        "tokens), or drop budget_usd"
    )
    raise SpecError([Problem("suite", None, "budget_usd", message)])


def build_roles(
    suite: Suite,
    suite_dir: Path,
    parts: Collection[str] = ("user", "agent", "judge"),
    *,
    perturbations: PerturbationLookup | None = None,
    limits: RoleLimitsFactory | None = None,
) -> RunRoles:
    """Everything a run needs to make its sessions' parts (only ``parts`` are built;
    the others keep offline defaults and open no client).

    The simulated user, scripted or LLM, plays the perturbations a session's key
    carries, looked up with ``perturbations`` (default: ``simlab.spec.resolve_perturbations``).
    ``limits`` gives each LLM role its limits (``role, spec -> RoleLimits``) in place of
    its spec's own: a Ray worker's, shared with the other workers.

    Raises:
        SpecError: a role asks for an LLM and neither it nor the suite names one.
        LLMConfigError: a missing key or optional dependency.
    """
    prices = PriceTable.from_mapping(suite.pricing)
    graders = resolve_graders(suite.grading.graders, [suite_dir, Path.cwd()])
    roles = RunRoles(
        graders=graders,
        simulator=scripted_simulator_factory(),
        target=ReferenceTargets("v1"),
        judge=None,
        budget=Budget(suite.budget_usd),
        stats=LLMStats(),
        prices=prices,
        models={},
    )

    def client(role: str, spec: LLMSpec | None) -> LLM:
        spec = spec or suite.llm
        if spec is None:
            raise SpecError(
                [Problem("suite", None, f"{role}.llm", "no model: set it, or the suite's `llm:`")]
            )
        llm = create_llm(
            spec,
            budget=roles.budget,
            stats=roles.stats,
            prices=prices,
            limits=None if limits is None else limits(role, spec),
        )
        roles.closers.append(llm)
        limit = min(spec.concurrency, llm.max_connections)
        roles.max_sessions = min(roles.max_sessions or limit, limit)
        roles.models[role] = f"{spec.backend}:{llm.model}"
        if llm.needs_price and not prices.priced(llm.model):
            roles.unpriced[role] = llm.model
        return llm

    roles.domains = load_domains(suite.domains, suite_dir)  # the user's and the agent's world
    if "user" in parts:
        _simulator(suite, suite_dir, roles, client, perturbations)
    if "agent" in parts:
        _target(suite, suite_dir, roles, client)
    if suite.judge is not None and "judge" in parts:
        rubric = _path(suite_dir, suite.judge.rubric)
        roles.judge = LLMJudge(client("judge", suite.judge.llm), rubric, suite.judge.max_attempts)
    else:
        roles.models["judge"] = "code"
    return roles


def _simulator(
    suite: Suite,
    suite_dir: Path,
    roles: RunRoles,
    client: Any,
    perturbations: PerturbationLookup | None,
) -> None:
    spec = suite.simulator
    domains = roles.domains
    if spec.kind == "scripted":
        roles.simulator = scripted_simulator_factory(perturbations, domains)
        roles.models["user"] = "scripted"
        return
    prompt = _path(suite_dir, spec.prompt)
    roles.simulator = llm_simulator_factory(
        client("user", spec.llm),
        prompt,
        spec.max_attempts,
        perturbations=perturbations,
        domains=domains,
    )


def _target(suite: Suite, suite_dir: Path, roles: RunRoles, client: Any) -> None:
    target = suite.target
    if target.kind == "reference":
        roles.target = ReferenceTargets(target.version, roles.domains)
        roles.models["agent"] = f"reference:{target.version}"
    elif target.kind == "callable":
        # the user's module beside their suite, or where they stand, needs no PYTHONPATH
        search = (suite_dir, Path.cwd())
        if target.isolation == "process":
            workers = process_target_factory(target.ref, search)
            roles.closers.append(workers)  # kills the workers when the run ends
            by_seed: Callable[[int], TargetAgent] = workers
        else:
            by_seed = callable_target_factory(target.ref, suite.concurrency, search)
        roles.target = lambda setup: by_seed(setup.agent_seed)
        roles.models["agent"] = target.ref
    elif target.kind == "http":
        factory = http_target_factory(target, body_limit(suite.limits), roles.prices, roles.budget)
        roles.target = factory
        roles.closers.append(factory)
        roles.models["agent"] = f"http:{target.url}"
    elif target.kind == "anthropic_http":
        anthropic = anthropic_http_target_factory(
            target, body_limit(suite.limits), roles.prices, roles.budget
        )
        roles.target = anthropic
        roles.closers.append(anthropic)
        roles.models["agent"] = f"anthropic_http:{target.url}"
    else:
        agent = load_agent_spec(_resolve(suite_dir, target.agent), roles.domains)
        roles.target = llm_target_factory(agent, client("agent", target.llm or agent.model))


def scripted_simulator_factory(
    perturbations: PerturbationLookup | None = None, domains: DomainSet | None = None
) -> SimulatorFactory:
    """Per-session ``ScriptedSimulator`` construction playing the key's perturbations.

    Args:
        perturbations: looks up the ids a session's key carries; default
            ``simlab.spec.resolve_perturbations`` (the registered and shipped libraries).
        domains: where a goal's domain is looked up; None: the shipped default domain.
    """

    # each domain's voice and reply reader, made once for the factory's run: a domain
    # id names one domain in a run's set (the shipped default domain when it has none)
    spoken: dict[str, tuple[DomainVoice, ReplyReader]] = {}

    def make(setup: SessionSetup) -> UserSimulator:
        active = session_perturbations(setup.key.perturbations, perturbations)
        domain = domains.of(setup.goal.domain) if domains is not None else None
        domain = domain or shipped_domain()
        parts = spoken.get(domain.id)
        if parts is None:
            parts = spoken[domain.id] = (DomainVoice(domain), ReplyReader(domain))
        voice, reader = parts
        return ScriptedSimulator(
            setup.persona, setup.goal, setup.mode, setup.user_seed, active,
            domain=domain, voice=voice, reader=reader,
        )  # fmt: skip

    return make


def _path(base: Path, relative: str | None) -> Path | None:
    return None if relative is None else _resolve(base, relative)


def _resolve(base: Path, relative: str) -> Path:
    p = Path(relative)
    return p if p.is_absolute() else base / p
