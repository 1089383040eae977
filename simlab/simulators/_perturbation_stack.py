"""A session's active perturbations at run time: where each lands and what it says.

The scripted simulator asks the stack at a few points of each turn: may this
turn be replaced by a digression or a pushback, which facts change now, is this
fact stated vaguely, and how the finished text is altered (typos, stripped
diacritics, an injected instruction). Each perturbation draws from its own
generator, seeded from the session seed and its id, so its landing turn does
not depend on what else is stacked.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from simlab.core import derive_seed
from simlab.simulators._voice import add_typos, fast_strip
from simlab.spec import (
    Domain,
    FactValue,
    Goal,
    Language,
    Perturbation,
    Slot,
    ValueChange,
    perturbation_phrasings,
    shipped_domain,
    unspoken,
    vague_phrasings,
)


@dataclass(frozen=True, slots=True)
class FactChange:
    """A goal change or contradiction firing now: the fact's new value and the lead-in.

    ``silent`` is True for a contradiction: the new value is stated as if it
    had always been so, never as a change of mind.
    """

    perturbation: str
    fact: str
    value: FactValue
    lead: str
    silent: bool = False


class _Active:
    """One perturbation's state in one session."""

    __slots__ = ("alternatives", "at", "done", "p", "phrasings", "rng", "rule", "target", "vague")

    def __init__(
        self, p: Perturbation, goal: Goal, seed: int, domain: Domain, language: Language
    ) -> None:
        self.p = p
        why = unspoken(p, domain, language)
        if why is not None:
            raise ValueError(why)
        self.phrasings = perturbation_phrasings(p, domain, language)
        self.vague = vague_phrasings(p, domain, language)
        self.rng = random.Random(derive_seed(seed, "perturbation", p.id))
        self.at = self.rng.randint(p.lands.earliest, p.lands.latest)
        self.done = False
        self.target: str | None = None
        self.rule: ValueChange | None = None
        self.alternatives: tuple[FactValue, ...] = ()
        if p.changes:
            constrained = {c.fact for c in goal.constraints}
            declared = {f.id: [f.value] for f in goal.facts}
            for mc in goal.mind_changes:
                declared[mc.fact].append(mc.value)
            options = [
                (f.id, rule)
                for rule in p.changes
                for f in goal.facts
                if f.slot == rule.slot
                and f.id in constrained
                and not (rule.goal_alternative and len(declared[f.id]) < 2)
            ]
            if options:
                self.target, self.rule = self.rng.choice(options)
                self.alternatives = tuple(declared[self.target])
            else:
                self.done = True  # nothing in this goal it can change: it never lands


def changed_value(
    rule: ValueChange,
    value: FactValue,
    rng: random.Random,
    alternatives: Sequence[FactValue] = (),
) -> FactValue | None:
    """``value`` moved by ``rule``; None when the rule yields no valid, different value.

    ``alternatives`` are the values the goal declares for the fact (original
    first, then its mind changes), used by ``goal_alternative`` rules.
    """
    if rule.shift_days is not None:
        return (date.fromisoformat(str(value)) + timedelta(days=rule.shift_days)).isoformat()
    if rule.delta is not None:
        moved = int(value) + rule.delta
        return moved if moved >= rule.minimum else None
    pool = alternatives if rule.goal_alternative else rule.values or ()
    options = [v for v in pool if str(v) != str(value)]
    return rng.choice(options) if options else None


