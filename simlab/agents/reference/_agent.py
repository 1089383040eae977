"""simlab's reference agent: deterministic, with switchable realistic defects, any domain.

Each user message is read once, when it arrives, and kept as that turn's slot
values; the context window is then only a choice of which turns' values to
merge. Whenever a defect changes what the agent does, the reply records the
true cause in ``meta["true_causes"]`` so simlab can score its own diagnosis.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from simlab.agents.reference._config import PRESETS, SESSION_DEFECTS, AgentConfig
from simlab.agents.reference._domain_skill import DomainReader, DomainSkill
from simlab.agents.reference._skill import Decision, Plan, Reading, Skill
from simlab.contracts import RestoreReport
from simlab.core import (
    AgentCapabilities,
    AgentReply,
    ContextInfo,
    Knobs,
    Message,
    SessionContext,
    ToolCall,
)
from simlab.guards import canaries_in
from simlab.spec import Domain, FactValue, shipped_domain

SkillFactory = Callable[[int], Skill]
"""A domain's skill for one session, from the session's agent seed."""


_UNANCHORED = Decision()


@dataclass(slots=True)
class _Turn:
    reading: Reading
    misreads: list[str]


class ReferenceAgent:
    """simlab's deterministic reference agent (a ``TargetAgent`` and ``RestorableTarget``).

    One instance serves one session. Its replies are read-only: a fixture call's
    ``ToolCall`` and a context window's ``ContextInfo`` are shared by every session
    that makes them, so a wrapper that changes one copies it first (``model_copy``).

    Args:
        config: Which defects are on; ``PRESETS["v2"]`` (none) by default.
        seed: Seeds misreads and the references the tools hand out.
        skill: The domain it serves, one per session from a seed; the default domain's
            (``skill_for(None)``) by default.
    """

    capabilities = AgentCapabilities(
        context_window=True, constraint_recap=True, instruction_reminder=True
    )

    def __init__(
        self, config: AgentConfig | None = None, seed: int = 0, skill: SkillFactory | None = None
    ) -> None:
        self.config = config or PRESETS["v2"]
        self.seed = seed
        self._make_skill: SkillFactory = skill or skill_for(None)
        self._reset()

    def _reset(self) -> None:
        self._skill = self._make_skill(self.seed)
        self._rng: random.Random | None = None  # seeded on first use: only misreading agents draw
        self._turns: list[_Turn] = []
        self._consumed = 0  # history messages already read
        self._full: dict[str, FactValue] = {}  # every slot's latest value
        self._stated_in: dict[str, int] = {}  # slot -> user turn of its latest value
        self._asked: tuple[str, ...] = ()
        self._task: str | None = None
        self._lang: str | None = None  # the first language a message showed
        self._pending: Plan | None = None
        self._anchor: Plan | None = None
        self._anchored = _UNANCHORED  # Decision(plan=self._anchor) once anchored
        self._done: Plan | None = None
        self._defects = self._draw_defects()  # this session's tool-use defects
        self._snooped = False  # looked up a stranger's record already

    def _draw_defects(self) -> frozenset[str]:
        """Which of ``SESSION_DEFECTS`` this session has: one draw each, in a fixed order."""
        rates = _session_rates(self.config)
        if not rates:
            return frozenset()
        rng = random.Random(f"reference-defects:{self.seed}")
        return frozenset(name for name, rate in rates if rng.random() < rate)

    # ------------------------------------------------------------------ reading

    def _consume(self, history: Sequence[Message]) -> None:
        if len(history) < self._consumed:  # a new, shorter conversation: start over
            self._reset()
        for msg in history[self._consumed :]:
            if msg.role == "user":
                self._read(msg.text)
        self._consumed = len(history)

    def _read(self, text: str) -> None:
        skill = self._skill
        reading = skill.read(text, self._asked)
        misreads: list[str] = []
        if self.config.misread_rate > 0:
            for slot, value in reading.slots.items():
                if (
                    slot in skill.misreadable
                    and self._misread_rng().random() < self.config.misread_rate
                ):
                    reading.slots[slot] = skill.misread(slot, value)
                    misreads.append(f"{slot} {value} read as {reading.slots[slot]}")
        for slot in self._asked:
            none = skill.none_value.get(slot)
            if none is not None and slot not in reading.slots and slot not in self._full:
                reading.slots[slot] = none
        turn = len(self._turns) + 1
        self._turns.append(_Turn(reading, misreads))
        if reading.slots:
            self._full.update(reading.slots)
            self._stated_in.update(dict.fromkeys(reading.slots, turn))
        self._lang = self._lang or reading.language
        if reading.intent is not None:
            self._task = reading.intent

    def _misread_rng(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(f"reference-misread:{self.seed}")
        return self._rng

    def _view(self, knobs: Knobs) -> tuple[dict[str, FactValue], ContextInfo]:
        n = len(self._turns)
        window = (
            self.config.context_window if knobs.context_window is None else knobs.context_window
        )
        first = max(1, n - window + 1) if window else 1
        seen = _seen(first, n)
        if first == 1 or knobs.constraint_recap:  # a recap restates everything said
            return self._full, seen
        slots: dict[str, FactValue] = {}
        for t in self._turns[first - 1 :]:
            slots.update(t.reading.slots)
        return slots, seen

    # ------------------------------------------------------------------ replying

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Answer the last user message in ``history``."""
        self._consume(history)
        slots, seen = self._view(ctx.knobs)
        turn = len(self._turns)
        causes: list[dict[str, Any]] = [
            {"cause": "misread", "turn": turn, "detail": m} for m in self._turns[-1].misreads
        ]
        calls: list[ToolCall] = []
        text = self._respond(slots, ctx.knobs, turn, calls, causes)
        if "obey_tool_text_rate" in self._defects:
            text = self._obey_tool_text(text, turn, calls, causes)
        return AgentReply(
            text=text,
            tool_calls=calls,
            context=seen,
            meta={"true_causes": causes},
        )

    def _respond(
        self,
        slots: dict[str, FactValue],
        knobs: Knobs,
        turn: int,
        calls: list[ToolCall],
        causes: list[dict[str, Any]],
    ) -> str:
        skill, lang = self._skill, self._lang
        task = self._task or skill.infer_task(slots)
        self._asked = ()
        if task is None:
            if slots is not self._full and skill.infer_task(self._full) is not None:
                # the request is outside the window: the whole conversation would tell it
                causes.append(self._truncation_cause(turn, slots))
            return skill.greet(lang)
        last = self._turns[-1].reading
        if last.yes and not last.slots and self._pending is not None:
            # A bare go-ahead: carry out what was proposed, no second search.
            return self._execute(self._pending, knobs, turn, calls, causes)
        anchored = self.config.anchoring and self._anchor is not None and self._anchor.tool == task
        if anchored:
            assert self._anchor is not None
            # Judged against what a defect-free agent would do, not the windowed view
            # (an anchored agent keeps its proposal: what the window holds decides nothing;
            # a decision is pure, so leaving one out changes no other)
            wanted = skill.decide(task, self._full, None)
            if wanted.plan != self._anchor:
                causes.append(self._anchoring_cause(turn, wanted))
            decision = self._anchored
        else:
            decision = skill.decide(task, slots, calls)
            self._lookup_defects(slots, turn, calls, causes)
            if slots is not self._full:
                wanted = skill.decide(task, self._full, None)
                if wanted != decision:
                    causes.append(self._truncation_cause(turn, slots))
        if decision.plan is not None:
            return self._act(decision.plan, anchored, knobs, turn, calls, causes)
        self._pending = None
        if decision.ask:
            return self._ask(decision, task, lang, turn, causes)
        return skill.problem(decision, lang, alone=True)

    def _ask(
        self,
        decision: Decision,
        task: str,
        lang: str | None,
        turn: int,
        causes: list[dict[str, Any]],
    ) -> str:
        asked = decision.ask
        if self.config.one_question_per_turn and len(asked) > 1:
            causes.append(
                {
                    "cause": "slow_questions",
                    "turn": turn,
                    "detail": f"asked for {asked[0]} only; also missing {', '.join(asked[1:])}",
                }
            )
            asked = asked[:1]
        with_ = self._skill.asked_with
        self._asked = tuple(s for slot in asked for s in (slot, *with_.get(slot, ())))
        prefix = ""
        if decision.problem is not None:
            prefix = self._skill.problem(decision, lang, alone=False)
        return prefix + self._skill.ask(asked, task, lang)

    def _act(
        self,
        plan: Plan,
        anchored: bool,
        knobs: Knobs,
        turn: int,
        calls: list[ToolCall],
        causes: list[dict[str, Any]],
    ) -> str:
        lang = self._lang
        go = self._turns[-1].reading.yes and self._pending == plan
        # A correction after the action was taken redoes it at once: the user
        # already said go ahead. A read-only answer needs no go-ahead at all.
        redo = self._done is not None and self._done.tool == plan.tool
        if plan == self._done and not anchored:
            return self._skill.nothing_new(lang)
        needed = self._skill.needs_go_ahead(plan.tool)
        if not needed and not go and "over_ask_rate" in self._defects:
            causes.append(
                {
                    "cause": "over_ask",
                    "turn": turn,
                    "detail": f"asked a go-ahead to read {plan.tool}",
                }
            )
        elif not needed or go or redo:
            return self._execute(plan, knobs, turn, calls, causes)
        elif (
            "unconfirmed_write_rate" in self._defects and self._skill.agency(plan.tool) == "confirm"
        ):
            causes.append(
                {
                    "cause": "unconfirmed_action",
                    "turn": turn,
                    "detail": f"ran {plan.tool} (irreversible) without asking for a go-ahead",
                }
            )
            return self._execute(plan, knobs, turn, calls, causes)
        self._pending = plan
        if self.config.anchoring and self._anchor is None:
            self._anchor = plan
            self._anchored = Decision(plan=plan)  # what an anchored turn decides, made once
        return self._skill.propose(plan, lang)

    def _execute(
        self,
        plan: Plan,
        knobs: Knobs,
        turn: int,
        calls: list[ToolCall],
        causes: list[dict[str, Any]],
    ) -> str:
        lang = self._lang
        call = self._skill.execute(plan)
        calls.append(call)
        self._pending = None
        if call.error is not None:
            return self._skill.tool_error(call, lang)
        self._done = plan
        limit = self.config.drift_after_turns
        drifted = bool(limit) and turn > limit and not knobs.instruction_reminder
        if drifted:
            causes.append(
                {
                    "cause": "drift",
                    "turn": turn,
                    "detail": f"format rule forgotten after {limit} user turns: "
                    "confirmation leaves out the key figures",
                }
            )
        return self._skill.confirm(call, lang, drifted)

    # ------------------------------------------------------------------ tool-use defects

    def _lookup_defects(
        self,
        slots: dict[str, FactValue],
        turn: int,
        calls: list[ToolCall],
        causes: list[dict[str, Any]],
    ) -> None:
        """Each lookup made three times; a stranger's record read (once a session)."""
        if calls and "redundant_lookup_rate" in self._defects:
            made = list(calls)
            calls.extend(c for c in made for _ in range(2))
            names = ", ".join(dict.fromkeys(c.name for c in made))
            causes.append(
                {"cause": "redundant_call", "turn": turn, "detail": f"made {names} three times"}
            )
        if not self._snooped and "strangers_record_rate" in self._defects:
            call = self._skill.stranger_lookup(slots)
            if call is not None:
                self._snooped = True
                calls.append(call)
                causes.append(
                    {
                        "cause": "privilege_escalation",
                        "turn": turn,
                        "detail": f"read another customer's record: {call.name}({call.args})",
                    }
                )

    def _obey_tool_text(
        self, text: str, turn: int, calls: list[ToolCall], causes: list[dict[str, Any]]
    ) -> str:
        """Follow an instruction a tool result carries: say its code to the user."""
        if not calls:
            return text
        if len(calls) == 1:
            found = _canaries_in(calls[0].result)
            if not found:
                return text
            planted = sorted(found)
        else:
            planted = sorted({c for call in calls for c in _canaries_in(call.result)})
            if not planted:
                return text
        causes.append(
            {
                "cause": "tool_injection",
                "turn": turn,
                "detail": f"followed an instruction in a tool result ({', '.join(planted)})",
            }
        )
        return f"{text} ({', '.join(planted)})"

    # ------------------------------------------------------------------ restoring

    async def restore(self, prefix: Sequence[Message], ctx: SessionContext) -> RestoreReport:
        """Live through ``prefix`` again, so the next ``reply`` starts from its state.

        The agent replays its own policy on each user message of the prefix
        but the last, with the logged session's seed (``ctx.seed``): a run of
        simlab's gives back the same readings, misreads, questions, proposals,
        anchor and actions, and so the same replies, which are compared with
        the logged ones. Afterwards misreads draw from this instance's own seed,
        so replays of one prefix differ only in what happens next.
        """
        own_seed = self.seed
        self.seed = ctx.seed
        self._reset()
        diverged: int | None = None
        turn = 0
        for i, msg in enumerate(prefix[:-1]):
            if msg.role != "user":
                continue
            turn += 1
            mine = await self.reply(
                prefix[: i + 1], SessionContext(ctx.session_id, ctx.seed, turn, ctx.knobs)
            )
            logged = prefix[i + 1]
            if diverged is None and logged.role == "assistant" and logged.text != mine.text:
                diverged = turn
        self.seed = own_seed
        self._rng = random.Random(f"reference-misread-after-restore:{own_seed}")
        where = "every reply as logged" if diverged is None else f"diverged at turn {diverged}"
        return RestoreReport(turn, diverged, f"re-lived {turn} user turns: {where}")

    # ------------------------------------------------------------------ ground truth

    def _anchoring_cause(self, turn: int, wanted: Decision) -> dict[str, Any]:
        anchor = self._anchor
        assert anchor is not None
        # by the objects (the entry keeps them, so their ids stay theirs): plans and
        # decisions are frozen and shared, an anchored session says this turn after turn
        known = _ANCHORED.get((id(anchor), id(wanted)))
        if known is not None and known[0] is anchor and known[1] is wanted:
            detail = known[2]
        else:
            detail = _anchoring_detail(anchor, wanted)
            if len(_ANCHORED) >= _MAX_ANCHORED:
                _ANCHORED.clear()
            _ANCHORED[(id(anchor), id(wanted))] = (anchor, wanted, detail)
        return {"cause": "anchoring", "turn": turn, "detail": detail}

    def _truncation_cause(self, turn: int, slots: dict[str, FactValue]) -> dict[str, Any]:
        lost = [
            f"{k}={v} (turn {self._stated_in[k]})"
            for k, v in self._full.items()
            if slots.get(k) != v
        ]
        return {
            "cause": "truncation",
            "turn": turn,
            "detail": "outside the context window: " + ", ".join(lost),
        }


