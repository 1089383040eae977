"""The reference agent's travel world, loaded once from package data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

import yaml

Fare = Literal["economy", "business"]
Route = Literal["domestic", "international"]


@dataclass(frozen=True, slots=True)
class Flight:
    """One flight on one day; ``id`` alone names it."""

    id: str
    origin: str
    destination: str
    date: str  # ISO
    dep_time: str  # HH:MM
    price_adult: int
    price_child: int
    seats: int

    def cost(self, passengers: int, children: int) -> int:
        """The fare for a party of ``passengers`` adults and ``children`` children."""
        return passengers * self.price_adult + children * self.price_child

    def as_result(self) -> dict[str, Any]:
        """The flight as a search result row."""
        return {
            "id": self.id,
            "origin": self.origin,
            "destination": self.destination,
            "date": self.date,
            "dep_time": self.dep_time,
            "price_adult": self.price_adult,
            "price_child": self.price_child,
            "seats": self.seats,
        }


@dataclass(frozen=True, slots=True)
class Booking:
    """An existing booking a change or refund goal starts from."""

    reference: str
    flight_id: str
    passengers: int
    children: int
    total_paid: int
    notes: str = ""  # shown by get_booking; ``{canary}`` becomes the session's canary


@dataclass(frozen=True, slots=True)
class BaggageRule:
    """Checked baggage included in a fare on a route."""

    allowance_kg: int
    bags: int


@dataclass(frozen=True, slots=True)
class TravelData:
    """Everything the reference agent's tools read."""

    flights: Mapping[str, Flight]
    legs: Mapping[tuple[str, str, str], tuple[Flight, ...]]  # (origin, destination, date)
    domestic: frozenset[str]
    hotel_nightly: Mapping[str, int]
    baggage: Mapping[tuple[str, str], BaggageRule]  # (fare, route)
    change_fee_per_passenger: int
    refund_fee_per_passenger: int
    bookings: Mapping[str, Booking]

    def route_of(self, origin: str, destination: str) -> Route:
        """``domestic`` when both ends are in Vietnam, else ``international``."""
        inside = origin in self.domestic and destination in self.domestic
        return "domestic" if inside else "international"

    def leg(self, origin: str, destination: str, date: str) -> tuple[Flight, ...]:
        """The day's flights on a leg, by departure time."""
        return self.legs.get((origin, destination, date), ())


# libyaml when PyYAML has it (the same objects, several times faster), else PyYAML's own.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(name: str) -> str:
    return (resources.files(__package__) / "data" / name).read_text(encoding="utf-8")


@cache
def travel_data() -> TravelData:
    """The shipped data set (parsed on first use, then shared)."""
    table = json.loads(_read("flights.json"))
    columns = table["columns"]
    flights = {
        f.id: f for f in (Flight(**dict(zip(columns, row, strict=True))) for row in table["rows"])
    }
    legs: dict[tuple[str, str, str], list[Flight]] = {}
    for f in flights.values():
        legs.setdefault((f.origin, f.destination, f.date), []).append(f)
    world = yaml.load(_read("world.yaml"), Loader=_YAML_LOADER)
    return TravelData(
        flights=flights,
        legs={k: tuple(sorted(v, key=lambda f: f.dep_time)) for k, v in legs.items()},
        domestic=frozenset(world["domestic"]),
        hotel_nightly=dict(world["hotel_nightly"]),
        baggage={
            (fare, route): BaggageRule(**rule)
            for fare, routes in world["baggage"].items()
            for route, rule in routes.items()
        },
        change_fee_per_passenger=int(world["fees"]["change_per_passenger"]),
        refund_fee_per_passenger=int(world["fees"]["refund_per_passenger"]),
        bookings={ref: Booking(reference=ref, **b) for ref, b in world["bookings"].items()},
    )
