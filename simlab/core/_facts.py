"""What the user actually told the agent: the latest stated value of each fact."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simlab.core._transcript import Transcript


@dataclass(frozen=True, slots=True)
class StatedFact:
    """A fact's latest stated value and the user turn (1-based) that stated it."""

    value: Any
    turn: int


def stated_facts(transcript: Transcript) -> dict[str, StatedFact]:
    """The latest value the user stated for each fact, keyed by fact id.

    Read from each turn's ``user.disclosed``. A later statement of the same
    fact (a mind change) overrides the earlier one, so ``turn`` is the turn of
    the latest statement. The closing turn (``stop`` set) is skipped: its text
    is never sent to the agent, so nothing in it was stated to the agent.

    Args:
        transcript: A finished session.

    Returns:
        Fact id to its latest ``StatedFact``; facts never stated are absent.
    """
    # plain tuples while scanning: a frozen dataclass per overwritten statement is wasted work
    latest: dict[str, tuple[Any, int]] = {}
    for turn in transcript.turns:
        user = turn.user
        if user.stop is not None:
            break
        disclosed = user.disclosed
        if disclosed:
            index = turn.index
            for fact_id, value in disclosed.items():
                latest[fact_id] = (value, index)
    return {
        fact_id: _shared_fact(value, index) if type(value) in _SCALARS else StatedFact(value, index)
        for fact_id, (value, index) in latest.items()
    }


# A fact of a scalar value is one frozen object per (value, turn): sessions state the same
# few values in the same few turns, and finding one costs less than making one. Typed, so
# 1, 1.0 and True stay apart; an immutable value, so sharing it changes nothing (no
# floats: 0.0 and -0.0 are equal keys but different values).
_SCALARS = frozenset({str, int, bool, type(None)})
_shared_fact = lru_cache(maxsize=8192, typed=True)(StatedFact)