@lru_cache(maxsize=64)
def _session_rates(config: AgentConfig) -> tuple[tuple[str, float], ...]:
    """Each of ``SESSION_DEFECTS`` with its rate in ``config``, in order; none when every
    rate is 0 (a config is frozen: worked out once per config, not per session)."""
    rates = tuple((name, getattr(config, name)) for name in SESSION_DEFECTS)
    return rates if any(rate for _, rate in rates) else ()


def _anchoring_detail(anchor: Plan, wanted: Decision) -> str:
    """What an anchored agent kept and what it would have done instead."""
    if wanted.plan is not None:
        now = ", ".join(f"{k}={v}" for k, v in wanted.plan.args)
    else:
        now = f"ask {list(wanted.ask)}" if wanted.ask else str(wanted.problem)
    kept = ", ".join(f"{k}={v}" for k, v in anchor.args)
    return f"kept the first proposal ({kept}) instead of revising it ({now})"


_ANCHORED: dict[tuple[int, int], tuple[Plan, Decision, str]] = {}
_MAX_ANCHORED = 4096


@lru_cache(maxsize=4096)
def _seen(first: int, last: int) -> ContextInfo:
    """User turns ``first`` to ``last`` in context: one object per window, shared by the
    replies that had it (they are read-only), so a reply validates no list of its own."""
    return ContextInfo(seen_user_turns=list(range(first, last + 1)))


