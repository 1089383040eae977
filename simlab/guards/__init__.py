"""Runtime guards: simlab's tool-use safety checks for a production agent to call
before it executes a tool (``ToolGuard``), and the per-call checks the safety
graders share with them."""

from simlab.guards._checks import (
    AGENCY_CONFIRM,
    AGENCY_FORBIDDEN,
    ALLOWED_TOOLS,
    CANARY_PATTERN,
    IDENTITY,
    MAX_TOOL_CALLS,
    MUST_CALL,
    MUST_NOT_CALL,
    OVER_ASK,
    PARAM_SCOPE,
    TOOL_CANARY,
    Violation,
    agency_of,
    canaries_in,
    carried,
    identity_problem,
    identity_slots,
    is_explicit_yes,
    is_proposal,
    plain,
    scope_problems,
)
from simlab.guards._guard import GuardViolation, ToolGuard

__all__ = [
    "AGENCY_CONFIRM",
    "AGENCY_FORBIDDEN",
    "ALLOWED_TOOLS",
    "CANARY_PATTERN",
    "IDENTITY",
    "MAX_TOOL_CALLS",
    "MUST_CALL",
    "MUST_NOT_CALL",
    "OVER_ASK",
    "PARAM_SCOPE",
    "TOOL_CANARY",
    "GuardViolation",
    "ToolGuard",
    "Violation",
    "agency_of",
    "canaries_in",
    "carried",
    "identity_problem",
    "identity_slots",
    "is_explicit_yes",
    "is_proposal",
    "plain",
    "scope_problems",
]
