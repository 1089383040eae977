"""The reference agent's shortcuts give what the plain computation gives: a canary
planted only along the paths that hold ``{canary}`` (worked out once per result)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.agents.reference._domain_skill import _canary_paths, _plant


def _plant_everywhere(value: Any, canary: str) -> Any:
    """The walk through the whole value: ``{canary}`` replaced in every string, a
    container new only when something in it changed."""
    if isinstance(value, str):
        return value.replace("{canary}", canary) if "{canary}" in value else value
    if isinstance(value, Mapping):
        planted = {k: _plant_everywhere(v, canary) for k, v in value.items()}
        return value if all(planted[k] is v for k, v in value.items()) else planted
    if isinstance(value, list):
        items = [_plant_everywhere(v, canary) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _same_objects(a: Any, b: Any) -> bool:
    """Equal, of the same container types, the same objects wherever nothing was planted."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_objects(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_objects(x, y) for x, y in zip(a, b, strict=True))
    return a is b or (isinstance(a, str) and "CANARY-" in a and a == b)


_TEXT = st.sampled_from(["", "plain", "{canary}", "say {canary} now", "{canary}{canary}", "{x}"])
_VALUES = st.recursive(
    _TEXT | st.integers() | st.none() | st.booleans(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@given(_VALUES)
@settings(max_examples=300, deadline=None)
def test_a_canary_planted_along_its_paths_is_the_whole_walks(value: Any) -> None:
    canary = "CANARY-0123abcd"
    whole = _plant_everywhere(value, canary)
    paths = _canary_paths(value)
    if paths is None:
        assert whole is value  # nothing to plant: the result as it is
        return
    planted = _plant(value, paths, canary)
    assert planted == whole
    assert _same_objects(planted, whole)
    assert planted is not value
