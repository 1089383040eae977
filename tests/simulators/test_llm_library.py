"""The audit on the shipped library: the plan's own wording is faithful for every persona and goal.

An LLM that says exactly the scripted draft must never be faulted; a false
positive here would turn good sessions into simulator errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio

from simlab.agents.reference import reference_agent
from simlab.core import SessionKey
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.llm import LLM, LLMRequest, LLMResponse
from simlab.simulators import llm_simulator_factory
from simlab.spec import Mode, load_goals, load_personas

ROOT = Path(__file__).resolve().parents[2]
DRAFT_RE = re.compile(r"^Plain version: (.*)$", re.M)
FACT_RE = re.compile(r"^- ([a-z0-9_]+): ", re.M)


class SaysTheDraft(LLM):
    """Answers each turn prompt with its plain version, in the JSON contract."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, req: LLMRequest) -> LLMResponse:
        self.calls += 1
        prompt = req.messages[-1].content
        draft = DRAFT_RE.search(prompt)
        assert draft is not None
        said = {"response": draft.group(1), "disclosed": FACT_RE.findall(prompt)}
        return LLMResponse(text=json.dumps(said, ensure_ascii=False), model="draft")


def test_the_plans_own_wording_passes_the_audit_everywhere() -> None:
    personas = load_personas([ROOT / "personas"])
    goals = load_goals([ROOT / "goals"])
    llm = SaysTheDraft()
    make_sim = llm_simulator_factory(llm)

    async def run_all() -> list[tuple[str, list[object]]]:
        faulted = []
        for persona in personas.values():
            for goal in goals.values():
                for mode in Mode:
                    key = SessionKey(persona=persona.id, goal=goal.id, mode=mode.value, rep=0)
                    job = SessionJob(key, 1, persona, goal, mode)
                    record = await run_session(
                        job,
                        lambda s: reference_agent("v1", s.agent_seed),
                        make_sim,
                        SessionLimits(max_turns=30, turn_timeout_s=5.0),
                    )
                    assert record.status == "ok", record.error
                    if record.meta.get("simulator_faults"):
                        faulted.append((key.id, record.meta["simulator_faults"]))
        return faulted

    assert anyio.run(run_all) == []
    assert llm.calls > 2 * len(personas) * len(goals) * len(Mode)
