"""Seed derivation: every random choice in a run flows from the run seed.

Seeds are sha256 over a canonical JSON encoding of their parts, never Python's
salted ``hash()``, so they are the same on every machine and every process.
"""

from __future__ import annotations

import hashlib
import json


def derive_seed(*parts: str | int | float | bool | list[str] | tuple[str, ...] | None) -> int:
    """A 63-bit seed determined by ``parts`` alone."""
    canonical = json.dumps(
        [list(p) if isinstance(p, tuple) else p for p in parts],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    digest = hashlib.sha256(canonical.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1
