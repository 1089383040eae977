"""Regenerates ``flights.json``: ``python domains/travel/source/generate_world.py``.

Every flight of the travel world (Dec 2026 - Jan 2027), from which ``generate.py``
computes the travel domain's fixtures (``../flights.yaml``). The data set is
committed; this script documents how it was made and makes it reproducible. Its
shape is deliberate so goal constraints bite: on every route and day the evening
flight is the cheapest and the early-morning one the dearest, and a few flights
are nearly or wholly sold out.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

# (origin, destination, economy adult base price USD, carrier)
_ROUTES: tuple[tuple[str, str, int, str], ...] = (
    ("HAN", "SGN", 85, "VN"),
    ("HAN", "DAD", 60, "VJ"),
    ("SGN", "DAD", 55, "QH"),
    ("SGN", "PQC", 50, "VJ"),
    ("HAN", "PQC", 95, "VN"),
    ("HAN", "CXR", 70, "QH"),
    ("SGN", "CXR", 45, "VJ"),
    ("SGN", "BKK", 110, "VN"),
    ("HAN", "BKK", 120, "VJ"),
    ("SGN", "SIN", 130, "VN"),
    ("HAN", "SIN", 160, "QH"),
)
# (departure hour, price factor): early flights cost most, late ones least.
_SLOTS: tuple[tuple[int, float], ...] = ((6, 1.3), (10, 1.1), (14, 0.95), (20, 0.8))
COLUMNS = ("id", "origin", "destination", "date", "dep_time", "price_adult", "price_child", "seats")
_FIRST, _LAST = date(2026, 12, 1), date(2027, 1, 31)


def _peak(day: date) -> float:
    # Christmas to New Year is the high season.
    return 1.2 if date(2026, 12, 20) <= day <= date(2027, 1, 2) else 1.0


def generate(seed: int = 2026) -> list[dict[str, object]]:
    """Every flight of the data set, in a stable order."""
    rng = random.Random(seed)
    flights: list[dict[str, object]] = []
    # Tools name a flight by id alone, so an id is one flight on one day.
    numbers: dict[str, int] = {"VN": 1000, "VJ": 1000, "QH": 1000}
    legs = [*_ROUTES, *((d, o, p, c) for o, d, p, c in _ROUTES)]
    for origin, destination, base, carrier in legs:
        day = _FIRST
        while day <= _LAST:
            for hour, factor in _SLOTS:
                numbers[carrier] += 1
                adult = round(base * factor * _peak(day) * rng.uniform(0.92, 1.08))
                seats = rng.choice((0, 2, 3)) if rng.random() < 0.1 else rng.randint(6, 40)
                flights.append(
                    {
                        "id": f"{carrier}{numbers[carrier]}",
                        "origin": origin,
                        "destination": destination,
                        "date": day.isoformat(),
                        "dep_time": f"{hour:02d}:{rng.choice((0, 15, 30, 45)):02d}",
                        "price_adult": adult,
                        "price_child": round(adult * 0.75),
                        "seats": seats,
                    }
                )
            day += timedelta(days=1)
    return flights


def main() -> None:
    """Write ``flights.json`` next to this file."""
    out = Path(__file__).with_name("flights.json")
    rows = generate()
    # Rows as arrays under one column header: a third of the size of objects.
    lines = [json.dumps([r[c] for c in COLUMNS], separators=(",", ":")) for r in rows]
    header = json.dumps(list(COLUMNS))
    out.write_text(
        '{"columns":' + header + ',\n"rows":[\n' + ",\n".join(lines) + "\n]}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
