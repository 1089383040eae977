"""The LLM user simulator: the scripted user's plan, said in the persona's voice by an LLM.

Each turn the scripted simulator (same persona, goal, mode and seed) decides the
turn: which facts it discloses, mind changes, DONE and GAVE_UP. The LLM only
verbalises that decision, answering in JSON; the fidelity audit checks the text
against the plan and a faulty answer is retried with a corrective note. The
turn's ``disclosed`` is always the plan's, never the LLM's claim.

Perturbations act in two places: the plan-level ones (a digression, a goal
change, a vague fact) shape the scripted draft the LLM voices; the text-level
ones (typos, stripped diacritics, an injected instruction) are applied to the
audited LLM text, so they land on the words the agent reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from simlab.contracts import SessionSetup, SimState, UserSimulator
from simlab.core import UserTurn
from simlab.llm import (
    LLM,
    LLMMessage,
    LLMRequest,
    SessionMeter,
    first_json_object,
    metered_complete,
)
from simlab.simulators._audit import FaultKind, FidelityAudit, Finding
from simlab.simulators._scripted import (
    PerturbationLookup,
    ScriptedSimulator,
    session_perturbations,
)
from simlab.simulators._unheard import Unheard
from simlab.simulators._voice import fast_strip
from simlab.simulators.prompts import UserPrompts, load_prompts
from simlab.spec import (
    Domain,
    DomainSet,
    FactValue,
    Goal,
    MindChange,
    Mode,
    Persona,
    Perturbation,
)

DEFAULT_MAX_TOKENS = 300
"""Completion cap per attempt: a user message and its JSON wrapper fit easily."""


class Fault(Finding):
    """A fidelity finding as the simulator keeps it: which attempt, and whether it stayed.

    ``kept`` is True when the finding is in the text that was sent (a tolerated
    kind), False when the attempt was retried or the turn failed.
    """

    attempt: int
    kept: bool


class SimulatorFault(Exception):
    """Every attempt at a user turn broke the plan: the session is a simulator error.

    Attributes:
        turn: the user turn that could not be written.
        findings: the last attempt's findings.
    """

    def __init__(self, turn: int, findings: Sequence[Finding], attempts: int) -> None:
        self.turn = turn
        self.findings = list(findings)
        summary = "; ".join(f"{f['kind']}: {f['detail']}" for f in self.findings)
        super().__init__(
            f"turn {turn}: all {attempts} attempts broke the disclosure plan (last: {summary})"
        )


def parse_answer(raw: str) -> tuple[str, list[str]]:
    """The ``response`` text and ``disclosed`` ids of a JSON answer.

    Tolerates code fences and prose around the object; ``disclosed`` that is not
    a list counts as empty (the plan, not the claim, says what was disclosed).

    Raises:
        ValueError: no JSON object with a string ``response`` could be read.
    """
    value = first_json_object(raw)
    if value is None:
        raise ValueError(f"no JSON object in the answer: {raw[:120]!r}")
    response = value.get("response")
    if not isinstance(response, str):
        raise ValueError(f"'response' is not a string: {str(response)[:80]!r}")
    ids = value.get("disclosed")
    claimed = [str(i) for i in ids] if isinstance(ids, list) else []
    return response, claimed


class LLMSimulator:
    """A simulated user whose plan is the scripted user's and whose words are an LLM's.

    One instance per session. Closing turns (DONE, GAVE_UP) keep the template
    text: it is never sent to the agent, so an LLM call would buy nothing.

    Args:
        persona: who speaks (language, traits, style, description).
        goal: what they want.
        mode: ``full`` or ``sharded``.
        seed: the session's user seed: the plan, and every request's ``seed``.
        llm: the model that verbalises (``create_llm`` output).
        meter: the session's meter; every call is reported to it as role ``user``.
        prompt_path: a prompt file replacing ``user_system.md``, or a directory
            whose ``user_system.md``/``user_turn.md``/``user_retry.md``/
            ``user_facts.yaml`` replace the shipped ones.
        max_attempts: LLM answers tried per turn before ``SimulatorFault``.
        max_tokens: completion cap per attempt.
        tolerate: finding kinds accepted without a retry (kept in ``faults``).
        perturbations: active perturbations (``simlab.perturb``), drawn from
            ``seed`` as the scripted user draws them, so an injection plants the
            canary the engine grades with. With none the turns are as before.
        domain: the goal's domain (default: the shipped default domain).
        prompts: the prompts read from ``prompt_path`` already (a factory reads them
            once for its run); default: read here.

    Attributes:
        faults: every finding of every attempt so far, as ``Fault`` dicts.

    Raises:
        ValueError: a goal the scripted plan cannot voice, a bad prompt file,
            or ``max_attempts`` below 1.
    """

    def __init__(
        self,
        persona: Persona,
        goal: Goal,
        mode: Mode,
        seed: int,
        llm: LLM,
        meter: SessionMeter,
        prompt_path: Path | str | None = None,
        max_attempts: int = 3,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        tolerate: frozenset[FaultKind] = frozenset(),
        perturbations: Sequence[Perturbation] = (),
        domain: Domain | None = None,
        prompts: UserPrompts | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.persona = persona
        self.goal = goal
        # the LLM voices the undecorated draft; text-level perturbations go on its words
        self._script = ScriptedSimulator(
            persona, goal, mode, seed, perturbations, decorate=False, domain=domain
        )
        self.plan = self._script.plan
        self._audit = FidelityAudit(goal, persona, self._script.domain)
        self._audited_goal = goal
        self._prompts: UserPrompts = prompts or load_prompts(prompt_path)
        self._system = self._prompts.system_prompt(persona, self._script.domain)
        self._llm = llm
        self._meter = meter
        self._seed = seed
        self._max_attempts = max_attempts
        self._max_tokens = max_tokens
        self._tolerate = tolerate
        self._slot_of = {f.id: f.slot for f in goal.facts}
        self._history: list[LLMMessage] = []  # append-only, so each call reuses the cached prefix
        self._stated: dict[str, list[FactValue]] = {}  # every value each fact has had
        self._last: dict[str, FactValue] = {}  # the value each fact was last stated with
        self.faults: list[Fault] = []

    @property
    def unheard(self) -> Unheard | None:
        """The agent turns the plan answered without understanding (``ScriptedSimulator``):
        the LLM voices the plan's turn, so it did not answer them either."""
        return self._script.unheard

    async def next_turn(self, state: SimState) -> UserTurn:
        """The plan's next turn, in the LLM's words once they pass the audit.

        Raises:
            SimulatorFault: every attempt broke the plan.
            ProviderError: the model's provider failed after its own retries.
        """
        planned = self._script.write(state.turn, state.transcript)
        if planned.stop is not None:
            return planned
        self._know_values(planned.disclosed)
        turns = state.transcript.turns
        reply = turns[-1].agent if turns else None
        actions = self._prompts.actions(reply)
        prompt = self._prompts.turn_prompt(
            self.persona,
            turn=state.turn,
            agent_message=reply.text if reply is not None else None,
            actions=actions,
            facts=self._fact_lines(planned.disclosed),
            draft=planned.text,
        )
        context = [reply.text if reply is not None else "", actions]
        text = await self._verbalize(state.turn, prompt, planned, context)
        for fid, value in planned.disclosed.items():
            said = self._stated.setdefault(fid, [])
            if value not in said:
                said.append(value)
            self._last[fid] = value
        # after the audit: it checks the LLM's words, the agent reads the decorated ones
        sent, landed = self._script.decorate(text, state.turn)
        return UserTurn(
            text=sent,
            disclosed=dict(planned.disclosed),
            perturbations=[*planned.perturbations, *landed],
        )

    def _know_values(self, disclosed: Mapping[str, FactValue]) -> None:
        """Teach the audit values the goal does not declare (a contradiction's new value)."""
        known = {(f.id, f.value) for f in self._audited_goal.facts}
        known |= {(c.fact, c.value) for c in self._audited_goal.mind_changes}
        new = [MindChange(fact=f, value=v) for f, v in disclosed.items() if (f, v) not in known]
        if new:
            changes = (*self._audited_goal.mind_changes, *new)
            self._audited_goal = self._audited_goal.model_copy(update={"mind_changes": changes})
            self._audit = FidelityAudit(self._audited_goal, self.persona, self._script.domain)

    async def _verbalize(
        self, turn: int, prompt: str, planned: UserTurn, context: list[str]
    ) -> str:
        messages = [*self._history, LLMMessage(role="user", content=prompt)]
        findings: list[Finding] = []
        for attempt in range(1, self._max_attempts + 1):
            raw = await self._complete(messages)
            text, findings = self._check(turn, raw, planned, context)
            blocking = [f for f in findings if f["kind"] not in self._tolerate]
            for f in findings:
                self.faults.append(
                    Fault(
                        turn=f["turn"],
                        kind=f["kind"],
                        detail=f["detail"],
                        attempt=attempt,
                        kept=not blocking,
                    )
                )
            if not blocking:
                said = {"response": text, "disclosed": list(planned.disclosed)}
                answer = json.dumps(said, ensure_ascii=False)
                self._history += [
                    messages[len(self._history)],
                    LLMMessage(role="assistant", content=answer),
                ]
                return text
            problems = "\n".join(f"- {f['kind']}: {f['detail']}" for f in blocking)
            messages += [
                LLMMessage(role="assistant", content=raw.strip() or "(empty)"),
                LLMMessage(role="user", content=self._prompts.retry_prompt(self.persona, problems)),
            ]
        raise SimulatorFault(turn, findings, self._max_attempts)

    async def _complete(self, messages: list[LLMMessage]) -> str:
        req = LLMRequest(
            messages=tuple(messages),
            system=self._system,
            max_tokens=self._max_tokens,
            seed=self._seed,
            json_output=True,
            role="user",
        )
        return (await metered_complete(self._llm, req, self._meter)).text

    def _check(
        self, turn: int, raw: str, planned: UserTurn, context: list[str]
    ) -> tuple[str, list[Finding]]:
        """The answer's text (post-processed for the persona) and its audit findings."""
        try:
            text, claimed = parse_answer(raw)
        except ValueError as exc:
            return "", [Finding(turn=turn, kind="unparseable_json", detail=str(exc))]
        text = text.strip()
        if self.persona.traits.strip_diacritics:
            text = fast_strip(text)  # the trait is the plan's to keep, not the model's
        found = self._audit.check(
            turn,
            text,
            planned=planned.disclosed,
            stated=self._stated,
            claimed=claimed,
            context=context,
        )
        return text, found

    def _fact_lines(self, disclosed: Mapping[str, FactValue]) -> list[str]:
        """One prompt line per planned fact, noting a mind change, contradiction or repeat."""
        line = self._prompts.fact_line
        silent = self._script.contradicted
        return [
            line(
                self.persona,
                fid,
                self._slot_of[fid],
                value,
                self._last.get(fid),
                contradicted=fid in silent,
                domain=self._script.domain,
            )
            for fid, value in disclosed.items()
        ]


