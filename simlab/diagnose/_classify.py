"""Classify a failed session's cause by code, from its transcript alone.

The rules, in order (the first that holds wins); ``F`` is the first failing
turn, ``s`` the turn that stated the violated fact's value in force at ``F``:

1. **truncation** - the failure is a broken constraint and ``s`` is not among
   the user turns the agent reported seeing at ``F``
   (``AgentReply.context.seen_user_turns``). For a session that never took
   its final action: the user had to restate a fact, with the same value, in
   reply to an agent turn that no longer saw where it was first stated.
   Or (either kind of failure) the agent lost the user's *opening*, what the
   user came for: the opening is the user turns up to the agent's first reply
   on the request (asking for a slot, proposing or acting; turn 1 when it took
   the request up at once). The agent's last reply, where the failure is still
   in force, sees none of them in its reported view and asks again what the
   user wants (every question in it holds one of the domain's ``open_cues``,
   and it made no tool call), and its last reply that still saw the opening
   was on the request, not at a dead end; for a broken constraint, that reply,
   if it came after ``s``, restated the fact's value (the agent took the fact
   up, and then lost the request: ``_opening_lost``).
   A target that reports no view (a black box) is judged by experiment
   instead: the unlimited-window replay fixes the failure and the reminder
   replay does not (``window_alone``).
2. **anchoring** - the failure is a broken constraint, and at some turn
   ``p < s`` the agent had already committed to exactly the action in force
   at ``F``: it made the same final tool call (same arguments), or its reply
   stated every argument value of that call (a proposal). The constraint came
   after the commitment and the commitment was never revised. Also when the
   agent's reply at some turn ``q`` in ``[s, F]`` repeats word for word its
   reply at a turn ``p < s``, or when the action still carries, for an equality
   constraint, a value the user stated for the fact before ``s`` and changed in
   ``s`` (the agent acted on the user's first word: a mind change that came before
   any proposal). For a session that never took its final action:
   after the user stated an equality fact, the agent repeated word for word a
   reply from before it that does not state the fact's value.
3. **drift** - the failure is the confirmation rule (the agent's reply to its
   final action leaves out fields it must state), ``F >= late_turn`` (a long
   session), and the agent kept that rule in some other session of the run
   for the same goal, so it knows the rule: it let it slip late.
4. **single_turn** - none of the above, and either (a) the failure is a
   broken constraint whose statement was in the agent's context at ``F``
   with no earlier commitment to explain it (the agent got a fact wrong in
   plain view, as it would in one turn; for a target that reports no view:
   an unlimited window does not fix it), or (b) the same persona and goal
   also fail in ``full`` mode in this run for a reason rules 1-3 do not
   explain (a ``full``-mode failure is itself such a failure): the agent
   cannot do the task even when told everything at once.
5. **unknown** - otherwise.

Nothing here reads ``meta["true_causes"]``: that is the ground truth the
diagnosis is measured against. ``without_internals`` withholds the agent's
self-reports (its view and its meta) from a record, to measure the diagnosis
of a black box.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from frozendict import frozendict

from simlab.core import AgentReply, ToolCall, Transcript
from simlab.diagnose._failure import FirstFailure
from simlab.graders import action_view, final_action, same_value
from simlab.simulators import questions_in, read_reply
from simlab.spec import Domain, Goal
from simlab.store import Cause, SessionRecord

DEFAULT_LATE_TURN = 5
"""A confirmation broken at this user turn or later counts as late (the ``5-9`` bucket on)."""


@dataclass(frozen=True, slots=True)
class Classification:
    """A diagnosed cause with the evidence that made the rule fire."""

    cause: Cause
    evidence: str


def _reply(transcript: Transcript, turn: int) -> AgentReply | None:
    for t in transcript.turns:
        if t.index == turn:
            return t.agent
    return None


def _seen(transcript: Transcript, turn: int) -> tuple[int, ...] | None:
    reply = _reply(transcript, turn)
    if reply is None or reply.context is None:
        return None
    return reply.context.seen_user_turns


def _written(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip().lower()


def _states_all(text: str, values: Iterable[Any]) -> bool:
    """Whether ``text`` states each value as a whole token (``2`` is not in ``2026``)."""
    low = text.lower()
    for value in values:
        # Not part of a longer number, date or time: "1" is not in "10/1/2027".
        pattern = r"(?<![\w./:\-])" + re.escape(_written(value)) + r"(?![\w/:\-]|\.\d)"
        if re.search(pattern, low) is None:
            return False
    return True


def _commitment_turn(goal: Goal, transcript: Transcript, call: ToolCall, before: int) -> int | None:
    """The earliest turn ``< before`` whose reply made or proposed exactly ``call``."""
    for t in transcript.turns:
        if t.index >= before:
            break
        if t.agent is None:
            continue
        finals = [c for c in t.agent.tool_calls if c.name == goal.final_tool and c.error is None]
        if finals:
            if any(c.args == call.args for c in finals):
                return t.index
            continue  # it did something else then: not a commitment to this call
        if call.args and _states_all(t.agent.text, call.args.values()):
            return t.index
    return None


def _superseded_value_kept(
    goal: Goal, transcript: Transcript, failure: FirstFailure, call: ToolCall
) -> tuple[int, Any] | None:
    """The turn and value of an earlier statement of the broken fact that the action
    still carries: the user changed the value in ``failure.stated_turn`` and the agent
    acted on the one said before (anchored on the user's first word, with no proposal
    to anchor on). ``None`` when the action holds no value the user said earlier."""
    if failure.fact is None or failure.stated_turn is None:
        return None
    constraint = next((c for c in goal.constraints if c.fact == failure.fact), None)
    view = action_view(call)
    if constraint is None or constraint.op != "eq" or constraint.field not in view:
        return None
    got = view[constraint.field]
    for t in transcript.turns:
        if t.index >= failure.stated_turn:
            break
        said = t.user.disclosed.get(failure.fact)
        if said is not None and same_value(got, said):
            return t.index, said
    return None


def _repeated_reply(transcript: Transcript, stated: int, upto: int) -> tuple[int, int] | None:
    """Turns ``(p, q)``, ``p < stated <= q <= upto``, whose agent replies are word for word
    the same: the agent said again what it said before the user added the fact."""
    earlier: dict[str, int] = {}
    for t in transcript.turns:
        if t.agent is None or t.index > upto:
            continue
        text = t.agent.text.strip()
        if not text:
            continue
        if t.index < stated:
            earlier.setdefault(text, t.index)
        elif text in earlier:
            return earlier[text], t.index
    return None


def _restated_unseen(transcript: Transcript) -> tuple[int, str, int] | None:
    """A fact restated unchanged because the agent lost the turn that stated it.

    Returns ``(restating turn, fact, first statement turn)``.
    """
    first: dict[str, tuple[Any, int]] = {}
    previous: AgentReply | None = None
    for t in transcript.turns:
        if t.user.stop is not None:
            break
        for fact, value in t.user.disclosed.items():
            earlier = first.get(fact)
            if earlier is None or earlier[0] != value:
                first[fact] = (value, t.index)
                continue
            seen = previous.context.seen_user_turns if previous and previous.context else None
            if seen is not None and earlier[1] not in seen:
                return t.index, fact, earlier[1]
        previous = t.agent
    return None


def _asks_anew(reply: AgentReply, domain: Domain | None) -> bool:
    """Whether ``reply`` only asks what the user wants: an open question (all its
    questions hold the domain's ``open_cues``), and no tool call."""
    return not reply.tool_calls and read_reply(reply.text, domain).open


def _on_request(reply: AgentReply, goal: Goal, domain: Domain | None) -> bool:
    """Whether ``reply`` works on the user's request: it carries out the goal's final
    action, or, asking no open question, asks for a slot, proposes or calls a tool.

    A reply that ends in an open question after other tool calls ("nothing fits;
    anything else?") has come to a dead end: it is no longer on the request.
    """
    if any(c.name == goal.final_tool and c.error is None for c in reply.tool_calls):
        return True
    reading = read_reply(reply.text, domain)
    return not reading.open and (bool(reading.slots) or reading.confirm or bool(reply.tool_calls))


def _took_up(transcript: Transcript, failure: FirstFailure, turn: int, reply: AgentReply) -> bool:
    """Whether ``reply`` (at ``turn``) had taken up the fact of a broken constraint: it
    came before the fact was stated, or it states the fact's value."""
    if failure.kind != "constraint" or failure.fact is None or failure.stated_turn is None:
        return True
    if turn < failure.stated_turn:
        return True
    said = next((t.user.disclosed for t in transcript.turns if t.index == failure.stated_turn), {})
    return failure.fact in said and _states_all(reply.text, [said[failure.fact]])


def _opening_lost(
    goal: Goal, transcript: Transcript, failure: FirstFailure, domain: Domain | None
) -> Classification | None:
    """Truncation of the user's opening, read at the agent's last reply.

    The opening is the user turns up to the agent's first reply on the request
    (``_on_request``). The agent's last reply (the failure is in force there:
    the session ends failing) sees none of them and asks again what the user
    wants (``_asks_anew``), and its last reply that still saw part of the
    opening was on the request: the open question came when the opening left
    the view. For a broken constraint, that reply, if it came after the fact was
    stated, also restated the fact's value: the agent had taken the fact up, and
    losing the opening, not ignoring the fact, kept the action wrong. An agent
    that never took the request up, had come to a dead end or ignored the fact
    before, or reports no view, gives no such evidence.
    """
    replies = [(t.index, t.agent) for t in transcript.turns if t.agent is not None]
    if not replies:
        return None
    last, reply = replies[-1]
    took = next((i for i, r in replies if i < last and _on_request(r, goal, domain)), None)
    seen = _seen(transcript, last)
    if took is None or seen is None or not _asks_anew(reply, domain):
        return None
    opening = range(transcript.turns[0].index, took + 1)
    if set(seen) & set(opening):
        return None
    in_view: tuple[int, AgentReply] | None = None  # the last reply that saw the opening
    since = last  # the first reply after it that asked anew
    for i, r in replies[:-1]:
        view = r.context.seen_user_turns if r.context is not None else None
        if view is not None and set(view) & set(opening):
            in_view, since = (i, r), last
        elif view is not None and since == last and _asks_anew(r, domain):
            since = i
    if in_view is None or not _on_request(in_view[1], goal, domain):
        return None
    if not _took_up(transcript, failure, *in_view):
        return None
    asked = " ".join(questions_in((_reply(transcript, since) or reply).text))
    still = f", and still did in its last reply (turn {last})" if since < last else ""
    turns = "turn" if len(opening) == 1 else "turns"
    return Classification(
        Cause.TRUNCATION,
        f"turn {since}: the user's opening ({turns} {_span(list(opening))}: what they came "
        f"for) was outside the agent's context (it saw turns "
        f"{_span(_seen(transcript, since) or seen)}), and it asked again what the user wants "
        f"({asked!r}){still}",
    )


def without_internals(record: SessionRecord) -> SessionRecord:
    """``record`` as a black box shows it: no reply's view (``context``) or ``meta``.

    What is left is what any target shows: the words and the tool calls.
    """
    turns = tuple(
        t
        if t.agent is None
        else t.model_copy(
            update={"agent": t.agent.model_copy(update={"context": None, "meta": frozendict()})}
        )
        for t in record.transcript.turns
    )
    transcript = Transcript(turns=turns)
    return record.model_copy(update={"transcript": transcript})


def _reports_view(transcript: Transcript) -> bool:
    return any(t.agent is not None and t.agent.context is not None for t in transcript.turns)


_BY_WINDOW = (
    "the target reports no view; the unlimited-window replay fixes the failure "
    "and the instruction-reminder replay does not"
)


def classify_multi_turn(
    goal: Goal,
    record: SessionRecord,
    failure: FirstFailure | None,
    rule_kept_for_goal: bool,
    late_turn: int = DEFAULT_LATE_TURN,
    window_alone: bool | None = None,
    domain: Domain | None = None,
) -> Classification | None:
    """Rules 1-3 (truncation, anchoring, drift); ``None`` when none holds.

    Args:
        goal: The session's goal.
        record: The failed session.
        failure: Its first failure (``None``: nothing located, no rule holds).
        rule_kept_for_goal: Whether some session of the run for this goal
            passed its confirmation check (the agent knows the rule).
        late_turn: The first user turn that counts as late for drift.
        window_alone: Whether the unlimited-window replay fixes the failure and
            the reminder replay does not (``None``: not measured). Read only
            when the target reports no view.
        domain: The goal's domain, whose ``open_cues`` tell an open question
            (``None``: the shipped default domain).
    """
    if failure is None:
        return None
    transcript = record.transcript
    blind = not _reports_view(transcript)
    if failure.kind == "completion":
        lost = _restated_unseen(transcript)
        if lost is not None:
            turn, fact, stated = lost
            return Classification(
                Cause.TRUNCATION,
                f"turn {turn}: the user restated {fact} (first stated in turn {stated}), "
                f"which the agent's previous reply no longer had in context",
            )
        opening = _opening_lost(goal, transcript, failure, domain)
        if opening is not None:
            return opening
        if blind and window_alone:
            return Classification(Cause.TRUNCATION, f"turn {failure.turn}: {_BY_WINDOW}")
        return _anchored_without_action(goal, transcript, failure.turn)
    if failure.kind == "constraint" and failure.stated_turn is not None:
        seen = _seen(transcript, failure.turn)
        if seen is not None and failure.stated_turn not in seen:
            return Classification(
                Cause.TRUNCATION,
                f"turn {failure.turn}: {failure.fact} was stated in turn {failure.stated_turn}, "
                f"outside the agent's context (it saw turns {_span(seen)})",
            )
        opening = _opening_lost(goal, transcript, failure, domain)
        if opening is not None:
            return opening
        if seen is None and blind and window_alone:
            return Classification(
                Cause.TRUNCATION,
                f"turn {failure.turn}: {failure.fact} (stated in turn {failure.stated_turn}) "
                f"broken; {_BY_WINDOW}",
            )
        repeated = _repeated_reply(transcript, failure.stated_turn, failure.turn)
        if repeated is not None:
            p, q = repeated
            return Classification(
                Cause.ANCHORING,
                f"turn {q}: the agent repeated word for word its turn-{p} reply after "
                f"{failure.fact} was stated in turn {failure.stated_turn} (never revised)",
            )
        action = final_action(goal, _upto(transcript, failure.turn))
        if action is not None:
            committed = _commitment_turn(goal, transcript, action[1], failure.stated_turn)
            if committed is not None:
                return Classification(
                    Cause.ANCHORING,
                    f"turn {committed}: the agent committed to {action[1].name}"
                    f"({_args(action[1].args)}) before {failure.fact} was stated in turn "
                    f"{failure.stated_turn}, and still carried it out in turn {failure.turn}",
                )
            kept = _superseded_value_kept(goal, transcript, failure, action[1])
            if kept is not None:
                earlier, value = kept
                return Classification(
                    Cause.ANCHORING,
                    f"turn {failure.turn}: the agent carried out {action[1].name} with "
                    f"{failure.fact} = {value!r}, the value the user stated in turn {earlier} "
                    f"and changed in turn {failure.stated_turn} (the early value never revised)",
                )
        return None
    if failure.kind == "confirmation" and failure.turn >= late_turn and rule_kept_for_goal:
        return Classification(
            Cause.DRIFT,
            f"turn {failure.turn}: the reply to the final action breaks the confirmation "
            f"rule the agent keeps in other sessions of this goal (late: turn >= {late_turn})",
        )
    return None


def _anchored_without_action(
    goal: Goal, transcript: Transcript, last: int
) -> Classification | None:
    """No final action: after the user added an equality fact, the agent repeated word for
    word a reply from before it, and that reply does not state the fact's value."""
    eq_facts = {c.fact for c in goal.constraints if c.op == "eq"}
    for t in reversed(transcript.turns):
        if t.user.stop is not None or t.index > last:
            continue
        added = {f: v for f, v in t.user.disclosed.items() if f in eq_facts}
        if not added:
            continue
        repeated = _repeated_reply(transcript, t.index, last)
        if repeated is None:
            continue
        p, q = repeated
        reply = _reply(transcript, q)
        ignored = [f for f, v in added.items() if reply and not _states_all(reply.text, [v])]
        if ignored:
            return Classification(
                Cause.ANCHORING,
                f"turn {q}: the agent repeated word for word its turn-{p} reply after the "
                f"user stated {', '.join(ignored)} in turn {t.index}, and never took the "
                "final action",
            )
    return None


def classify_in_view(
    record: SessionRecord, failure: FirstFailure | None, window_fixes: bool | None = None
) -> Classification | None:
    """Rule 4a: a constraint broken while its statement was in the agent's context.

    Applies only when rules 1-3 did not: the agent had not committed to the
    action before the fact was stated, so it got the fact wrong in plain view,
    a failure one turn holding everything would not fix. For a target that
    reports no view, ``window_fixes is False`` (an unlimited window did not
    fix it) stands for "in view".
    """
    if failure is None or failure.kind != "constraint" or failure.stated_turn is None:
        return None
    seen = _seen(record.transcript, failure.turn)
    if seen is None and not _reports_view(record.transcript) and window_fixes is False:
        return Classification(
            Cause.SINGLE_TURN,
            f"turn {failure.turn}: {failure.fact} (stated in turn {failure.stated_turn}) "
            "broken; the target reports no view, an unlimited window does not fix it and "
            "no earlier commitment explains it",
        )
    if seen is None or failure.stated_turn not in seen:
        return None
    return Classification(
        Cause.SINGLE_TURN,
        f"turn {failure.turn}: {failure.fact} (stated in turn {failure.stated_turn}) was in "
        "the agent's context and no earlier commitment explains breaking it",
    )


def _upto(transcript: Transcript, turn: int) -> Transcript:
    return Transcript(turns=tuple(t for t in transcript.turns if t.index <= turn))


def _span(turns: Sequence[int]) -> str:
    if not turns:
        return "none"
    if list(turns) == list(range(turns[0], turns[-1] + 1)):
        return f"{turns[0]}-{turns[-1]}" if len(turns) > 1 else str(turns[0])
    return ",".join(map(str, turns))


def _args(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())
