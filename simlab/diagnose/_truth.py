"""The hidden true cause of a failed session, from the reference agent's own records.

The reference agent appends ``{cause, turn, detail}`` to
``AgentReply.meta["true_causes"]`` whenever a defect changes what it does.
A failed session's true cause is read at its first failing turn ``F`` (found
by code, exactly as the diagnosis finds it):

1. Only causes that can produce that kind of failure are relevant: a broken
   constraint comes from ``truncation``, ``anchoring`` or ``misread``; a
   missing confirmation from ``drift``; a session without its final action
   (or one only the judge failed) from any recorded cause.
2. The true cause is the relevant cause recorded at the latest turn ``<= F``:
   the decision the failing reply carried out (a bare "go ahead" executes a
   plan decided the turn before, which records nothing itself).
3. Several relevant causes at that turn: ``anchoring`` before ``truncation``
   (an anchored plan ignores the view either way) before ``drift`` before
   ``misread`` before ``slow_questions``.
4. No relevant cause at or before ``F``: ``none``.

This module is for measuring the diagnosis; the diagnosis itself never reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simlab.diagnose._failure import FirstFailure
from simlab.store import TRUE_TO_CAUSE, Cause, SessionRecord

TRUE_CAUSES_KEY = "true_causes"

_RELEVANT: dict[str, frozenset[str]] = {
    "constraint": frozenset({"truncation", "anchoring", "misread"}),
    "confirmation": frozenset({"drift"}),
}
_ANY = frozenset({"truncation", "anchoring", "drift", "misread", "slow_questions"})
_PRIORITY = ("anchoring", "truncation", "drift", "misread", "slow_questions")


@dataclass(frozen=True, slots=True)
class TrueCause:
    """The recorded cause behind a session's first failure.

    Attributes:
        recorded: The agent's cause kind (``misread``, ``slow_questions``,
            ``none``... as recorded).
        cause: ``recorded`` mapped onto the diagnosis's causes.
        turn: The turn it was recorded at (``None`` for ``none``).
        detail: The agent's own explanation.
    """

    recorded: str
    cause: Cause
    turn: int | None
    detail: str


def records_truth(record: SessionRecord) -> bool:
    """Whether the session's agent recorded ground truth at all."""
    return any(
        t.agent is not None and TRUE_CAUSES_KEY in t.agent.meta for t in record.transcript.turns
    )


def true_cause(record: SessionRecord, failure: FirstFailure | None) -> TrueCause:
    """The true cause of a failed session (see the module docstring)."""
    relevant = _RELEVANT.get(failure.kind, _ANY) if failure is not None else _ANY
    last = failure.turn if failure is not None else record.n_user_turns
    best: tuple[int, int, dict[str, Any]] | None = None
    for turn in record.transcript.turns:
        if turn.agent is None or turn.index > last:
            continue
        for item in turn.agent.meta.get(TRUE_CAUSES_KEY, ()):
            kind = str(item.get("cause"))
            if kind not in relevant:
                continue
            at = int(item.get("turn", turn.index))
            rank = (at, -_PRIORITY.index(kind) if kind in _PRIORITY else -len(_PRIORITY))
            if best is None or rank > best[:2]:
                best = (rank[0], rank[1], item)
    if best is None:
        return TrueCause("none", Cause.UNKNOWN, None, "no relevant cause recorded")
    item = best[2]
    kind = str(item["cause"])
    return TrueCause(
        kind, TRUE_TO_CAUSE.get(kind, Cause.UNKNOWN), best[0], str(item.get("detail", ""))
    )
