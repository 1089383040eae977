"""Counters of the fake provider, readable from Python and via ``GET /stats``."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from simlab.testing._config import FAULT_KINDS, FaultKind
from simlab.testing._request import Api


@dataclass(frozen=True, slots=True)
class FakeProviderStats:
    """A snapshot of what the server has seen since it was created or reset.

    Attributes:
        requests: Well-formed completion requests received (both APIs, faults
            included); each takes the next arrival index.
        by_api: ``requests`` split by protocol.
        succeeded: Answered with HTTP 200 and a well-formed body.
        bad_requests: Rejected with 400/401/404 (not faults: the client's doing;
            not counted in ``requests``).
        faults: Injected faults by kind (every kind present, 0 if none).
        input_tokens: Prompt tokens of succeeded requests, cache included.
        output_tokens: Completion tokens of succeeded requests.
        cache_read_input_tokens: Prompt tokens served from the simulated cache.
        cache_creation_input_tokens: Prompt tokens written to it.
        active: Requests being handled right now.
        max_active: Most requests handled at once.
    """

    requests: int = 0
    by_api: dict[str, int] = field(default_factory=lambda: {"anthropic": 0, "openai": 0})
    succeeded: int = 0
    bad_requests: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    active: int = 0
    max_active: int = 0

    @property
    def total_faults(self) -> int:
        """Sum of ``faults``."""
        return sum(self.faults.values())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (what ``GET /stats`` returns)."""
        return asdict(self) | {"total_faults": self.total_faults}


class StatsCounter:
    """Mutable counters behind a lock: the server's loop writes, any thread reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reset_locked()

    def _reset_locked(self) -> None:
        self._requests = 0
        self._by_api = {"anthropic": 0, "openai": 0}
        self._succeeded = 0
        self._bad = 0
        self._faults: dict[str, int] = dict.fromkeys(FAULT_KINDS, 0)
        self._tokens = [0, 0, 0, 0]  # input, output, cache read, cache creation
        self._active = 0
        self._max_active = 0

    def reset(self) -> None:
        """Zero every counter except the active gauge."""
        with self._lock:
            active = self._active
            self._reset_locked()
            self._active = active

    def start(self, api: Api) -> int:
        """Count a request arriving; returns its arrival index."""
        with self._lock:
            index = self._requests
            self._requests += 1
            self._by_api[api] += 1
            self._active += 1
            self._max_active = max(self._max_active, self._active)
            return index

    def finish(self) -> None:
        """Count a request leaving (whatever its outcome)."""
        with self._lock:
            self._active -= 1

    def bad_request(self) -> None:
        """Count a 400/401."""
        with self._lock:
            self._bad += 1

    def fault(self, kind: FaultKind) -> None:
        """Count an injected fault."""
        with self._lock:
            self._faults[kind] += 1

    def success(self, input_tokens: int, output_tokens: int, read: int, creation: int) -> None:
        """Count a well-formed answer and its usage."""
        with self._lock:
            self._succeeded += 1
            for i, n in enumerate((input_tokens, output_tokens, read, creation)):
                self._tokens[i] += n

    def snapshot(self) -> FakeProviderStats:
        """A consistent copy of the counters."""
        with self._lock:
            return FakeProviderStats(
                requests=self._requests,
                by_api=dict(self._by_api),
                succeeded=self._succeeded,
                bad_requests=self._bad,
                faults=dict(self._faults),
                input_tokens=self._tokens[0],
                output_tokens=self._tokens[1],
                cache_read_input_tokens=self._tokens[2],
                cache_creation_input_tokens=self._tokens[3],
                active=self._active,
                max_active=self._max_active,
            )
