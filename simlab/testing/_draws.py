"""Per-request random draws, derived from (seed, arrival index) with sha256.

Deriving each request's draws from its index rather than from one shared stream
keeps the faults of request *i* independent of how many draws earlier requests
took, so a run's fault count is a fixed function of the seed.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from simlab.testing._config import FAULT_KINDS, FakeProviderConfig, FaultKind

_SCALE = float(2**64)


@dataclass(frozen=True, slots=True)
class RequestDraw:
    """What happens to one request: its fault (if any) and its delay."""

    fault: FaultKind | None
    delay_s: float


def _uniforms(seed: int, index: int) -> tuple[float, float, float]:
    raw = hashlib.sha256(f"simlab-fake-provider:{seed}:{index}".encode()).digest()
    a, b, c = (int.from_bytes(raw[i : i + 8], "big") / _SCALE for i in (0, 8, 16))
    return a, b, c


class RequestDrawer:
    """Maps arrival indices to ``RequestDraw``s for one configuration."""

    def __init__(self, config: FakeProviderConfig) -> None:
        """Precompute the fault-kind cumulative weights."""
        self._config = config
        weights = config.fault_mix.weights()
        self._cumulative = list(accumulate(weights))
        self._total = self._cumulative[-1]

    def draw(self, index: int) -> RequestDraw:
        """The fault and delay of the request that arrived ``index``-th."""
        cfg = self._config
        u_fault, u_kind, u_jitter = _uniforms(cfg.seed, index)
        delay_s = (cfg.latency_ms + cfg.jitter_ms * u_jitter) / 1000.0
        if index < len(cfg.fault_sequence):
            return RequestDraw(cfg.fault_sequence[index], delay_s)
        if cfg.fault_rate <= 0 or u_fault >= cfg.fault_rate:
            return RequestDraw(None, delay_s)
        position = bisect_right(self._cumulative, u_kind * self._total)
        kind = FAULT_KINDS[min(position, len(FAULT_KINDS) - 1)]
        return RequestDraw(kind, delay_s)
