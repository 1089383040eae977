"""The travel world the reference agent's travel desk knows: places and how values are written.

Read from the shipped travel domain (``domains/travel/``), the one home of its
vocabulary: the travel desk's parser and replies read it through these shapes
(cities with their names, fares, routes, English month names).
"""

from __future__ import annotations

from dataclasses import dataclass

from simlab.spec import DomainSlot, shipped_domain


@dataclass(frozen=True, slots=True)
class City:
    """An airport city with its names in each shipped language."""

    code: str
    en: str
    vi: str
    aliases: tuple[str, ...] = ()

    def name(self, language: str) -> str:
        """The city's name in ``language`` (``en`` or ``vi``)."""
        return self.vi if language == "vi" else self.en


def _enum(slot: str) -> DomainSlot:
    found = _TRAVEL.slot(slot)
    if found is None or found.type != "enum":
        raise RuntimeError(f"the shipped travel domain has no enum slot {slot!r}")
    return found


_TRAVEL = shipped_domain("travel")  # read once per process (~50 ms), shared with the simulator

CITIES: tuple[City, ...] = tuple(
    City(v.value, v.said("en"), v.said("vi"), tuple(v.aliases)) for v in _enum("origin").values
)
CITY_BY_CODE: dict[str, City] = {c.code: c for c in CITIES}

MONTHS_EN: tuple[str, ...] = tuple(_TRAVEL.languages["en"].month_names)

FARES: dict[str, dict[str, str]] = {
    v.value: {lang: v.said(lang) for lang in ("en", "vi")} for v in _enum("fare").values
}
ROUTES: dict[str, dict[str, str]] = {
    v.value: {lang: v.said(lang) for lang in ("en", "vi")} for v in _enum("route").values
}


def iso_day_month(iso_date: str) -> tuple[int, int]:
    """``2026-12-20`` -> ``(20, 12)``."""
    _, month, day = iso_date.split("-")
    return int(day), int(month)


def year_for(month: int) -> int:
    """The travel season spans Nov 2026 - Oct 2027: the year a day/month refers to."""
    return 2026 if month >= 11 else 2027
