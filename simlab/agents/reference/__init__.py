"""simlab's reference agent: a deterministic target with switchable defects, any domain.

``reference_agent("v1", seed, domain)`` has realistic defects (truncation, anchoring,
drift, slow questions, misreads, and per-session tool-use faults) and records their
true causes in each reply's ``meta["true_causes"]``; ``reference_agent("v2", seed,
domain)`` has them fixed. Any domain is served from its data (``DomainSkill``), the
shipped travel domain too; ``TravelSkill`` (simlab's former travel desk) remains
until its removal.
"""

from simlab.agents.reference._agent import ReferenceAgent, SkillFactory, reference_agent, skill_for
from simlab.agents.reference._config import PRESETS, AgentConfig
from simlab.agents.reference._data import TravelData, travel_data
from simlab.agents.reference._domain_skill import DomainReader, DomainSkill
from simlab.agents.reference._skill import Decision, Plan, Reading, Skill
from simlab.agents.reference._tools import TravelDesk
from simlab.agents.reference._travel import TravelSkill
from simlab.agents.reference._travel_world import (
    CITIES,
    CITY_BY_CODE,
    FARES,
    MONTHS_EN,
    ROUTES,
    City,
    year_for,
)
from simlab.agents.reference._understand import read_message

__all__ = [
    "CITIES",
    "CITY_BY_CODE",
    "FARES",
    "MONTHS_EN",
    "PRESETS",
    "ROUTES",
    "AgentConfig",
    "City",
    "Decision",
    "DomainReader",
    "DomainSkill",
    "Plan",
    "Reading",
    "ReferenceAgent",
    "Skill",
    "SkillFactory",
    "TravelData",
    "TravelDesk",
    "TravelSkill",
    "read_message",
    "reference_agent",
    "skill_for",
    "travel_data",
    "year_for",
]
