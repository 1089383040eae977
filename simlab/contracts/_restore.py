"""An optional target capability: take up a logged conversation where it stopped.

Prefix replay hands a target the history of a failed session up to its failing
turn. A target that keeps state across turns (what it proposed, what it asked,
what it already booked) does not hold that state when it is built fresh for a
replay, so the failure it had may not happen again. A target that implements
``RestorableTarget`` is asked to rebuild that state from the prefix first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from simlab.core import Message, SessionContext


@dataclass(frozen=True, slots=True)
class RestoreReport:
    """What a target rebuilt from a prefix.

    Attributes:
        user_turns: The user turns of the prefix it lived through (the last
            one, which the next ``reply`` answers, excluded).
        diverged_at: The first of those turns where its own reply differed
            from the logged one (its state may then differ from the logged
            session's from there on); None when every reply matched or the
            prefix logged none to compare with.
        detail: A short note (how it restored, why it could not).
    """

    user_turns: int
    diverged_at: int | None = None
    detail: str = ""


@runtime_checkable
class RestorableTarget(Protocol):
    """A target that can rebuild its per-conversation state from a logged prefix.

    Optional: prefix replay checks ``isinstance(target, RestorableTarget)`` and
    otherwise only hands the prefix to ``reply`` as its history.
    """

    async def restore(self, prefix: Sequence[Message], ctx: SessionContext) -> RestoreReport:
        """Rebuild the state this target would hold after the prefix's exchanges.

        Args:
            prefix: The conversation so far, ending with the user message the
                next ``reply`` answers; the assistant messages are what was logged.
            ctx: The logged session's context: ``ctx.seed`` is the seed the
                target had in that session when the log knows it (a simlab
                run), else the replay's seed; ``ctx.turn`` is the number of
                user turns in ``prefix``.

        Returns:
            What was rebuilt, and where the target's own replies departed from the log.
        """
        ...
