"""Writes ``domains/travel/flights.yaml``: ``python domains/travel/source/generate.py``.

The travel domain's flight tools (``search_flights``, ``search_hotels``,
``hold_booking``, ``change_booking``, ``refund``) with their fixtures, computed
once from the travel world (``flights.json``: every flight of Dec 2026 - Jan 2027;
``world.yaml.in``: hotel prices, fees, the bookings goals start from) by the rules an
airline-and-hotel desk follows: a trip's total is each leg's fare for the party
plus the hotel's nights; a change costs a fee per passenger plus any fare above
the fare paid; a refund pays back the amount paid less a fee per passenger.

The fixtures cover what the shipped goals can lead to: each goal's legs on its
dates, its mind changes' and perturbations' values, and a reading one off (a day
late, one passenger more), so a misread still meets the world rather than an error.
The file is committed; this script documents how it was made and makes it again.
"""

from __future__ import annotations

import itertools
import json
import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
DOMAIN = HERE.parent
DATA = HERE  # flights.json (made by generate_world.py) and world.yaml.in
OUT = DOMAIN / "flights.yaml"

_REF_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as 1 and 0
_REF_DIGITS = "23456789"
_REF_SHAPE = (_REF_LETTERS, _REF_LETTERS, _REF_DIGITS, _REF_LETTERS, _REF_DIGITS, _REF_LETTERS)

# What the goals ask for, by which the fixtures are drawn (see goals/*.yaml):
# (origin, destination, dates, passengers, children, return dates, hotel nights, latest times)
_TRIPS: tuple[tuple[str, str, list[str], int, int, list[str], list[int], list[str]], ...] = (
    ("HAN", "DAD", ["2026-12-20", "2026-12-19"], 2, 0, [], [], ["12:00"]),  # one_way
    ("HAN", "SGN", ["2027-01-10", "2027-01-11"], 2, 1, [], [], ["15:00"]),  # family_child
    ("SGN", "PQC", ["2026-12-22"], 2, 0, ["2026-12-27"], [5, 4], ["12:00"]),  # round_trip_hotel
)
_CHANGE_DAYS = range(-1, 5)  # a booking moves to a day from the day before it to 4 days after
_NIGHTS = range(1, 15)


def _day(iso: str, days: int) -> str:
    return (date.fromisoformat(iso) + timedelta(days=days)).isoformat()


def _later(hhmm: str) -> str:
    hour, minute = hhmm.split(":")
    return f"{(int(hour) + 1) % 24:02d}:{minute}"


def _reference(*key: Any) -> str:
    """A booking reference shaped like QX7K2P, fixed by the call it answers."""
    rng = random.Random("travel-reference:" + json.dumps(key))
    return "".join(rng.choice(chars) for chars in _REF_SHAPE)


class World:
    """The flights, hotels, fees and bookings the fixtures are computed from."""

    def __init__(self) -> None:
        table = json.loads((DATA / "flights.json").read_text(encoding="utf-8"))
        cols = table["columns"]
        self.flights = {r[0]: dict(zip(cols, r, strict=True)) for r in table["rows"]}
        world = yaml.safe_load((DATA / "world.yaml.in").read_text(encoding="utf-8"))
        self.hotel: dict[str, int] = world["hotel_nightly"]
        self.change_fee = int(world["fees"]["change_per_passenger"])
        self.refund_fee = int(world["fees"]["refund_per_passenger"])
        self.bookings: dict[str, dict[str, Any]] = world["bookings"]

    def leg(self, origin: str, destination: str, day: str) -> list[dict[str, Any]]:
        rows = [
            f
            for f in self.flights.values()
            if (f["origin"], f["destination"], f["date"]) == (origin, destination, day)
        ]
        return sorted(rows, key=lambda f: f["dep_time"])

    @staticmethod
    def cost(flight: dict[str, Any], adults: int, kids: int) -> int:
        return int(adults * flight["price_adult"] + kids * flight["price_child"])

    def hold(
        self, out: dict[str, Any], adults: int, kids: int, back: dict[str, Any] | None, nights: int
    ) -> dict[str, Any]:
        legs = [out] if back is None else [out, back]
        total = sum(self.cost(leg, adults, kids) for leg in legs)
        total += nights * self.hotel[out["destination"]]
        args = _hold_args(out["id"], adults, kids, back["id"] if back else None, nights)
        return {
            "reference": _reference("hold_booking", sorted(args.items())),
            "origin": out["origin"],
            "destination": out["destination"],
            "date": out["date"],
            "dep_time": out["dep_time"],
            "return_date": back["date"] if back else None,
            "passengers": adults,
            "children": kids,
            "hotel_nights": nights,
            "total_price": total,
        }


def _hold_args(
    flight_id: str, adults: int, kids: int, back: str | None, nights: int
) -> dict[str, Any]:
    args: dict[str, Any] = {"flight_id": flight_id, "passengers": adults}
    if kids:
        args["children"] = kids
    if back is not None:
        args["return_flight_id"] = back
    if nights:
        args["hotel_nights"] = nights
    return args


def _cheapest(rows: list[dict[str, Any]], adults: int, kids: int) -> dict[str, Any] | None:
    return min(rows, key=lambda f: (World.cost(f, adults, kids), f["dep_time"]), default=None)


