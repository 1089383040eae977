"""The scripted verbalizer's phrasings: templates per language and style, value rendering.

Templates are parsed once per language and resolved once per (language, style),
so a session never touches YAML. Rendering a fact is a ``str.format_map`` over a
placeholder table computed once per (slot, value).
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml

from simlab.domain.travel import (
    CITY_BY_CODE,
    FARES,
    MONTHS_EN,
    ROUTES,
    iso_day_month,
    strip_diacritics,
)
from simlab.spec import FactValue, Language, Slot

_TEMPLATE_DIR = Path(__file__).parent / "templates"
_FALLBACK_STYLE = "neutral"
# Keys holding one phrasing list per style (as opposed to intent/slots/fillers).
_CONNECTIVES = (
    "mind_change",
    "answer_yes",
    "answer_none",
    "reassert",
    "nothing_to_add",
    "done",
    "gave_up",
)
_WORD_RE = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True, slots=True)
class Phrasebook:
    """Every phrasing one (language, style) may use, fallbacks already applied."""

    language: Language
    intent: dict[str, tuple[str, ...]]
    slots: dict[str, tuple[str, ...]]
    connectives: dict[str, tuple[str, ...]]
    fillers: tuple[str, ...]


# libyaml when PyYAML has it (the same objects from the shipped templates, 20x faster:
# the first session of every run loads them); PyYAML's own safe loader otherwise.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _raw_templates(language: str) -> dict[str, Any]:
    with (_TEMPLATE_DIR / f"{language}.yaml").open(encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.load(fh, Loader=_YAML_LOADER)
    return data


def _pick_style(by_style: dict[str, list[str]], style: str) -> tuple[str, ...]:
    return tuple(by_style.get(style) or by_style.get(_FALLBACK_STYLE) or ())


@cache
def phrasebook(language: Language, style: str) -> Phrasebook:
    """The phrasings for ``style`` in ``language``, each falling back to ``neutral``."""
    raw = _raw_templates(language)
    return Phrasebook(
        language=language,
        intent={tool: _pick_style(v, style) for tool, v in raw["intent"].items()},
        slots={slot: _pick_style(v, style) for slot, v in raw["slots"].items()},
        connectives={key: _pick_style(raw.get(key, {}), style) for key in _CONNECTIVES},
        fillers=_pick_style(raw.get("fillers", {}), style),
    )


@cache
def _strip_table() -> dict[int, str | None]:
    # str.translate over a table derived from travel.strip_diacritics is ~10x
    # faster than NFD per message and equal on NFC text; combining marks (from
    # NFD input) are dropped as strip_diacritics drops them.
    table: dict[int, str | None] = {}
    for lo, hi in ((0x00C0, 0x024F), (0x1E00, 0x1EFF)):
        for code in range(lo, hi + 1):
            ch = chr(code)
            plain = strip_diacritics(ch)
            if plain != ch:
                table[code] = plain
    for code in range(0x0300, 0x0370):
        if unicodedata.category(chr(code)) == "Mn":
            table[code] = None
    return table


def fast_strip(text: str) -> str:
    """``strip_diacritics`` for NFC text, via a precomputed translation table."""
    if text.isascii():
        return text
    return text.translate(_strip_table())


def _hour_ampm(hhmm: str) -> tuple[str, str]:
    hour = int(hhmm.split(":", 1)[0])
    return str(hour % 12 or 12), "am" if hour < 12 else "pm"


@lru_cache(maxsize=4096)
def render_values(slot: Slot, value: FactValue, language: Language) -> dict[str, str]:
    """The placeholder table a slot phrasing is formatted with (the agent's parse contract).

    Cached: callers must not mutate the returned mapping.

    Raises:
        ValueError: when the value cannot be rendered (unknown city code, fare, route).
    """
    text = str(value)
    if slot in ("origin", "destination"):
        city = CITY_BY_CODE.get(text)
        if city is None:
            raise ValueError(
                f"{slot} value {text!r} is not a city code; known: {sorted(CITY_BY_CODE)}"
            )
        return {"city": city.name(language)}
    if slot in ("date", "return_date"):
        day, month = iso_day_month(text)
        return {"day": str(day), "month": str(month), "month_name": MONTHS_EN[month - 1]}
    if slot == "latest_departure":
        hour, ampm = _hour_ampm(text)
        return {"time": text, "hour": hour, "ampm": ampm}
    if slot == "budget":
        return {"amount": str(int(value))}
    if slot == "booking_ref":
        return {"ref": text}
    if slot == "fare":
        if text not in FARES:
            raise ValueError(f"fare {text!r} unknown; known: {sorted(FARES)}")
        return {"fare": FARES[text][language]}
    if slot == "route":
        if text not in ROUTES:
            raise ValueError(f"route {text!r} unknown; known: {sorted(ROUTES)}")
        return {"route": ROUTES[text][language]}
    if slot == "reason":
        return {}
    return {"n": str(int(value))}


def add_typos(text: str, rate: float, rng: random.Random) -> str:
    """Each word of 3+ letters gets, with probability ``rate``, a swap or a dropped letter."""

    def mangle(m: re.Match[str]) -> str:
        word = m.group(0)
        if rng.random() >= rate:
            return word
        i = rng.randrange(len(word) - 1)
        if rng.random() < 0.5 and word[i] != word[i + 1]:
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        return word[:i] + word[i + 1 :]

    return _WORD_RE.sub(mangle, text)
