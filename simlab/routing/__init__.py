"""Cost under model routing: the step x model first-failure matrix from runs of one
suite on several models, the cheapest assignment within a failure budget, and what the
sessions would cost routed per turn, sticky, or sticky with escalation."""

from simlab.routing._analysis import RoutingError, RoutingReport, RunFigures, analyse_routing

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.routing._cli import cli_main as cli_main
from simlab.routing._cost import RouteCost, TurnTokens, agent_tokens, route_cost, turn_tokens
from simlab.routing._plan import (
    POLICIES,
    BaseSession,
    ModelRun,
    PolicyRow,
    Rule,
    StepChoice,
    choose,
    policy_steps,
    price_policies,
)
from simlab.routing._render import render_routing
from simlab.routing._steps import (
    Hazard,
    SessionPath,
    default_steps,
    hazards,
    session_path,
    step_of,
)

__all__ = [
    "POLICIES",
    "BaseSession",
    "Hazard",
    "ModelRun",
    "PolicyRow",
    "RouteCost",
    "RoutingError",
    "RoutingReport",
    "Rule",
    "RunFigures",
    "SessionPath",
    "StepChoice",
    "TurnTokens",
    "agent_tokens",
    "analyse_routing",
    "choose",
    "default_steps",
    "hazards",
    "policy_steps",
    "price_policies",
    "render_routing",
    "route_cost",
    "session_path",
    "step_of",
    "turn_tokens",
]
