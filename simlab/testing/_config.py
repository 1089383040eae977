"""Configuration of the fake provider: latency, fault injection, prompt-cache simulation."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal, get_args

FaultKind = Literal["rate_limit", "overloaded", "server_error", "timeout", "dropped", "malformed"]
"""What an injected fault does to one request.

* ``rate_limit``: HTTP 429 with a ``retry-after`` header.
* ``overloaded``: HTTP 529 on the Anthropic API, 503 on the OpenAI API.
* ``server_error``: HTTP 500.
* ``timeout``: no answer for ``FakeProviderConfig.timeout_hang_s``, then the socket closes.
* ``dropped``: the socket closes without any response.
* ``malformed``: HTTP 200 whose JSON body is cut short (a stream: its connection
  breaks inside the first event).
"""

FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)


@dataclass(frozen=True, slots=True)
class FaultMix:
    """Relative weights of the fault kinds drawn when a request is chosen to fail.

    Only the transient HTTP statuses are on by default; hangs, dropped sockets and
    malformed bodies are opt-in because they cost client-side timeouts.
    """

    rate_limit: float = 1.0
    overloaded: float = 1.0
    server_error: float = 1.0
    timeout: float = 0.0
    dropped: float = 0.0
    malformed: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) < 0:
                raise ValueError(f"FaultMix.{f.name} must be >= 0, got {getattr(self, f.name)}")

    @classmethod
    def only(cls, kind: FaultKind) -> FaultMix:
        """A mix where every fault is ``kind``."""
        return cls(**{k: (1.0 if k == kind else 0.0) for k in FAULT_KINDS})

    @classmethod
    def parse(cls, text: str) -> FaultMix:
        """Parse ``"rate_limit=3,timeout=1"`` (unnamed kinds get weight 0).

        Raises:
            ValueError: on an unknown kind or a value that is not a number.
        """
        weights = dict.fromkeys(FAULT_KINDS, 0.0)
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, _, value = item.partition("=")
            name = name.strip()
            if name not in weights:
                raise ValueError(
                    f"unknown fault kind {name!r}; choose from {', '.join(FAULT_KINDS)}"
                )
            weights[name] = float(value) if value.strip() else 1.0
        return cls(**weights)

    def weights(self) -> tuple[float, ...]:
        """The weights in ``FAULT_KINDS`` order."""
        return tuple(float(getattr(self, k)) for k in FAULT_KINDS)

    @property
    def total(self) -> float:
        """Sum of the weights."""
        return sum(self.weights())


@dataclass(frozen=True, slots=True)
class FakeProviderConfig:
    """How the fake provider behaves. All draws are seeded: same config, same faults.

    Attributes:
        latency_ms: Fixed delay before every answer (faults included).
        jitter_ms: Extra delay drawn uniformly from ``[0, jitter_ms]`` per request.
        fault_rate: Probability in ``[0, 1]`` that a request gets a fault.
        fault_mix: Which faults, by weight.
        fault_sequence: Faults forced on the first requests, by arrival index
            (``None`` = no fault); random draws apply after it runs out. Handy for
            "fails twice, then succeeds" retry tests.
        seed: Seed of the per-request draws (fault, kind, jitter).
        retry_after_s: Value of the ``retry-after`` header on 429s (also sent as
            ``retry-after-ms``).
        timeout_hang_s: How long a ``timeout`` fault hangs before closing the
            socket; cut short when the server stops, so shutdown never waits on it.
        require_api_key: Answer 401 when neither ``x-api-key`` nor
            ``Authorization`` is present. Only presence is checked; values are
            never read into memory the server keeps.
        cache_min_tokens: Prefixes shorter than this are never cached (Anthropic
            has a per-model minimum; 0 keeps tests small).
        cache_max_entries: Bound of the prefix cache (least recently used evicted).
        history_size: How many parsed requests ``FakeProvider.requests`` keeps.
    """

    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    fault_rate: float = 0.0
    fault_mix: FaultMix = FaultMix()
    fault_sequence: tuple[FaultKind | None, ...] = ()
    seed: int = 0
    retry_after_s: float = 1.0
    timeout_hang_s: float = 30.0
    require_api_key: bool = False
    cache_min_tokens: int = 0
    cache_max_entries: int = 100_000
    history_size: int = 1_000

    def __post_init__(self) -> None:
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be in [0, 1], got {self.fault_rate}")
        if self.fault_rate > 0 and self.fault_mix.total <= 0:
            raise ValueError("fault_rate > 0 needs a fault_mix with a positive weight")
        for name in ("latency_ms", "jitter_ms", "retry_after_s", "timeout_hang_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("cache_min_tokens", "cache_max_entries", "history_size"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        for kind in self.fault_sequence:
            if kind is not None and kind not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {kind!r} in fault_sequence")
