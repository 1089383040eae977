"""Prompt-cache simulation: prefixes kept by hash, hits reported by shared prefix."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from simlab.testing._request import FakeRequest


@dataclass(frozen=True, slots=True)
class CacheUsage:
    """How a request's prompt tokens split between cache and fresh input.

    ``uncached + cache_read + cache_creation`` is the whole prompt.
    """

    uncached: int
    cache_read: int
    cache_creation: int


class PromptCache:
    """Remembers prompt prefixes that ended at a cache breakpoint, LRU-bounded.

    A request reads the longest prefix (at any segment boundary up to its last
    breakpoint) that an earlier request wrote; it writes every prefix ending at
    one of its breakpoints. Prefix identity is a sha256 chain over the segments,
    seeded with the API and model, so models never share entries.
    """

    def __init__(self, max_entries: int, min_tokens: int = 0) -> None:
        """Create an empty cache.

        Args:
            max_entries: Most prefixes kept; the least recently used go first.
            min_tokens: Prefixes shorter than this are never written.
        """
        self._entries: OrderedDict[bytes, None] = OrderedDict()
        self._max = max_entries
        self._min_tokens = min_tokens

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every prefix."""
        self._entries.clear()

    def account(self, request: FakeRequest) -> CacheUsage:
        """Look the request's prefixes up, record its breakpoints, and split its tokens."""
        segments = request.segments
        total = sum(s.tokens for s in segments)
        last_bp = max((i for i, s in enumerate(segments) if s.breakpoint), default=-1)
        if last_bp < 0:
            return CacheUsage(total, 0, 0)
        digest = hashlib.sha256(f"{request.api}\x1e{request.model}".encode()).digest()
        read = 0
        cumulative = 0
        written_upto = 0
        for i in range(last_bp + 1):
            seg = segments[i]
            digest = hashlib.sha256(digest + seg.canonical.encode()).digest()
            cumulative += seg.tokens
            if digest in self._entries:
                self._entries.move_to_end(digest)
                read = cumulative
            elif seg.breakpoint and cumulative >= self._min_tokens:
                self._entries[digest] = None
                written_upto = cumulative
                if len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        creation = max(0, written_upto - read)
        return CacheUsage(total - read - creation, read, creation)
