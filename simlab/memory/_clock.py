"""A simulated clock: memory scenarios move through days and months without waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# Fixed so that every run, on every machine, sees the same timestamps.
DEFAULT_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class SimClock:
    """Simulated time that only moves when told to; never reads the wall clock.

    Args:
        start: The first instant; timezone-aware (UTC by default).
    """

    __slots__ = ("_now",)

    def __init__(self, start: datetime = DEFAULT_START) -> None:
        if start.tzinfo is None:
            raise ValueError("SimClock needs a timezone-aware start, e.g. tzinfo=UTC")
        self._now = start

    def now(self) -> datetime:
        """The current simulated instant."""
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` and return the new instant.

        Raises:
            ValueError: ``delta`` is negative; simulated time never runs backwards.
        """
        if delta < timedelta(0):
            raise ValueError(f"cannot move a SimClock backwards by {delta}")
        self._now += delta
        return self._now
