"""The causes a diagnosis can name, and how the reference agent's hidden truth maps onto them."""

from __future__ import annotations

from enum import StrEnum


class Cause(StrEnum):
    """Why a failed session failed, as the coherence diagnosis names it.

    ``single_turn`` is a failure in disguise: the agent fails the same task
    even when everything is said in one turn, so the conversation's length is
    not to blame. ``unknown`` is an honest "none of the above".
    """

    TRUNCATION = "truncation"
    ANCHORING = "anchoring"
    DRIFT = "drift"
    SINGLE_TURN = "single_turn"
    UNKNOWN = "unknown"


CAUSES: tuple[Cause, ...] = tuple(Cause)
"""Every cause, in the order tables print them."""

TRUE_TO_CAUSE: dict[str, Cause] = {
    "truncation": Cause.TRUNCATION,
    "anchoring": Cause.ANCHORING,
    "drift": Cause.DRIFT,
    # A misread is a comprehension slip that happens whatever the conversation's
    # length: the kind of failure that also shows with everything in one turn.
    "misread": Cause.SINGLE_TURN,
    # Asking one question per turn tires impatient users out: a real defect, but
    # none of the coherence causes, so the honest diagnosis is "unknown".
    "slow_questions": Cause.UNKNOWN,
    "none": Cause.UNKNOWN,
}
"""The reference agent's recorded cause kinds, mapped to the diagnosis's causes."""
