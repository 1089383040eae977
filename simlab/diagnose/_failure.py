"""Where a failed session first went wrong: its first failing turn and check.

Code checks come first. Each failing check at the end of the session is
re-judged on every prefix of the transcript (turns ``1..t`` with the agent's
reply at ``t``), so it is judged against what the user had said *by then*.
A check's failing turn is the start of its final unbroken run of failing
prefixes: the turn the agent took (or kept) the action that is still wrong at
the end. The session's first failing turn is the earliest of those; at equal
turns a broken constraint comes before a missing confirmation, because taking
the wrong action is the failure the confirmation then reports on.

A session that never took its final action fails at its last agent turn
(``completion``); a failure no code check places falls back on the LLM judge's
``checks["judge"].turn``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from simlab.core import Transcript, stated_facts
from simlab.graders import (
    CONFIRMATION,
    CONSTRAINT_PREFIX,
    GOAL_COMPLETED,
    confirmation_check,
    constraint_checks,
    final_action,
)
from simlab.spec import Goal
from simlab.store import SessionRecord

FailureKind = Literal["constraint", "confirmation", "completion", "judge"]
"""What broke first: a constraint, the confirmation rule, no final action, or only the judge."""

JUDGE = "judge"


@dataclass(frozen=True, slots=True)
class FirstFailure:
    """The first failing turn of a session and the check that fails there.

    Attributes:
        turn: The 1-based user turn whose agent reply is the first failure.
        check: The failing check's name (``constraint:budget``, ``confirmation``...).
        kind: Which kind of check it is.
        fact: The goal fact of a constraint check, else ``None``.
        stated_turn: The user turn that stated the fact's value in force at
            ``turn`` (a later restatement does not move it), else ``None``.
        action_turn: The user turn whose reply made the final tool call in
            force at ``turn``, if there was one by then.
    """

    turn: int
    check: str
    kind: FailureKind
    fact: str | None = None
    stated_turn: int | None = None
    action_turn: int | None = None


def constraint_fact(check: str) -> str | None:
    """The fact id of a ``constraint:<fact>[:<field>]`` check name, else ``None``."""
    if not check.startswith(CONSTRAINT_PREFIX):
        return None
    return check[len(CONSTRAINT_PREFIX) :].split(":", 1)[0]


def _prefix(transcript: Transcript, n_turns: int) -> Transcript:
    return Transcript(turns=transcript.turns[:n_turns])


def _agent_turns(transcript: Transcript) -> list[int]:
    """Positions (0-based) of turns that carry an agent reply."""
    return [i for i, t in enumerate(transcript.turns) if t.agent is not None]


def first_failure(goal: Goal, record: SessionRecord) -> FirstFailure | None:
    """Locate the first failure of a failed session (see the module docstring).

    Args:
        goal: The goal the session pursued (its final tool, constraints, confirm fields).
        record: A finished ``ok`` session that did not pass.

    Returns:
        The first failure, or ``None`` when no check places it in a turn.
    """
    transcript = record.transcript
    positions = _agent_turns(transcript)
    failing = [
        name
        for name, check in record.checks.items()
        if not check.passed and (name.startswith(CONSTRAINT_PREFIX) or name == CONFIRMATION)
    ]
    if positions and final_action(goal, transcript) is None:
        last = transcript.turns[positions[-1]].index
        return FirstFailure(turn=last, check=GOAL_COMPLETED, kind="completion")
    found: dict[str, int] = {}  # check -> start of its final failing streak (list position)
    for pos in reversed(positions):
        prefix = _prefix(transcript, pos + 1)
        if final_action(goal, prefix) is None:
            break  # no action yet: nothing before this can be the action's fault
        now = constraint_checks(goal, prefix)
        confirm = confirmation_check(goal, prefix)
        if confirm is not None:
            now[CONFIRMATION] = confirm
        still = [n for n in failing if n in now and not now[n].passed]
        failing = still
        if not failing:
            break
        for name in failing:
            found[name] = pos
    if found:
        order = {name: i for i, name in enumerate(record.checks)}
        name = min(found, key=lambda n: (found[n], n == CONFIRMATION, order.get(n, len(order))))
        return _located(goal, transcript, found[name], name)
    judge = record.checks.get(JUDGE)
    if judge is not None and not judge.passed and judge.turn is not None:
        return FirstFailure(turn=judge.turn, check=JUDGE, kind="judge")
    return None


def _located(goal: Goal, transcript: Transcript, pos: int, name: str) -> FirstFailure:
    prefix = _prefix(transcript, pos + 1)
    turn = transcript.turns[pos].index
    action = final_action(goal, prefix)
    action_turn = action[0] if action is not None else None
    fact = constraint_fact(name)
    if fact is None:
        return FirstFailure(turn, name, "confirmation", action_turn=action_turn)
    stated = stated_facts(prefix).get(fact)
    return FirstFailure(
        turn,
        name,
        "constraint",
        fact=fact,
        stated_turn=stated.turn if stated is not None else None,
        action_turn=action_turn,
    )
