"""How a fact or field value is written in check details and in agent replies."""

from __future__ import annotations

from typing import Any


def written(value: Any) -> str:
    """``value`` as a person would write it: integral floats without ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def written_forms(value: Any) -> tuple[str, ...]:
    """Lower-case surface forms a reply may use to state ``value``.

    Numbers match as their integer/str form (``380.0`` as ``380``) and, from
    1,000 up, also with comma thousands separators (``1,200``), as prices are
    commonly written.
    """
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
