"""A session's planned length: the user turns its plan needs, fixed before it runs.

A session's realised number of user turns depends on the outcome: a user whose
request went wrong keeps talking until it is fixed or they give up. Bucketing by
it makes "long conversations fail" true by construction. The planned length
depends only on what the user will say: the disclosure plan (drawn from the
persona's traits, the goal, the mode and the user seed) and the session's
perturbations (their seeded landing turns). The same session key and seed give
the same planned length whatever the agent does, with the scripted or the LLM
user (both follow the same plan).

It is the length of the session with a *listening* agent: one that asks
nothing (but the precise value of a vague statement), proposes once the user
has said everything and books what it heard. The plan is played turn by turn
as ``ScriptedSimulator`` plays it (facts volunteered as the plan allows, mind
changes and fact-changing perturbations firing once their fact was said,
digressions taking whole turns, injections riding on a message); then come a
pushback on the proposal, when one lands by then, and the closing turn.
``tests/simulators/test_planned_length.py`` plays the scripted user against
such an agent and gets exactly this length, for every perturbation kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from simlab.simulators._perturbation_stack import PerturbationStack
from simlab.simulators._plan import DisclosurePlan, quiet_last_turn
from simlab.spec import (
    Domain,
    Goal,
    Language,
    Mode,
    Persona,
    Perturbation,
    shipped_domain,
    vague_phrasings,
)

_HORIZON = 10_000


def planned_turns(
    persona: Persona,
    goal: Goal,
    mode: Mode,
    seed: int,
    perturbations: Sequence[Perturbation] = (),
    domain: Domain | None = None,
) -> int:
    """The user turns the session's plan needs, the closing turn included.

    A pure function of its arguments: no agent, no transcript.

    Args:
        persona: who speaks (its traits draw the plan).
        goal: what they want (facts, mind changes).
        mode: ``full`` or ``sharded``.
        seed: the session's user seed (``SessionSetup.user_seed``), as the
            simulated user is given it.
        perturbations: the session key's perturbations, in stacking order.
        domain: the goal's domain (which slots an ambiguity can blur in the
            persona's language); default the shipped default domain.

    Returns:
        At least 2: one turn that says something and the closing turn.

    Raises:
        ValueError: a perturbation has nothing to say in the persona's language.
    """
    plan = DisclosurePlan.draw(persona.traits, goal, mode, seed)
    if not perturbations:
        return quiet_last_turn(plan) + 1
    stack = PerturbationStack(perturbations, persona.language, goal, seed, domain)
    return _perturbed_length(plan, goal, persona.language, perturbations, stack, domain)


def plan_length(
    plan: DisclosurePlan,
    goal: Goal,
    language: Language,
    seed: int,
    perturbations: Sequence[Perturbation] = (),
    domain: Domain | None = None,
) -> int:
    """``planned_turns`` for a plan already drawn (the simulator's own ``plan``).

    Args:
        plan: the session's disclosure plan.
        goal: the goal the plan was drawn for.
        language: the persona's language (which slots an ambiguity can blur).
        seed: the session's user seed (the perturbations' landing turns derive from it).
        perturbations: the session's perturbations, in stacking order.
        domain: the goal's domain; default the shipped default domain.
    """
    if not perturbations:  # the plan alone: no need to play it turn by turn
        return quiet_last_turn(plan) + 1
    stack = PerturbationStack(perturbations, language, goal, seed, domain)
    return _perturbed_length(plan, goal, language, perturbations, stack, domain)


def _perturbed_length(
    plan: DisclosurePlan,
    goal: Goal,
    language: Language,
    perturbations: Sequence[Perturbation],
    stack: PerturbationStack,
    domain: Domain | None,
) -> int:
    """``plan_length`` with the session's perturbation stack (only its landing turns and
    targets are read)."""
    domain = domain or shipped_domain()
    at, targets = stack.landing_turns(), stack.change_targets()
    blurred = {
        p.id: set(vague_phrasings(p, domain, language))
        for p in perturbations
        if p.kind == "ambiguity"
    }
    last = _Listener(plan, goal, perturbations, at, targets, blurred).last_word()
    # a pushback lands on the proposal that follows the user's last word, if it is due
    pushback = any(at[p.id] <= last + 1 for p in perturbations if p.kind == "pushback")
    return last + pushback + 1


class _Listener:
    """The plan played turn by turn to an agent that asks nothing but the precise value
    of a vague statement, as ``ScriptedSimulator`` plays it; ``last_word`` is the turn of
    the user's last planned statement."""

    def __init__(
        self,
        plan: DisclosurePlan,
        goal: Goal,
        perturbations: Sequence[Perturbation],
        at: dict[str, int],
        targets: dict[str, str | None],
        blurred: dict[str, set[str]],
    ) -> None:
        self.plan = plan
        self.required = {f.id for f in goal.facts if f.required}
        self.slot_of = {f.id: f.slot for f in goal.facts}
        self.pending = list(plan.order)
        self.stated: dict[str, int] = {}
        self.changes = [(c.fact, c.delay) for c in plan.changes]
        # each kind in stacking order, as PerturbationStack tries them
        self.fact_changes = [
            (at[p.id], fact)
            for p in perturbations
            if p.kind in ("goal_change", "contradiction")
            and (fact := targets.get(p.id)) is not None
        ]
        self.digressions = [at[p.id] for p in perturbations if p.kind == "digression"]
        self.injections = [at[p.id] for p in perturbations if p.kind == "injection"]
        self.vague = [(at[p.id], blurred[p.id]) for p in perturbations if p.kind == "ambiguity"]
        self.asked: list[str] = []  # facts said vaguely: the agent asks for one a turn

    def last_word(self) -> int:
        last, turn = 1, 0
        while self.pending or self.changes or self.fact_changes or self.injections or self.asked:
            turn += 1
            if turn > _HORIZON:  # every planned statement comes in time; a guard, not a rule
                raise ValueError(f"the plan still has something to say after {_HORIZON} turns")
            if self._say(turn):
                last = turn
        return last

    def _say(self, turn: int) -> bool:
        if turn == 1:
            said = self._volunteer(turn, self.plan.first_turn)
        else:
            whole = [t for t in self.digressions if turn >= t]
            if whole:  # a digression is all this turn says
                self.digressions.remove(whole[0])
                return True
            due = self._due(turn)
            moved = self._moved(turn, {f for f, _ in due})
            said = bool(due or moved)
            if self.asked:
                said |= self._answer(turn)
                said |= self._volunteer(turn, self.plan.per_turn, optional_only=True)
            else:
                said |= self._volunteer(turn, self.plan.per_turn)
            for fact, delay in due:
                self.changes.remove((fact, delay))
                self.stated[fact] = turn
            for landing, fact in moved:
                self.fact_changes.remove((landing, fact))
                self.stated[fact] = turn
        injected = [t for t in self.injections if turn >= t]
        if injected:
            self.injections.remove(injected[0])
        return said or bool(injected)

    def _due(self, turn: int) -> list[tuple[str, int]]:
        due, seen = [], set()
        for fact, delay in self.changes:
            if fact in seen:
                continue  # a chained change waits for the one before it
            seen.add(fact)
            if fact in self.stated and turn >= self.stated[fact] + delay:
                due.append((fact, delay))
        return due

    def _moved(self, turn: int, busy: set[str]) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for landing, fact in self.fact_changes:
            if fact in busy or fact not in self.stated or turn < landing:
                continue
            if all(f != fact for _, f in out):
                out.append((landing, fact))
        return out

    def _answer(self, turn: int) -> bool:
        slot = self.slot_of[self.asked.pop(0)]
        said = False
        for fid in [f for f in self.plan.order if self.slot_of[f] == slot]:
            if fid in self.stated or self.plan.earliest[fid] <= turn:
                self._state(fid, turn)
                said = True
        return said

    def _volunteer(self, turn: int, quota: int, *, optional_only: bool = False) -> bool:
        ready = [
            fid
            for fid in self.pending
            if self.plan.earliest[fid] <= turn and not (optional_only and fid in self.required)
        ][:quota]
        for fid in ready:
            blur = [v for v in self.vague if turn >= v[0] and self.slot_of[fid] in v[1]]
            if blur:  # said vaguely: the agent asks for it next
                self.vague.remove(blur[0])
                self.pending.remove(fid)
                self.asked.append(fid)
            else:
                self._state(fid, turn)
        return bool(ready)

    def _state(self, fid: str, turn: int) -> None:
        if fid in self.pending:
            self.pending.remove(fid)
        self.stated.setdefault(fid, turn)
