"""JSON string literals of long texts, escaped once and reused.

An LLM session re-sends its system prompt and whole transcript on every call, so
``json.dumps`` of each request body escapes the same long strings again and
again: with hundreds of sessions running that was, after the HTTP stack, the
largest single cost of the client per call (``bench/llm_sessions.py``). A
backend assembles its body around the literals this cache hands out, byte for
byte what ``json.dumps`` writes with its defaults (ASCII, ``", "`` and ``": "``).
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii


class EscapedStrings:
    """``json.dumps(text)`` for strings, remembering the long ones (least recently used out).

    Args:
        max_entries: Strings kept at most; a backend serving C sessions
            needs about C times the messages of one conversation to hit every time.
        min_length: Shorter strings are escaped on every call (cheaper than a lookup).
    """

    def __init__(self, max_entries: int = 4096, min_length: int = 64) -> None:
        self._max = max_entries
        self._min = min_length
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        """The JSON string literal of ``text`` (quotes included)."""
        if len(text) < self._min:
            return encode_basestring_ascii(text)
        cache = self._cache
        literal = cache.pop(text, None)  # re-inserted below: the dict's order is recency
        if literal is None:
            literal = encode_basestring_ascii(text)
            if len(cache) >= self._max:
                del cache[next(iter(cache))]
        cache[text] = literal
        return literal

    def __len__(self) -> int:
        return len(self._cache)

    def __contains__(self, text: object) -> bool:
        """True when the literal of ``text`` is kept."""
        return text in self._cache
