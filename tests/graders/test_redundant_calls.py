"""Redundant calls are counted by identical calls, as the calls' JSON tells them apart."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import ToolCall
from simlab.graders import redundant_calls

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 0.0, -0.0, 1.0, float("nan"), float("inf"), "1", "true", "0"]),
    st.integers(-3, 3),
    st.floats(allow_nan=True, width=16),
    st.text(max_size=2),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.sampled_from("ab"), st.integers(0, 1), max_size=1),
)
_CALLS = st.lists(
    st.builds(
        ToolCall,
        name=st.sampled_from(["find", "book"]),
        args=st.dictionaries(st.sampled_from(["x", "y"]), _VALUES, max_size=2),
    ),
    max_size=12,
)


def by_json(calls: list[ToolCall]) -> int:
    """The definition: repeats after the first of a call made 3+ times, by its JSON."""
    counts = Counter(f"{c.name}|{json.dumps(c.args, sort_keys=True, default=str)}" for c in calls)
    return sum(c - 1 for c in counts.values() if c > 2)


@settings(deadline=None, max_examples=300)  # a shared machine: no per-example deadline
@given(_CALLS, st.data())
def test_identical_calls_are_those_with_the_same_json(
    calls: list[ToolCall], data: st.DataObject
) -> None:
    # repeat some calls (copies, not the same objects) so that repeats are common
    again = (
        [c.model_copy(deep=True) for c in data.draw(st.lists(st.sampled_from(calls), max_size=8))]
        if calls
        else []
    )
    made = calls + again + again
    assert redundant_calls(made) == by_json(made)


def test_a_float_a_string_and_a_boolean_are_not_the_integer() -> None:
    def three(value: object) -> list[ToolCall]:
        return [ToolCall(name="find", args={"x": value}) for _ in range(3)]

    assert redundant_calls(three(1)) == 2
    assert redundant_calls(three(1)[:2] + three(1.0)[:1]) == 0
    assert redundant_calls(three(1)[:2] + three(True)[:1]) == 0
    assert redundant_calls(three(1)[:2] + three("1")[:1]) == 0
    assert redundant_calls(three(0.0)[:2] + three(-0.0)[:1]) == 0
    assert redundant_calls(three(float("nan"))) == 2  # NaN is NaN in JSON


@settings(deadline=None, max_examples=200)  # a shared machine: no per-example deadline
@given(_CALLS, st.data())
def test_the_same_call_object_repeated_counts_as_its_copies_do(
    calls: list[ToolCall], data: st.DataObject
) -> None:
    # agents hand back one call object again and again: counted by identity, it must
    # give what the same calls as distinct copies give
    picks = data.draw(st.lists(st.sampled_from(calls), max_size=10)) if calls else []
    made = calls + picks + picks
    copies = [c.model_copy(deep=True) for c in made]
    assert redundant_calls(made) == redundant_calls(copies) == by_json(made)
