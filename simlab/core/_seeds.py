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
    """The canonical JSON of parts that are ints, plain strings and lists or tuples of
    plain strings, as ``json.dumps`` writes it, without its encoder's set-up (every
    session derives three seeds, one with its perturbation list); else None."""
    out = []
    for p in parts:
        if type(p) is int:
            out.append(repr(p))
        elif type(p) is str and _is_plain(p):
            out.append(f'"{p}"')
        elif type(p) is list or type(p) is tuple:
            for item in p:
                if type(item) is not str or not _is_plain(item):
                    return None
            out.append("[" + ",".join(f'"{item}"' for item in p) + "]")
        else:
            return None
    return "[" + ",".join(out) + "]"


def _is_plain(text: str) -> bool:
    """Whether ``json.dumps`` writes ``text`` as itself between quotes."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text