def llm_simulator_factory(
    llm: LLM,
    prompt_path: Path | str | None = None,
    max_attempts: int = 3,
    *,
    perturbations: PerturbationLookup | None = None,
    domains: DomainSet | None = None,
) -> Callable[[SessionSetup], UserSimulator]:
    """Per-session ``LLMSimulator`` construction for the engine.

    The prompt files are read (and checked) once, here, for every session it makes.
    A session whose key carries perturbations gets them active, looked up
    with ``perturbations`` (default: ``simlab.spec.resolve_perturbations``, the registered
    and shipped libraries). A goal's domain is looked up in ``domains`` (None: the
    shipped default domain).

    Raises:
        ValueError: a prompt file with an unknown placeholder, or ``max_attempts`` below 1.
    """
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    prompts = load_prompts(prompt_path)

    def make(setup: SessionSetup) -> UserSimulator:
        return LLMSimulator(
            setup.persona,
            setup.goal,
            setup.mode,
            setup.user_seed,
            llm=llm,
            meter=setup.meter,
            prompt_path=prompt_path,
            max_attempts=max_attempts,
            perturbations=session_perturbations(setup.key.perturbations, perturbations),
            domain=domains.of(setup.goal.domain) if domains is not None else None,
            prompts=prompts,
        )

    return make
