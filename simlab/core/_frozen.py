"""Deeply immutable values for simlab's models: tuples and frozen mappings.

Every model that crosses a boundary (transcripts, records, checks, specs) is frozen all
the way down, so one object may be shared by many sessions and nobody can change it
for the others. A field holding JSON-shaped data (tool arguments, results, meta) is
frozen on validation: mappings become ``frozendict`` (a read-only ``dict`` subclass,
so ``isinstance(x, dict)`` code keeps working and JSON writes it as an object), lists
become tuples. A user who wants a changed value makes a copy
(``model_copy(update=...)``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, TypeVar

from frozendict import frozendict
from pydantic import AfterValidator

K = TypeVar("K")
V = TypeVar("V")

MAX_DEPTH = 256
"""Nesting past which a JSON-shaped value is refused (a ``ValueError``), not frozen."""


def freeze(value: Any) -> Any:
    """``value`` with every mapping a ``frozendict`` and every list or tuple a tuple.

    Walks the value with an explicit stack, not recursion, so a deeply nested value is
    a clear ``ValueError`` past ``MAX_DEPTH`` levels, never a ``RecursionError``.
    """
    if not _is_container(value):
        return value
    flat = _flat(value)
    if flat is not None:
        return flat
    # A frame: the container being read, its items still to read, the (key, item)
    # pairs frozen so far, and the key the finished container has in its parent.
    stack: list[tuple[Any, Iterator[tuple[Any, Any]], list[tuple[Any, Any]], Any]]
    stack = [(value, _items(value), [], None)]
    while True:
        container, items, built, key_in_parent = stack[-1]
        for key, item in items:
            if _is_container(item):
                if len(stack) >= MAX_DEPTH:
                    raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
                flat = _flat(item)
                if flat is None:
                    stack.append((item, _items(item), [], key))
                    break
                item = flat
            built.append((key, item))
        else:
            stack.pop()
            done = _build(container, built)
            if not stack:
                return done
            stack[-1][2].append((key_in_parent, done))


_SCALARS = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = (Mapping, list, tuple)


def _is_container(value: Any) -> bool:
    # the exact scalar types first: most values are, and ``Mapping`` is an ABC check
    return type(value) not in _SCALARS and isinstance(value, _CONTAINERS)


def _flat(container: Any) -> Any:
    """``container`` frozen when it holds no container (most tool arguments, rows of a
    result), in one step; None when it holds one, to be walked."""
    mapping = isinstance(container, Mapping)
    for item in container.values() if mapping else container:
        if type(item) not in _SCALARS and isinstance(item, _CONTAINERS):
            return None
    if mapping:
        return container if type(container) is frozendict else frozendict(container)
    return container if type(container) is tuple else tuple(container)


def _items(container: Any) -> Iterator[tuple[Any, Any]]:
    if isinstance(container, Mapping):
        return iter(list(container.items()))
    return iter(list(enumerate(container)))


def _build(container: Any, built: list[tuple[Any, Any]]) -> Any:
    if isinstance(container, Mapping):
        return frozendict(built)
    return tuple(item for _, item in built)


def _frozen_mapping(value: Mapping[K, V]) -> Mapping[K, V]:
    return value if isinstance(value, frozendict) else frozendict(value)


FrozenJSON = Annotated[Any, AfterValidator(freeze)]
"""A JSON-shaped field (tool arguments, a result, meta values), frozen all the way down."""

FrozenDict = Annotated[Mapping[K, V], AfterValidator(_frozen_mapping)]
"""A mapping field of frozen models or scalars: ``FrozenDict[str, Slot]``. Its values
must be immutable themselves (frozen models, strings, numbers); for JSON-shaped values
use ``FrozenJSONDict``."""

FrozenJSONDict = Annotated[Mapping[str, Any], AfterValidator(freeze)]
"""A ``str``-keyed mapping of JSON-shaped values (``meta``, tool ``args``), frozen
all the way down."""
