"""A slot's value from the words a user wrote: dates, times, amounts, enums, codes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from simlab.agents.reference._phrasings import NUMBER, Phrasing, alternatives
from simlab.spec import DomainSlot, FactValue


class SlotValues:
    """Turns what a phrasing's groups caught into a slot's typed value.

    Args:
        months: Folded month names to their numbers (``month_numbers``).
        enums: Each enum slot's folded forms to its values (``enum_forms``).
    """

    def __init__(
        self, months: Mapping[str, int], enums: Mapping[str, Mapping[str, FactValue]]
    ) -> None:
        self._months = months
        self._enums = enums

    def caught(self, phrasing: Phrasing, groups: tuple[str | None, ...]) -> FactValue | None:
        """The value a match of ``phrasing`` states; None: not a value of its slot."""
        got: dict[str, Any] = dict(zip(phrasing.names, groups, strict=False))
        slot = phrasing.slot
        try:
            if slot.type == "date" and "day" in got:
                return self._day(slot, got)
            if slot.type == "time" and ("hour" in got or "hour24" in got):
                hour = int(got.get("hour24") or got["hour"])
                if got.get("ampm") == "pm" and hour < 12:
                    hour += 12
                return f"{hour:02d}:{int(got.get('minute') or 0):02d}"
        except (KeyError, ValueError):
            return None
        raw = got.get("value") or got.get("amount") or got.get("code") or ""
        return self.typed(slot, raw.strip())

    def _day(self, slot: DomainSlot, got: Mapping[str, Any]) -> str:
        """A date from a day, a month and maybe a year; without a year, the one that
        puts it in the slot's season (which starts on ``season_start``)."""
        month = got.get("month") or got.get("month_name") or ""
        m = int(month) if month.isdigit() else self._months[month]
        day = int(got["day"])
        if got.get("year"):
            return date(int(got["year"]), m, day).isoformat()
        start = date.fromisoformat(slot.season_start or "2026-01-01")
        year = start.year if (m, day) >= (start.month, start.day) else start.year + 1
        return date(year, m, day).isoformat()

    def typed(self, slot: DomainSlot, raw: str) -> FactValue | None:
        """``raw`` as a value of ``slot``'s type; None when empty or not one of its values."""
        if not raw:
            return None
        if slot.type == "enum":
            return self._enums[slot.name].get(raw)
        if slot.type in ("integer", "number", "money"):
            number = float(raw.replace(",", ""))
            return int(number) if number.is_integer() else f"{number:g}"
        if slot.type == "identifier":
            return raw.upper()
        return raw

    def bare(self, slot: DomainSlot, text: str) -> FactValue | None:
        """A value of the asked ``slot``'s shape anywhere in ``text`` (an answer in a word)."""
        if slot.type == "identifier" and slot.pattern:
            m = re.search(rf"(?<!\w)((?i:{slot.pattern}))(?!\w)", text)
        elif slot.type == "enum":
            m = re.search(r"(?<!\w)" + alternatives(self._enums[slot.name]) + r"(?!\w)", text)
        elif slot.type in ("integer", "number", "money"):
            m = re.search(rf"(?<![\w.]){NUMBER}", text)
        else:
            return None
        return self.typed(slot, m[1]) if m else None
