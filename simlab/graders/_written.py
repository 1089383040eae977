"""How a fact or field value is written in check details and in agent replies."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from simlab.spec import as_written

_FROZEN = (tuple, dict)  # frozendict is a dict


def written(value: Any) -> str:
    """``value`` as a person would write it: integral floats without ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, _FROZEN):  # a frozen list or record, as JSON-shaped text
        return str(as_written(value))
    return str(value)


def written_forms(value: Any) -> tuple[str, ...]:
    """Lower-case surface forms a reply may use to state ``value``.

    Numbers match as their integer/str form (``380.0`` as ``380``) and, from
    1,000 up, also with comma thousands separators (``1,200``), as prices are
    commonly written.
    """
    if type(value) in _SCALARS:
        return _cached_forms(value)
    return _written_forms(value)


def _written_forms(value: Any) -> tuple[str, ...]:
    """``written_forms``, worked out."""
    plain = written(value).lower()
    if isinstance(value, bool) or not isinstance(value, _NUMBERS):
        return (plain,)
    if isinstance(value, float) and not value.is_integer():
        return (plain,)
    n = int(value)
    grouped = f"{n:,}"
    return (plain,) if grouped == plain else (plain, grouped)


_NUMBERS = (int, float)
"""A tuple, not ``int | float`` written in place: that builds the union at each call."""


_cached_forms = lru_cache(maxsize=4096, typed=True)(_written_forms)
"""``_written_forms`` of exact scalar types, whose equal values are written alike (typed:
1, 1.0 and True stay apart; 0.0 and -0.0 both give "0"); its tuples are immutable."""
_SCALARS = frozenset({str, int, float, bool})