def _holds(world: World) -> tuple[list[dict[str, Any]], set[tuple[str, str, str]], set[str]]:
    """hold_booking fixtures for every request the goals can lead to, the legs searched
    and the hotel cities."""
    fixtures: dict[str, dict[str, Any]] = {}
    legs: set[tuple[str, str, str]] = set()
    cities: set[str] = set()
    for o, d, dates, adults, kids, backs, nights, latest in _TRIPS:
        days = sorted({x for day in dates for x in (day, _day(day, 1))})
        back_days: list[str | None] = [None, *sorted({x for b in backs for x in (b, _day(b, 1))})]
        night_options = sorted({0, *(n + k for n in nights for k in (-1, 0, 1) if n + k > 0)})
        latests: list[str | None] = [None, *latest, *(_later(t) for t in latest)]
        cities.add(d)
        for day, a, k, back_day, n, last in itertools.product(
            days,
            sorted({max(1, adults - 1), adults, adults + 1}),
            sorted({0, kids, kids + 1}) if kids else [0],  # children: only if the goal has some
            back_days,
            night_options if nights else [0],
            latests,
        ):
            legs.add((o, d, day))
            party = a + k
            outs = [
                f
                for f in world.leg(o, d, day)
                if f["seats"] >= party and (last is None or f["dep_time"] <= last)
            ]
            out = _cheapest(outs, a, k)
            back = None
            if back_day is not None:
                legs.add((d, o, back_day))
                back = _cheapest(
                    [f for f in world.leg(d, o, back_day) if f["seats"] >= party], a, k
                )
                if back is None:
                    continue
            if out is None:
                continue
            args = _hold_args(out["id"], a, k, back["id"] if back else None, n)
            key = json.dumps(args, sort_keys=True)
            fixtures[key] = {"when": args, "result": world.hold(out, a, k, back, n)}
    return list(fixtures.values()), legs, cities


def _changes(world: World) -> tuple[list[dict[str, Any]], set[tuple[str, str, str]]]:
    """change_booking fixtures: each booking moved to each flight on its route nearby."""
    fixtures: list[dict[str, Any]] = []
    legs: set[tuple[str, str, str]] = set()
    for ref, b in world.bookings.items():
        old = world.flights[b["flight_id"]]
        adults, kids, paid = int(b["passengers"]), int(b["children"]), int(b["total_paid"])
        for days in _CHANGE_DAYS:
            day = _day(old["date"], days)
            legs.add((old["origin"], old["destination"], day))
            for new in world.leg(old["origin"], old["destination"], day):
                if new["id"] == old["id"] or new["seats"] < adults + kids:
                    continue
                fee = (adults + kids) * world.change_fee + max(
                    0, World.cost(new, adults, kids) - paid
                )
                when = {"booking_ref": ref, "flight_id": new["id"]}
                fixtures.append(
                    {
                        "when": when,
                        "result": {
                            "booking_ref": ref,
                            "flight_id": new["id"],
                            "date": new["date"],
                            "dep_time": new["dep_time"],
                            "fee": fee,
                            "reference": _reference("change_booking", sorted(when.items())),
                        },
                    }
                )
    return fixtures, legs


def _refunds(world: World) -> list[dict[str, Any]]:
    out = []
    for ref, b in world.bookings.items():
        party = int(b["passengers"]) + int(b["children"])
        amount = max(0, int(b["total_paid"]) - party * world.refund_fee)
        out.append(
            {
                "when": {"booking_ref": ref},
                "result": {
                    "booking_ref": ref,
                    "amount": amount,
                    "reference": _reference("refund", ref),
                },
            }
        )
    return out


def tools(world: World) -> list[dict[str, Any]]:
    """The five tools, declarations from ``tools.yaml.in`` with computed fixtures."""
    declared = yaml.safe_load((HERE / "tools.yaml.in").read_text(encoding="utf-8"))["tools"]
    holds, legs, cities = _holds(world)
    changes, change_legs = _changes(world)
    searches = []
    for o, d, day in sorted(legs | change_legs):
        rows = world.leg(o, d, day)
        if rows:
            searches.append({"when": {"origin": o, "destination": d, "date": day}, "result": rows})
    hotels = [
        {
            "when": {"city": city, "nights": n},
            "result": {"city": city, "nights": n, "nightly_price": price, "total": price * n},
        }
        for city, price in sorted(world.hotel.items())
        if city in cities
        for n in _NIGHTS
    ]
    fixtures = {
        "search_flights": searches,
        "search_hotels": hotels,
        # most arguments first: a fixture's `when` matches any call that has its keys
        "hold_booking": sorted(holds, key=lambda f: -len(f["when"])),
        "change_booking": changes,
        "refund": _refunds(world),
    }
    for tool in declared:
        tool["fixtures"] = fixtures[tool["name"]]
    return declared


class _Dumper(yaml.SafeDumper):
    pass


def _flow_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    # a fixture's when and each result row on one line
    flow = all(not isinstance(v, dict | list) for v in data.values())
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=flow)


_Dumper.add_representer(dict, _flow_dict)


def main() -> None:
    """Write ``flights.yaml`` beside ``domain.yaml``."""
    header = (
        "# yaml-language-server: $schema=../../schemas/domain.schema.json\n"
        "# GENERATED by source/generate.py from source/tools.yaml.in, flights.json and\n"
        "# world.yaml.in: edit those and run `python domains/travel/source/generate.py`.\n"
    )
    body = yaml.dump(
        {"tools": tools(World())},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=200,
    )
    OUT.write_text(header + body, encoding="utf-8")


if __name__ == "__main__":
    main()
