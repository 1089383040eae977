"""simlab's reference agent: a deterministic target with switchable defects, any domain.

``reference_agent("v1", seed, domain)`` has realistic defects (truncation, anchoring,
drift, slow questions, misreads, and per-session tool-use faults) and records their
true causes in each reply's ``meta["true_causes"]``; ``reference_agent("v2", seed,
domain)`` has them fixed. Every domain, the shipped ones too, is served from its data
(``DomainSkill``): the agent asks for missing required slots, calls the domain's tools
on their fixtures, proposes, waits for the go-ahead and acts; ``DomainReader`` is
how it reads a user's message in a domain.
"""

from simlab.agents.reference._agent import ReferenceAgent, SkillFactory, reference_agent, skill_for
from simlab.agents.reference._config import PRESETS, AgentConfig
from simlab.agents.reference._domain_skill import DomainReader, DomainSkill
from simlab.agents.reference._skill import Decision, Plan, Reading, Skill

__all__ = [
    "PRESETS",
    "AgentConfig",
    "Decision",
    "DomainReader",
    "DomainSkill",
    "Plan",
    "Reading",
    "ReferenceAgent",
    "Skill",
    "SkillFactory",
    "reference_agent",
    "skill_for",
]
