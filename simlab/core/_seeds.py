"""Seed derivation: every random choice in a run flows from the run seed.

Seeds are sha256 over a canonical JSON encoding of their parts, never Python's
salted ``hash()``, so they are the same on every machine and every process.
"""

from __future__ import annotations

import hashlib
import json


def derive_seed(*parts: str | int | float | bool | list[str] | tuple[str, ...] | None) -> int:
    """A 63-bit seed determined by ``parts`` alone."""
    canonical = _plain_json(parts)
    if canonical is None:
        canonical = json.dumps(
            [list(p) if isinstance(p, tuple) else p for p in parts],
            separators=(",", ":"),
            ensure_ascii=False,
        )
    digest = hashlib.sha256(canonical.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _plain_json(parts: tuple[object, ...]) -> str | None:
    """The canonical JSON of parts that are all ints and plain strings, as ``json.dumps``
    writes it, without its encoder's set-up (every session derives two seeds); else None."""
    out = []
    for p in parts:
        if type(p) is int:
            out.append(repr(p))
        elif type(p) is str and p.isascii() and p.isprintable() and '"' not in p and "\\" not in p:
            out.append(f'"{p}"')
        else:
            return None
    return "[" + ",".join(out) + "]"
