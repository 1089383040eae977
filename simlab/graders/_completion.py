"""Was the goal's final action taken, and did the agent tell the user what it did?"""

from __future__ import annotations

from simlab.core import Check, ToolCall, Transcript
from simlab.graders._action import action_view, final_action
from simlab.graders._constraints import NO_FINAL_ACTION
from simlab.graders._shared import new_check, own
from simlab.graders._written import written_forms
from simlab.spec import Goal

GOAL_COMPLETED = "goal_completed"
CONFIRMATION = "confirmation"


def goal_completed_check(goal: Goal, transcript: Transcript) -> Check:
    """Passes when a successful ``goal.final_tool`` call exists.

    Args:
        goal: The goal whose ``final_tool`` completes it.
        transcript: A finished session.

    Returns:
        The ``goal_completed`` check; ``turn`` is the user turn the final action
        answered. A failure says how many calls of the tool failed, if any.
    """
    return own(judge_completed(goal, transcript, final_action(goal, transcript)))


def confirmation_check(goal: Goal, transcript: Transcript) -> Check | None:
    """Whether the reply carrying the final action states each confirm field's value.

    Values come from the final call's result (over its arguments, as in
    ``action_view``). A value counts as stated when one of its written forms is
    a case-insensitive substring of the reply text; numbers match as their
    integer/str form (``380.0`` as ``380``, and ``1200`` also as ``1,200``).

    Args:
        goal: The goal; nothing is checked when ``goal.confirm_fields`` is empty.
        transcript: A finished session.

    Returns:
        The ``confirmation`` check, or ``None`` when the goal has no confirm
        fields. ``detail`` names the fields the reply left out.
    """
    check = judge_confirmation(goal, transcript, final_action(goal, transcript))
    return None if check is None else own(check)


def judge_completed(
    goal: Goal, transcript: Transcript, action: tuple[int, ToolCall] | None
) -> Check:
    """``goal_completed_check`` from an already-found final action."""
    tool = goal.final_tool
    if action is not None:
        return _completed(tool, action[0])
    failed = [c for _, c in transcript.tool_calls() if c.name == tool]
    if not failed:
        return new_check(GOAL_COMPLETED, False, f"{tool} was never called")
    return new_check(
        GOAL_COMPLETED,
        False,
        f"{tool} failed {len(failed)} time(s), last error: {failed[-1].error}",
    )


def _completed(tool: str, turn: int) -> Check:
    """The passed ``goal_completed`` check."""
    return new_check(GOAL_COMPLETED, True, f"{tool} in turn {turn}", turn)


def judge_confirmation(
    goal: Goal, transcript: Transcript, action: tuple[int, ToolCall] | None
) -> Check | None:
    """``confirmation_check`` from an already-found final action."""
    if not goal.confirm_fields:
        return None
    if action is None:
        return new_check(CONFIRMATION, False, NO_FINAL_ACTION)
    turn_index = action[0]
    missing = [said for said, _ in confirm_gaps(goal, transcript, action)]
    if missing:
        detail = "reply does not state " + ", ".join(missing)
        return new_check(CONFIRMATION, False, detail, turn_index)
    fields = ", ".join(goal.confirm_fields)
    return new_check(CONFIRMATION, True, f"reply states {fields}", turn_index)


def confirm_gaps(
    goal: Goal, transcript: Transcript, action: tuple[int, ToolCall]
) -> list[tuple[str, bool]]:
    """The confirm fields the reply carrying ``action`` does not state, in the goal's order.

    Each gap is (what is missing, for a person; whether the tool returned the field):
    a returned value the reply leaves out misstates the tool's output, where a field the
    result lacks is no fault of the reply.
    """
    turn_index, call = action
    text = _reply_text(transcript, turn_index).lower()
    view = action_view(call)
    gaps: list[tuple[str, bool]] = []
    for field in goal.confirm_fields:
        if view.get(field) is None:
            # a target that reports no tool results (an HTTP endpoint without the
            # extension) can never pass: say so rather than blame the reply
            why = "no result was reported" if call.result is None else "not in the result"
            gaps.append((f"{field} ({why} for {call.name})", False))
        elif not any(form in text for form in written_forms(view[field])):
            gaps.append((f"{field}={view[field]}", True))
    return gaps


def _reply_text(transcript: Transcript, turn_index: int) -> str:
    for turn in transcript.turns:
        if turn.index == turn_index and turn.agent is not None:
            return turn.agent.text
    return ""