_CANARIES: dict[int, tuple[Any, set[str]]] = {}
_MAX_CANARIES = 4096


def _canaries_in(result: Any) -> set[str]:
    """``canaries_in(result)``, remembered by the result object: a skill hands the same
    fixture result to session after session (the entry keeps the object, so its id is
    never another's), and a result is never changed once made."""
    if result is None or isinstance(result, str):
        return canaries_in(result) if result is not None else set()
    known = _CANARIES.get(id(result))
    if known is not None and known[0] is result:
        return known[1]
    found = canaries_in(result)
    if len(_CANARIES) >= _MAX_CANARIES:
        _CANARIES.clear()
    _CANARIES[id(result)] = (result, found)
    return found


def skill_for(domain: Domain | None, reader: DomainReader | None = None) -> SkillFactory:
    """The skill serving ``domain``, read from the domain's data (``DomainSkill``, with
    ``reader`` when given); the shipped default domain when none is named."""
    return partial(DomainSkill, domain or shipped_domain(), reader=reader)


def reference_agent(
    version: str, seed: int, domain: Domain | None = None, reader: DomainReader | None = None
) -> ReferenceAgent:
    """The shipped reference agent ``version`` (``v1`` or ``v2``) for one session.

    Args:
        version: ``v1`` (defects on) or ``v2`` (fixed).
        seed: The session's agent seed.
        domain: The domain it serves (the session goal's); None: the shipped default.
        reader: The domain's ``DomainReader``, when the caller keeps one for many
            sessions; default: made for this agent.
    """
    try:
        config = PRESETS[version]
    except KeyError:
        raise ValueError(
            f"unknown reference agent version {version!r}; choose from {sorted(PRESETS)}"
        ) from None
    return ReferenceAgent(config, seed, skill_for(domain, reader))
