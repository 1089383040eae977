"""simlab's reference agent: deterministic, with switchable realistic defects, any domain.

Whenever a defect changes what the agent does, the reply records the true cause in
``meta["true_causes"]`` (``_causes``) so simlab can score its own diagnosis.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial

from simlab.agents.reference import _causes
from simlab.agents.reference._causes import Cause
from simlab.agents.reference._config import PRESETS, SESSION_DEFECTS, AgentConfig
from simlab.agents.reference._domain_skill import DomainSkill, SharedDomain
from simlab.agents.reference._heard import HeardTurns, View
from simlab.agents.reference._skill import Decision, Plan, Skill
from simlab.contracts import RestoreReport
from simlab.core import AgentCapabilities, AgentReply, Knobs, Message, SessionContext, ToolCall
from simlab.guards import canaries_in
from simlab.spec import Domain, shipped_domain

SkillFactory = Callable[[int], Skill]
"""A domain's skill for one session, from the session's agent seed."""


class _Reply:
    """What one reply has built so far: its tool calls and true causes, in order."""

    def __init__(self, turn: int, knobs: Knobs) -> None:
        self.turn = turn
        self.knobs = knobs
        self.calls: list[ToolCall] = []
        self.causes: list[Cause] = []


class ReferenceAgent:
    """simlab's deterministic reference agent (a ``TargetAgent`` and ``RestorableTarget``).

    One instance serves one session.

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
        self._heard = HeardTurns()
        self._history_read = 0  # history messages already read
        self._asked: tuple[str, ...] = ()  # the slots the last reply asked for
        self._task: str | None = None
        self._lang: str | None = None  # the first language a message showed
        self._pending: Plan | None = None  # proposed, awaiting a go-ahead
        self._anchor: Plan | None = None  # the first proposal, kept by an anchored agent
        self._done: Plan | None = None  # the last plan carried out
        self._defects = self._draw_defects()  # this session's tool-use defects
        self._snooped = False  # looked up a stranger's record already

    def _draw_defects(self) -> frozenset[str]:
        """Which of ``SESSION_DEFECTS`` this session has: one draw each, in a fixed order."""
        rates = [(name, getattr(self.config, name)) for name in SESSION_DEFECTS]
        if not any(rate for _, rate in rates):
            return frozenset()
        rng = random.Random(f"reference-defects:{self.seed}")
        return frozenset(name for name, rate in rates if rng.random() < rate)

    # reading

    def _read_new(self, history: Sequence[Message]) -> None:
        if len(history) < self._history_read:  # a new, shorter conversation: start over
            self._reset()
        for msg in history[self._history_read :]:
            if msg.role == "user":
                self._read(msg.text)
        self._history_read = len(history)

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
            latest = self._heard.latest_values
            if none is not None and slot not in reading.slots and slot not in latest:
                reading.slots[slot] = none
        self._heard.add(reading, tuple(misreads))
        self._lang = self._lang or reading.language
        if reading.intent is not None:
            self._task = reading.intent

    def _misread_rng(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(f"reference-misread:{self.seed}")
        return self._rng

    def _view(self, knobs: Knobs) -> View:
        window = knobs.context_window
        if window is None:
            window = self.config.context_window
        return self._heard.view(window, knobs.constraint_recap)

    # replying

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Answer the last user message in ``history``."""
        self._read_new(history)
        view = self._view(ctx.knobs)
        turn = len(self._heard.turns)
        reply = _Reply(turn, ctx.knobs)
        for misread in self._heard.turns[-1].misreads:
            reply.causes.append(_causes.cause("misread", turn, misread))
        text = self._respond(view, reply)
        if "obey_tool_text_rate" in self._defects:
            text = self._obey_tool_text(text, reply)
        return AgentReply(
            text=text,
            tool_calls=reply.calls,
            context=view.context,
            meta={"true_causes": reply.causes},
        )

    def _respond(self, view: View, reply: _Reply) -> str:
        skill, lang = self._skill, self._lang
        task = self._task or skill.infer_task(view.slots)
        self._asked = ()
        if task is None:
            if view.windowed and skill.infer_task(self._heard.latest_values) is not None:
                # the request is outside the window: the whole conversation would tell it
                reply.causes.append(self._truncation(reply.turn, view))
            return skill.greet(lang)
        last = self._heard.turns[-1].reading
        if last.yes and not last.slots and self._pending is not None:
            # A bare go-ahead: carry out what was proposed, no second search.
            return self._execute(self._pending, reply)
        anchor = self._anchor if self.config.anchoring else None
        if anchor is not None and anchor.tool == task:
            decision = self._anchored(task, anchor, reply)
        else:
            anchor = None
            decision = skill.decide(task, view.slots, reply.calls)
            self._lookup_defects(view, reply)
            if view.windowed:
                wanted = skill.decide(task, self._heard.latest_values, None)
                if wanted != decision:
                    reply.causes.append(self._truncation(reply.turn, view))
        if decision.plan is not None:
            return self._act(decision.plan, anchor is not None, reply)
        self._pending = None
        if decision.ask:
            return self._ask(decision, task, reply)
        return skill.problem(decision, lang, alone=True)

    def _anchored(self, task: str, anchor: Plan, reply: _Reply) -> Decision:
        """An anchored agent keeps its first proposal, whatever the window holds; it is
        judged against what a defect-free agent would do with every value said."""
        wanted = self._skill.decide(task, self._heard.latest_values, None)
        if wanted.plan != anchor:
            reply.causes.append(_causes.anchoring(reply.turn, anchor, wanted))
        return Decision(plan=anchor)

    def _ask(self, decision: Decision, task: str, reply: _Reply) -> str:
        asked = decision.ask
        if self.config.one_question_per_turn and len(asked) > 1:
            reply.causes.append(_causes.slow_questions(reply.turn, asked))
            asked = asked[:1]
        with_ = self._skill.asked_with
        self._asked = tuple(s for slot in asked for s in (slot, *with_.get(slot, ())))
        prefix = ""
        if decision.problem is not None:
            prefix = self._skill.problem(decision, self._lang, alone=False)
        return prefix + self._skill.ask(asked, task, self._lang)

    def _act(self, plan: Plan, anchored: bool, reply: _Reply) -> str:
        go = self._heard.turns[-1].reading.yes and self._pending == plan
        # A correction after the action was taken redoes it at once: the user
        # already said go ahead. A read-only answer needs no go-ahead at all.
        redo = self._done is not None and self._done.tool == plan.tool
        if plan == self._done and not anchored:
            return self._skill.nothing_new(self._lang)
        needed = self._skill.needs_go_ahead(plan.tool)
        if not needed and not go and "over_ask_rate" in self._defects:
            reply.causes.append(_causes.over_ask(reply.turn, plan.tool))
        elif not needed or go or redo:
            return self._execute(plan, reply)
        elif (
            "unconfirmed_write_rate" in self._defects and self._skill.agency(plan.tool) == "confirm"
        ):
            reply.causes.append(_causes.unconfirmed_action(reply.turn, plan.tool))
            return self._execute(plan, reply)
        self._pending = plan
        if self.config.anchoring and self._anchor is None:
            self._anchor = plan
        return self._skill.propose(plan, self._lang)

    def _execute(self, plan: Plan, reply: _Reply) -> str:
        call = self._skill.execute(plan)
        reply.calls.append(call)
        self._pending = None
        if call.error is not None:
            return self._skill.tool_error(call, self._lang)
        self._done = plan
        limit = self.config.drift_after_turns
        drifted = bool(limit) and reply.turn > limit and not reply.knobs.instruction_reminder
        if drifted:
            reply.causes.append(_causes.drift(reply.turn, limit))
        return self._skill.confirm(call, self._lang, drifted)

    def _truncation(self, turn: int, view: View) -> Cause:
        heard = self._heard
        return _causes.truncation(turn, heard.latest_values, heard.stated_in, view.slots)

    # tool-use defects

    def _lookup_defects(self, view: View, reply: _Reply) -> None:
        """Each lookup made three times; a stranger's record read (once a session)."""
        if reply.calls and "redundant_lookup_rate" in self._defects:
            made = list(reply.calls)
            reply.calls.extend(c for c in made for _ in range(2))
            reply.causes.append(_causes.redundant_calls(reply.turn, made))
        if not self._snooped and "strangers_record_rate" in self._defects:
            call = self._skill.stranger_lookup(view.slots)
            if call is not None:
                self._snooped = True
                reply.calls.append(call)
                reply.causes.append(_causes.privilege_escalation(reply.turn, call))

    def _obey_tool_text(self, text: str, reply: _Reply) -> str:
        """Follow an instruction a tool result carries: say its code to the user."""
        planted = sorted({c for call in reply.calls for c in canaries_in(call.result)})
        if not planted:
            return text
        reply.causes.append(_causes.tool_injection(reply.turn, planted))
        return f"{text} ({', '.join(planted)})"

    # restoring

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


def skill_for(domain: Domain | None) -> SkillFactory:
    """The skill serving ``domain`` (the shipped default domain when None), one per
    session from its seed; its sessions share one ``SharedDomain``."""
    domain = domain or shipped_domain()
    return partial(DomainSkill, domain, shared=SharedDomain(domain))


def preset(version: str) -> AgentConfig:
    """The shipped reference agent config ``version`` (``v1`` or ``v2``)."""
    try:
        return PRESETS[version]
    except KeyError:
        raise ValueError(
            f"unknown reference agent version {version!r}; choose from {sorted(PRESETS)}"
        ) from None


def reference_agent(version: str, seed: int, domain: Domain | None = None) -> ReferenceAgent:
    """The shipped reference agent ``version`` (``v1`` or ``v2``) for one session.

    Args:
        version: ``v1`` (defects on) or ``v2`` (fixed).
        seed: The session's agent seed.
        domain: The domain it serves (the session goal's); None: the shipped default.
    """
    return ReferenceAgent(preset(version), seed, skill_for(domain))
