"""The scripted simulated user: a disclosure plan spoken through template phrasings.

Deterministic and offline: the same (persona, goal, mode, seed) and the same
agent replies give byte-identical user turns. No I/O after construction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simlab.contracts import SimState
from simlab.core import AgentReply, StopSignal, ToolCall, Transcript, UserTurn
from simlab.graders import violations
from simlab.simulators._draws import choose
from simlab.simulators._goal_facts import GoalFacts
from simlab.simulators._perturbation_stack import FactChange, PerturbationStack
from simlab.simulators._plan import PlannedChange, take_drawn
from simlab.simulators._reading import ReplyReader, ReplyReading
from simlab.simulators._unheard import Unheard
from simlab.simulators._voice import DomainVoice, add_typos, stripped_sentence
from simlab.spec import (
    Domain,
    FactValue,
    Goal,
    Mode,
    Persona,
    Perturbation,
    resolve_perturbations,
    shipped_domain,
)

_NO_READING = ReplyReading()

PerturbationLookup = Callable[[Sequence[str]], Sequence[Perturbation]]
"""Perturbation ids (a session key's) to their definitions, in order."""


def session_perturbations(
    ids: Sequence[str], lookup: PerturbationLookup | None = None
) -> Sequence[Perturbation]:
    """The definitions of a session key's perturbation ids (none when it carries none).

    Args:
        ids: the ids, in stacking order.
        lookup: where to find them; default ``simlab.spec.resolve_perturbations`` (the
            registered library, then the shipped one).

    Raises:
        SpecError: an id ``resolve`` does not know.
    """
    if not ids:
        return ()
    return (lookup or resolve_perturbations)(ids)


class _Draft:
    """The pieces of one user message: sentences, whether each may get typos, facts stated."""

    __slots__ = ("disclosed", "parts", "typo_ok")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.typo_ok: list[bool] = []
        self.disclosed: dict[str, Any] = {}

    def say(self, text: str) -> None:
        self.parts.append(text)
        self.typo_ok.append(True)

    def fact(self, text: str, fact_id: str, value: FactValue) -> None:
        self.parts.append(text)
        self.typo_ok.append(False)  # slot sentences stay parseable
        self.disclosed[fact_id] = value


class ScriptedSimulator:
    """A template-speaking user following a seeded ``DisclosurePlan``.

    One instance per session. Each turn it reacts to the agent's last reply: a
    final action is checked against what the user currently wants, a question about a
    fact is answered when the plan allows, a proposal is accepted once nothing
    is left to say; otherwise the next planned facts are volunteered.

    Args:
        persona: who speaks (language, traits, style).
        goal: what they want; its ``final_tool`` must be an intent of ``domain``
            with an opening in the persona's language.
        mode: ``full`` puts every fact in turn 1; ``sharded`` follows the plan.
        seed: the session seed; plan and wording are drawn from it.
        perturbations: active perturbations (``simlab.perturb``); each draws from
            its own generator, so with none the session is exactly as before.
        decorate: apply the perturbations' text-level effects (typos, stripped
            diacritics, injected text) to each turn. False leaves them to
            ``decorate`` on text another voice wrote (the LLM simulator's);
            plan-level effects (whole turns, fact changes, vague facts) still
            shape the turn.
        domain: the goal's domain: its phrasings, values and cues (default: the
            shipped default domain).
        voice: the domain's voice, when the caller keeps one for many sessions of the
            domain (default: made for this session).
        reader: the domain's reader of agent replies, likewise.

    Attributes:
        unheard: the agent turns it answered without understanding (a question
            none of the domain's cues names), None while there were none.

    Raises:
        ValueError: when the goal cannot be voiced (a language the domain does not
            speak, no opening for its final tool, a value with no rendering, a
            perturbation with nothing to say in the persona's language).
    """

    def __init__(
        self,
        persona: Persona,
        goal: Goal,
        mode: Mode,
        seed: int,
        perturbations: Sequence[Perturbation] = (),
        *,
        decorate: bool = True,
        domain: Domain | None = None,
        voice: DomainVoice | None = None,
        reader: ReplyReader | None = None,
    ) -> None:
        self.persona = persona
        self.domain = domain = domain or shipped_domain()
        self.goal = goal
        self.mode = mode
        # One stream: the plan is drawn first (as DisclosurePlan.draw(seed) would),
        # then wording choices continue it, saving a second generator per session.
        # The engine drew this plan a moment ago for the planned length: take it.
        self.plan, self._rng = take_drawn(persona.traits, goal, mode, seed)
        self._bits = self._rng.getrandbits
        traits = persona.traits
        self._voice = voice or DomainVoice(domain)
        self._read = (reader or ReplyReader(domain)).read
        self._book = self._voice.phrasebook(persona.language, traits.style)
        intents = self._book.intent.get(goal.final_tool)
        if not intents:
            raise ValueError(
                f"goal {goal.id!r}: final_tool {goal.final_tool!r} has no {persona.language!r} "
                f"opening in domain {domain.id!r}; intents: {sorted(self._book.intent)}"
            )
        self._intents = intents
        self._style = traits.style
        self._typo_rate = traits.typo_rate
        self._strip = traits.strip_diacritics
        self._patience = traits.patience
        facts = GoalFacts.of(goal)
        self._required = facts.required
        self._is_required = facts.is_required
        self._slot_of = facts.slot_of
        self._by_slot = facts.by_slot
        self._current: dict[str, FactValue] = dict(facts.declared)
        self._pending = list(self.plan.order)
        self._stated_at: dict[str, int] = {}  # fact id -> turn its current value was first stated
        self._changes = list(self.plan.changes)
        self._penalty = 0
        # Render every value up front: a goal that cannot be voiced fails here, not mid-run.
        for f in goal.facts:
            self._placeholders(f.id, f.value)
        for c in self._changes:
            self._placeholders(c.fact, c.value)
        self._stack: PerturbationStack | None = None
        self.contradicted: set[str] = set()
        """Facts the turn being written states with a contradiction's new value."""
        if perturbations:
            self._stack = PerturbationStack(perturbations, persona.language, goal, seed, domain)
        self._decorate = decorate
        self.unheard: Unheard | None = None
        self._said: dict[str, tuple[str, ...]] = {}  # fact -> the sentences stating its value
        self._corrections_said: dict[str, tuple[str, ...]] = {}  # ... correcting it

    async def next_turn(self, state: SimState) -> UserTurn:
        """The next user message, or a closing turn with ``stop`` set."""
        return self.write(state.turn, state.transcript)

    def write(self, turn: int, transcript: Transcript) -> UserTurn:
        """``next_turn`` without the coroutine: user turn ``turn`` after ``transcript``."""
        reply = transcript.turns[-1].agent if transcript.turns else None
        if self._stack is not None:
            self._stack.begin(turn)
        self.contradicted = set()
        draft = _Draft()
        if turn == 1 or reply is None:
            draft.say(choose(self._bits, self._intents))
            self._volunteer(draft, turn, self.plan.first_turn)
            return self._finish(draft, turn)
        action = self._final_call(reply)
        if action is not None:
            return self._on_final_action(draft, turn, action)
        return self._on_reply(draft, turn, reply)

    def decorate(self, text: str, turn: int) -> tuple[str, list[str]]:
        """``text`` with the text-level perturbations due at ``turn``, and the ids that landed.

        For a simulator built with ``decorate=False``: call it once per sent
        turn, after ``write`` for that turn, on the words the agent will read.
        """
        if self._stack is None:
            return text, []
        before = len(self._stack.landed)
        text = self._stack.decorate(text, turn, closing=False)
        return text, self._stack.landed[before:]

    # ------------------------------------------------------------ branches

    def _on_final_action(self, draft: _Draft, turn: int, call: ToolCall) -> UserTurn:
        # no planned change left and no perturbation: nothing can be due (two calls fewer)
        due = self._due_changes(turn, on_final=True) if self._changes else []
        perturbed = (
            self._perturbed_changes(turn, due, on_final=True) if self._stack is not None else []
        )
        restate: list[str] = []
        if not due and not perturbed:
            restate = list(self._broken_facts(call))
            restate += [f for f in self._required if f not in self._stated_at and f not in restate]
            if not restate:
                return self._close(StopSignal.DONE, turn)
        if self._exhausted(turn):
            return self._close(StopSignal.GAVE_UP, turn)
        if due:
            self._fire(draft, due, turn)
        if perturbed:
            self._fire_perturbed(draft, perturbed, turn)
        if not due and not perturbed:
            draft.say(self._phrase("reassert"))
            for fid in restate:
                self._state(draft, fid, turn)
        return self._finish(draft, turn)

    def _on_reply(self, draft: _Draft, turn: int, reply: AgentReply) -> UserTurn:
        reading = self._read(reply.text) if reply.text else _NO_READING
        asked = [fid for slot in reading.slots for fid in self._by_slot.get(slot, ())]
        if any(fid in self._stated_at for fid in asked):
            self._penalty += 1  # asked again for something already said
        if self._exhausted(turn):
            return self._close(StopSignal.GAVE_UP, turn)
        if self._stack is not None:
            whole = self._stack.whole_turn(turn, reading.confirm)
            if whole is not None:  # a digression or pushback is all this turn says
                draft.say(whole)
                return self._finish(draft, turn)
        due = self._due_changes(turn, on_final=False) if self._changes else []
        perturbed = (
            self._perturbed_changes(turn, due, on_final=False) if self._stack is not None else []
        )
        changing = {c.fact for c in due} | {c.fact for c in perturbed}
        if reading.slots:
            said = False
            for slot in reading.slots:
                fids = self._by_slot.get(slot)
                if not fids:
                    draft.say(self._phrase("answer_none"))
                    said = True
                    continue
                for fid in fids:
                    if fid in changing:
                        said = True  # the mind change below states it
                    elif fid in self._stated_at or self.plan.earliest[fid] <= turn:
                        self._state(draft, fid, turn)
                        said = True
            if not said:  # everything asked is held back: the user says what comes to mind
                self._volunteer(draft, turn, self.plan.per_turn)
            else:  # a constraint on the user's mind comes out with the answer
                self._volunteer(draft, turn, self.plan.per_turn, optional_only=True)
        elif reading.confirm:
            if not self._volunteer(draft, turn, self.plan.per_turn) and not changing:
                draft.say(self._phrase("answer_yes"))
        else:
            if "?" in reply.text and not reading.open:  # a question no cue names
                self._not_understood(turn - 1, reply.text)  # answered without understanding
            self._volunteer(draft, turn, self.plan.per_turn)
        if due:
            self._fire(draft, due, turn)
        if perturbed:
            self._fire_perturbed(draft, perturbed, turn)
        if not draft.parts:
            draft.say(self._phrase("nothing_to_add"))
        return self._finish(draft, turn)

    def _not_understood(self, agent_turn: int, text: str) -> None:
        if self.unheard is None:
            self.unheard = Unheard.first(agent_turn, text)
        else:
            self.unheard.count += 1

    # ------------------------------------------------------------ plan state

    def _final_call(self, reply: AgentReply) -> ToolCall | None:
        """The reply's last successful call of the goal's final tool, if any."""
        tool = self.goal.final_tool
        for call in reversed(reply.tool_calls):  # replies hold many lookups before it
            if call.name == tool and call.error is None:
                return call
        return None

    def _broken_facts(self, call: ToolCall) -> tuple[str, ...]:
        """The facts whose constraints ``call`` breaks against the user's wants, once each."""
        facts: list[str] = []
        for c in violations(self.goal, call, self._current):
            if c.fact not in facts:
                facts.append(c.fact)
        return tuple(facts)

    def _exhausted(self, turn: int) -> bool:
        return turn - 1 + self._penalty >= self._patience

    def _due_changes(self, turn: int, *, on_final: bool) -> list[PlannedChange]:
        """Unfired changes whose fact's current value is out and whose time has come."""
        due: list[PlannedChange] = []
        seen: set[str] = set()
        for c in self._changes:
            if c.fact in seen:
                continue  # a chained change waits for the one before it
            seen.add(c.fact)
            stated = self._stated_at.get(c.fact)
            if stated is not None and (on_final or turn >= stated + c.delay):
                due.append(c)
        return due

    def _fire(self, draft: _Draft, due: list[PlannedChange], turn: int) -> None:
        corrections = self._book.corrections
        own = all(self._slot_of[c.fact] in corrections for c in due)
        if not own:  # the slots' own corrections need no lead-in
            draft.say(self._phrase("mind_change"))
        self._said.clear()  # the wants change: forget their sentences
        self._corrections_said.clear()
        for c in due:
            self._changes.remove(c)
            self._current[c.fact] = c.value
            self._stated_at[c.fact] = turn
            self._state(draft, c.fact, turn, correcting=own)

    def _perturbed_changes(
        self, turn: int, due: list[PlannedChange], *, on_final: bool
    ) -> list[FactChange]:
        if self._stack is None:
            return []
        busy = {c.fact for c in due}  # a planned mind change on the fact goes first
        stated = {f: t for f, t in self._stated_at.items() if f not in busy}
        return self._stack.fact_changes(turn, stated, self._current, on_final=on_final)

    def _fire_perturbed(self, draft: _Draft, changes: list[FactChange], turn: int) -> None:
        """A goal change or contradiction: its lead-in, then the fact's new value."""
        self._said.clear()  # the wants change: forget their sentences
        self._corrections_said.clear()
        for c in changes:
            if c.lead:
                draft.say(c.lead)
            self._current[c.fact] = c.value
            self._stated_at[c.fact] = turn
            self._state(draft, c.fact, turn)
            if c.silent:
                self.contradicted.add(c.fact)

    def _volunteer(
        self, draft: _Draft, turn: int, quota: int, *, optional_only: bool = False
    ) -> int:
        """State up to ``quota`` pending facts the plan allows by ``turn``; how many."""
        ready = [
            fid
            for fid in self._pending
            if self.plan.earliest[fid] <= turn and not (optional_only and fid in self._is_required)
        ][:quota]
        for fid in ready:
            if self._stack is not None and self._say_vaguely(draft, fid, turn):
                continue
            self._state(draft, fid, turn)
        return len(ready)

    def _say_vaguely(self, draft: _Draft, fact_id: str, turn: int) -> bool:
        """An ambiguity: the fact comes out vague, to be given precisely when asked."""
        assert self._stack is not None
        value = self._current[fact_id]
        slot = self._slot_of[fact_id]
        text = self._stack.vague(slot, turn, self._placeholders(fact_id, value))
        if text is None:
            return False
        draft.say(text)  # nothing disclosed: the agent has to ask
        self._pending.remove(fact_id)
        return True

    # ------------------------------------------------------------ wording

    def _state(
        self,
        draft: _Draft,
        fact_id: str,
        turn: int,
        *,
        correcting: bool = False,
    ) -> None:
        value = self._current[fact_id]
        # one draw picks the phrasing, already formatted with the value (the voice keeps
        # them; this session keeps each fact's while its value stands)
        said = self._corrections_said if correcting else self._said
        sentences = said.get(fact_id)
        if sentences is None:
            sentences = said[fact_id] = self._voice.sentences(
                self.persona.language,
                self._style,
                self._slot_of[fact_id],
                value,
                correcting=correcting,
            )
        draft.fact(choose(self._bits, sentences), fact_id, value)
        if fact_id in self._pending:
            self._pending.remove(fact_id)
        self._stated_at.setdefault(fact_id, turn)

    def _placeholders(self, fact_id: str, value: FactValue) -> dict[str, str]:
        """The value's placeholder table; ValueError when the fact cannot be voiced."""
        slot = self._slot_of[fact_id]
        if not self._book.slots.get(slot):
            raise ValueError(
                f"no {self.persona.language!r} phrasing for slot {slot!r} in domain "
                f"{self.domain.id!r}"
            )
        return self._voice.values(slot, value, self.persona.language)

    def _phrase(self, key: str) -> str:
        return choose(self._bits, self._book.connectives[key])

    def _close(self, stop: StopSignal, turn: int) -> UserTurn:
        draft = _Draft()
        draft.say(self._phrase("done" if stop is StopSignal.DONE else "gave_up"))
        return self._finish(draft, turn, stop)

    def _finish(self, draft: _Draft, turn: int, stop: StopSignal | None = None) -> UserTurn:
        parts = draft.parts
        if turn in self.plan.filler_turns and self._book.fillers:
            filler = choose(self._bits, self._book.fillers)
            at = 0 if turn in self.plan.filler_first else len(parts)
            parts.insert(at, filler)
            draft.typo_ok.insert(at, True)
        if self._typo_rate > 0:
            rng, rate = self._rng, self._typo_rate
            parts = [
                add_typos(p, rate, rng) if ok else p
                for p, ok in zip(parts, draft.typo_ok, strict=True)
            ]
        if self._strip:  # sentence by sentence: stripping maps each character on its own
            parts = [stripped_sentence(p) for p in parts]
        text = " ".join(parts)
        if self._stack is not None:
            if self._decorate:
                text = self._stack.decorate(text, turn, closing=stop is not None)
            return UserTurn(
                text=text,
                disclosed=draft.disclosed,
                perturbations=list(self._stack.landed),
                stop=stop,
            )
        return UserTurn(text=text, disclosed=draft.disclosed, stop=stop)
