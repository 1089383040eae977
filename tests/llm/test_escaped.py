"""EscapedStrings: json.dumps literals of texts, the long ones remembered within a bound."""

from __future__ import annotations

import json

from simlab.llm._escaped import EscapedStrings


def test_literals_are_json_dumps_and_only_long_texts_are_kept() -> None:
    cache = EscapedStrings(max_entries=8, min_length=10)
    texts = ["short", 'a "quoted" line\nwith é, ✓ and \\ in it', "x" * 10]
    assert [cache(t) for t in texts] == [json.dumps(t) for t in texts]
    assert len(cache) == 2  # "short" is escaped each time, never kept


def test_the_least_recently_used_text_goes_first() -> None:
    cache = EscapedStrings(max_entries=2, min_length=1)
    first = "a" * 20
    cache(first)
    cache("b" * 20)
    assert cache(first) == json.dumps(first)  # a hit: "a..." is now the most recent
    cache("c" * 20)  # evicts "b...", the least recently used
    assert len(cache) == 2
    assert first in cache and "c" * 20 in cache and "b" * 20 not in cache
