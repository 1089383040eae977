"""One run's reference agents: a session's from its setup, each domain's reader shared."""

from __future__ import annotations

from simlab.agents.reference._agent import ReferenceAgent, SkillFactory, preset, skill_for
from simlab.contracts import SessionSetup
from simlab.spec import DomainSet


class ReferenceTargets:
    """Makes the reference agent ``version`` for each session of one run (a ``TargetFactory``).

    Each domain's skill factory, and so its ``DomainReader`` (every phrasing compiled),
    is made once for the run, on its first session, and dropped with the run.

    Args:
        version: ``v1`` (defects on) or ``v2`` (fixed).
        domains: Where a goal's domain is looked up; None: the shipped default domain.
    """

    def __init__(self, version: str, domains: DomainSet | None = None) -> None:
        self._config = preset(version)
        self._domains = domains
        self._skills: dict[str | None, SkillFactory] = {}  # by the goal's domain name

    def __call__(self, setup: SessionSetup) -> ReferenceAgent:
        name = setup.goal.domain
        skill = self._skills.get(name)
        if skill is None:
            domain = self._domains.of(name) if self._domains is not None else None
            skill = self._skills[name] = skill_for(domain)
        return ReferenceAgent(self._config, setup.agent_seed, skill)
