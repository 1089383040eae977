"""Conversation-length buckets by number of user turns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class LengthBucket(Protocol):
    """Anything shaped like ``simlab.spec.Bucket``: a name and a membership test."""

    @property
    def name(self) -> str:
        """The bucket's label, e.g. ``5-9``."""
        ...

    def contains(self, n_user_turns: int) -> bool:
        """Whether a session of this many user turns falls in the bucket."""
        ...


def bucket_of(n_user_turns: int, buckets: Sequence[LengthBucket]) -> str | None:
    """The name of the first bucket holding a session of this length.

    Args:
        n_user_turns: The session's user turns.
        buckets: The suite's buckets, in order.

    Returns:
        The bucket's name, or None when no bucket holds it.
    """
    for b in buckets:
        if b.contains(n_user_turns):
            return b.name
    return None
