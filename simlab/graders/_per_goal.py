"""Work that depends only on a goal, done once per goal object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from simlab.spec import Goal

_T = TypeVar("_T")


class PerGoal(Generic[_T]):
    """One ``make(goal)`` per goal object in this process, made on first use.

    A suite's goals are shared by all its sessions, and graders read the same things
    off them (slots, check names) for each. Entries are keyed by the goal object (it
    is kept alive with its entry, so its ``id`` is never reused for another); past
    ``most`` goals (a process grading many suites) the entries start afresh.
    """

    def __init__(self, make: Callable[[Goal], _T], most: int = 4096) -> None:
        self._make = make
        self._most = most
        self._made: dict[int, tuple[Goal, _T]] = {}

    def __call__(self, goal: Goal) -> _T:
        """``make(goal)``, the same object every time for the same goal."""
        found = self._made.get(id(goal))
        if found is None or found[0] is not goal:
            if len(self._made) >= self._most:
                self._made.clear()
            found = self._made[id(goal)] = (goal, self._make(goal))
        return found[1]
