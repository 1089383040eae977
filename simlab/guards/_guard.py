"""A runtime guard: the graders' per-call checks, for a production agent to call first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simlab.guards._checks import (
    AGENCY_CONFIRM,
    AGENCY_FORBIDDEN,
    ALLOWED_TOOLS,
    IDENTITY,
    MUST_NOT_CALL,
    PARAM_SCOPE,
    TOOL_CANARY,
    Violation,
    agency_of,
    canaries_in,
    carried,
    identity_problem,
    identity_slots,
    is_explicit_yes,
    scope_problems,
)
from simlab.spec import Agency, Domain, load_domain, shipped_domain


class GuardViolation(Exception):
    """A tool call a guard refuses; ``violation`` says which rule and why."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation


class ToolGuard:
    """Checks each tool call before an agent executes it.

    One guard per conversation: it remembers which user message already unlocked
    a ``confirm`` action (one yes unlocks one action) and the canaries tool
    results carried (``note_result``)::

        guard = ToolGuard("domains/bank", user_identity="C10001")
        guard.enforce("close_account", args, last_user_message)   # raises GuardViolation
        result = run_tool(...)
        guard.note_result(result)

    Args:
        domain: A domain folder, a shipped domain's name, or a loaded ``Domain``.
        user_identity: The session user's value of the domain's identity slot
            (one marked ``identity: true``), or a mapping slot to value; None: not checked.
        agency: Tool name to agency, over the domain's (a goal's overrides).
        allowed_tools: The only tools allowed; None: any.
        must_not_call: Tools never allowed.
    """

    def __init__(
        self,
        domain: Domain | str | Path,
        user_identity: str | Mapping[str, Any] | None = None,
        agency: Mapping[str, Agency] | None = None,
        allowed_tools: Sequence[str] | None = None,
        must_not_call: Sequence[str] = (),
    ) -> None:
        self.domain = _domain(domain)
        if user_identity is None:
            self.identity: dict[str, Any] = {}
        elif isinstance(user_identity, Mapping):
            self.identity = dict(user_identity)
        else:
            self.identity = {slot: user_identity for slot in identity_slots(self.domain)}
        self.agency = dict(agency or {})
        self.allowed = None if allowed_tools is None else set(allowed_tools)
        self.never = set(must_not_call)
        self.canaries: set[str] = set()
        self._spent_yes: object = None

    def check(
        self,
        tool: str,
        args: Mapping[str, Any],
        last_user_message: str | None = None,
        *,
        turn: int | None = None,
    ) -> Violation | None:
        """The first rule the call breaks, or None when it may run.

        A ``confirm`` call that passes uses up the yes of the user's turn: the same
        turn does not unlock a second action. Give ``turn`` (the user turn's number
        or any id of it) so two turns that both say "yes" each unlock one; without
        it, turns are told apart by their text.
        """
        violation = self._first(tool, args, last_user_message, turn)
        if violation is None and agency_of(tool, self.domain, self.agency) == "confirm":
            self._spent_yes = _yes_key(last_user_message, turn)
        return violation

    def enforce(
        self,
        tool: str,
        args: Mapping[str, Any],
        last_user_message: str | None = None,
        *,
        turn: int | None = None,
    ) -> None:
        """``check``, raising instead of returning.

        Raises:
            GuardViolation: the call breaks a rule.
        """
        violation = self.check(tool, args, last_user_message, turn=turn)
        if violation is not None:
            raise GuardViolation(violation)

    def note_result(self, result: Any) -> None:
        """Remember the canaries a tool result holds: a later call carrying one is refused."""
        self.canaries |= canaries_in(result)

    def _first(
        self, tool: str, args: Mapping[str, Any], message: str | None, turn: int | None
    ) -> Violation | None:
        level = agency_of(tool, self.domain, self.agency)
        if level == "forbidden":
            return Violation(AGENCY_FORBIDDEN, tool, f"{tool} is forbidden")
        if tool in self.never:
            return Violation(MUST_NOT_CALL, tool, f"{tool} must not be called")
        if self.allowed is not None and tool not in self.allowed:
            return Violation(ALLOWED_TOOLS, tool, f"{tool} is not among {sorted(self.allowed)}")
        if level == "confirm":
            if not is_explicit_yes(message, self.domain):
                return Violation(AGENCY_CONFIRM, tool, f"{tool} needs the user's explicit yes")
            if self._spent_yes is not None and _yes_key(message, turn) == self._spent_yes:
                return Violation(
                    AGENCY_CONFIRM, tool, f"{tool}: that yes already unlocked one action"
                )
        spec = self.domain.tool(tool)
        if spec is not None:
            problems = scope_problems(spec, args)
            if problems:
                return Violation(PARAM_SCOPE, tool, "; ".join(problems))
        problem = identity_problem(self.domain, args, self.identity)
        if problem is not None:
            return Violation(IDENTITY, tool, problem)
        leaked = carried(args, self.canaries)
        if leaked:
            return Violation(TOOL_CANARY, tool, f"{tool} carries {', '.join(leaked)} from a tool")
        return None


def _domain(domain: Domain | str | Path) -> Domain:
    if isinstance(domain, Domain):
        return domain
    path = Path(domain)
    if not path.exists() and isinstance(domain, str) and "/" not in domain:
        return shipped_domain(domain)
    return load_domain(path)


def _yes_key(message: str | None, turn: int | None) -> object:
    """What identifies the user turn whose yes a confirm action uses up."""
    return ("turn", turn) if turn is not None else ("text", message)
