"""What a session's planned length built, kept for the session's simulated user.

The engine computes a session's planned length just before it builds the session's
user, from the same objects: the length draws the user's disclosure plan and builds
its perturbation stack, and the user takes them instead of doing that work again.
Each thing is handed out once; things never taken (a length computed with no user
built after it) wait among at most ``most`` others, then are dropped.
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import is_
from typing import Generic, TypeVar

_T = TypeVar("_T")


class Handover(Generic[_T]):
    """Things built for sessions, waiting to be taken once by the same arguments.

    A thing is kept under the objects it was built from, told apart by identity (an
    equal copy of a goal is another goal: its plan is drawn afresh), and plain values
    (a seed, a language), told apart by equality.
    """

    def __init__(self, most: int = 256) -> None:
        self._most = most
        self._waiting: dict[
            tuple[tuple[int, ...], tuple[Hashable, ...]], tuple[tuple[object, ...], _T]
        ] = {}

    def keep(self, objects: tuple[object, ...], values: tuple[Hashable, ...], thing: _T) -> None:
        """Keep ``thing``, built from ``objects`` and ``values``, for ``take``."""
        if len(self._waiting) >= self._most:  # built for sessions that never took them
            self._waiting.clear()
        self._waiting[(tuple(map(id, objects)), values)] = (objects, thing)

    def take(self, objects: tuple[object, ...], values: tuple[Hashable, ...]) -> _T | None:
        """The thing kept for these very objects and equal values (then no longer), or None."""
        kept = self._waiting.pop((tuple(map(id, objects)), values), None)  # atomic under the GIL
        # the same ids are not enough: an id is reused once its object is gone
        # (map over ``is_``, no generator frame: the key's ids are as many as ``objects``)
        if kept is None or not all(map(is_, kept[0], objects)):
            return None
        return kept[1]