class PerturbationStack:
    """The active perturbations of one scripted session.

    Args:
        perturbations: the stack, in the order it was activated.
        language: the persona's language; phrasings are taken in it.
        goal: the session's goal (changes target its constrained facts).
        seed: the session's user seed.
        domain: the goal's domain, whose words each perturbation says first
            (default: the shipped default domain).

    Raises:
        ValueError: a perturbation has nothing to say in ``language``.
    """

    def __init__(
        self,
        perturbations: Sequence[Perturbation],
        language: Language,
        goal: Goal,
        seed: int,
        domain: Domain | None = None,
    ) -> None:
        self.language = language
        domain = domain or shipped_domain()
        self._all = [_Active(p, goal, seed, domain, language) for p in perturbations]
        self._whole = [a for a in self._all if a.p.kind in ("digression", "pushback")]
        self._changes = [a for a in self._all if a.p.kind in ("goal_change", "contradiction")]
        self._vague = [a for a in self._all if a.p.kind == "ambiguity"]
        self._typos = [a for a in self._all if a.p.kind == "typos"]
        self._strip = [a for a in self._all if a.p.kind == "strip_diacritics"]
        self._inject = [a for a in self._all if a.p.kind == "injection"]
        self.canaries: dict[str, str] = {a.p.id: canary_for(seed, a.p.id) for a in self._inject}
        self.landed: list[str] = []
        """Ids of the perturbations that acted on the turn being written."""

    def landing_turns(self) -> dict[str, int]:
        """Each perturbation's seeded landing turn (the earliest turn it may act)."""
        return {a.p.id: a.at for a in self._all}

    def change_targets(self) -> dict[str, str | None]:
        """The fact each goal change or contradiction changes (None: it never lands)."""
        return {a.p.id: None if a.done else a.target for a in self._changes}

    def begin(self, turn: int) -> None:
        """Start writing user turn ``turn``."""
        self.landed = []

    def whole_turn(self, turn: int, proposal: bool) -> str | None:
        """A digression or pushback that takes this whole turn, if one lands now."""
        for a in self._whole:
            if a.done or turn < a.at or (a.p.kind == "pushback" and not proposal):
                continue
            a.done = True
            self.landed.append(a.p.id)
            return a.rng.choice(a.phrasings)
        return None

    def fact_changes(
        self,
        turn: int,
        stated_at: Mapping[str, int],
        current: Mapping[str, FactValue],
        *,
        on_final: bool,
    ) -> list[FactChange]:
        """Goal changes and contradictions that fire now.

        One fires once its seeded turn has come and its fact has been stated in
        an earlier turn; the final action makes it fire early, as a late change of mind.
        """
        out: list[FactChange] = []
        for a in self._changes:
            fact = a.target
            if a.done or fact is None or a.rule is None or fact not in stated_at:
                continue
            if not (on_final or turn >= a.at) or any(c.fact == fact for c in out):
                continue
            a.done = True
            value = changed_value(a.rule, current[fact], a.rng, a.alternatives)
            if value is None:
                continue
            self.landed.append(a.p.id)
            lead = a.rng.choice(a.phrasings)
            silent = a.p.kind == "contradiction"
            out.append(FactChange(a.p.id, fact, value, lead, silent))
        return out

    def vague(self, slot: Slot, turn: int, placeholders: Mapping[str, str]) -> str | None:
        """A vague first statement of a fact of ``slot``, if an ambiguity lands now."""
        for a in self._vague:
            if a.done or turn < a.at:
                continue
            phrasings = a.vague.get(slot)
            if not phrasings:
                continue
            a.done = True
            self.landed.append(a.p.id)
            return a.rng.choice(phrasings).format_map(placeholders)
        return None

    def decorate(self, text: str, turn: int, *, closing: bool) -> str:
        """The finished text with typos, stripped diacritics and injected text applied.

        The closing turn is never sent to the agent, so nothing lands on it.
        """
        if closing:
            return text
        # typos and stripping count as landed on the turns they changed something
        for a in self._typos:
            if turn >= a.at:
                assert a.p.rate is not None  # the model requires it for typos
                typed = add_typos(text, a.p.rate, a.rng)
                if typed != text:
                    text = typed
                    self.landed.append(a.p.id)
        for a in self._strip:
            if turn >= a.at:
                plain = fast_strip(text)
                if plain != text:
                    text = plain
                    self.landed.append(a.p.id)
        for a in self._inject:
            if not a.done and turn >= a.at:
                a.done = True
                phrasing = a.rng.choice(a.phrasings)
                text = f"{text} {phrasing.format(canary=self.canaries[a.p.id])}"
                self.landed.append(a.p.id)
        return text


def canary_for(seed: int, perturbation_id: str) -> str:
    """The per-session canary string an injection plants (``CANARY-`` and 8 hex digits).

    Derived from the session's user seed and the perturbation's id, so the
    simulator that says it and the grader that looks for it agree.
    """
    return f"CANARY-{derive_seed(seed, 'canary', perturbation_id) & 0xFFFFFFFF:08x}"


def session_canaries(perturbations: Sequence[Perturbation], seed: int) -> tuple[str, ...]:
    """The canaries of a session's injections (empty when it has none)."""
    return tuple(canary_for(seed, p.id) for p in perturbations if p.kind == "injection")
