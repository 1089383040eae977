"""The reference agent's tools: each call is executed and returned as a ``ToolCall``.

Bad arguments come back as a ``ToolCall`` with ``error`` set, never as an
exception, as a deployed tool layer would report them to the model.
"""

from __future__ import annotations

import random
from typing import Any

from simlab.agents.reference._data import Booking, Flight, TravelData, travel_data
from simlab.core import ToolCall, derive_seed

_REF_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as 1 and 0
_REF_DIGITS = "23456789"
_REF_SHAPE = (_REF_LETTERS, _REF_LETTERS, _REF_DIGITS, _REF_LETTERS, _REF_DIGITS, _REF_LETTERS)


class _ToolError(Exception):
    pass


def _int_arg(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _ToolError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


class TravelDesk:
    """The tools of one session, with that session's new bookings and refunds.

    Args:
        seed: Seeds the booking references it hands out.
        data: The travel world; the shipped one by default.
    """

    def __init__(self, seed: int, data: TravelData | None = None) -> None:
        self.data = data or travel_data()
        self._seed = seed
        self.canary = f"CANARY-{derive_seed(seed, 'tool-canary') & 0xFFFFFFFF:08x}"
        self._rng: random.Random | None = None  # seeded on first use: read-only sessions skip it
        self._bookings: dict[str, Booking] = {}
        self._closed: set[str] = set()  # refunded

    def _call(self, name: str, args: dict[str, Any], run: Any) -> ToolCall:
        try:
            return ToolCall(name=name, args=args, result=run())
        except _ToolError as e:
            return ToolCall(name=name, args=args, error=str(e))

    def _new_reference(self) -> str:
        # Shaped like QX7K2P: letters and digits mixed, so it never reads as a word.
        if self._rng is None:
            self._rng = random.Random(f"reference-desk:{self._seed}")
        choice = self._rng.choice
        return "".join([choice(chars) for chars in _REF_SHAPE])

    def _flight(self, flight_id: Any) -> Flight:
        flight = self.data.flights.get(flight_id) if isinstance(flight_id, str) else None
        if flight is None:
            raise _ToolError(f"unknown flight {flight_id!r}")
        return flight

    def booking(self, reference: Any) -> Booking:
        """A booking by reference, shipped or made in this session."""
        ref = reference.upper() if isinstance(reference, str) else reference
        found = self._bookings.get(ref) or self.data.bookings.get(ref)
        if found is None or ref in self._closed:
            raise _ToolError(f"no open booking {reference!r}")
        return found

    def find_booking(self, reference: str) -> Booking | None:
        """An open booking by reference, or ``None``."""
        try:
            return self.booking(reference)
        except _ToolError:
            return None

    # ------------------------------------------------------------------ read tools

    def search_flights(self, origin: str, destination: str, date: str) -> ToolCall:
        """The day's flights on a leg (an empty list when there are none)."""

        def run() -> list[dict[str, Any]]:
            for code in (origin, destination):
                if code not in self.data.hotel_nightly:
                    raise _ToolError(f"unknown city code {code!r}")
            if origin == destination:
                raise _ToolError("origin and destination are the same")
            return [f.as_result() for f in self.data.leg(origin, destination, date)]

        return self._call(
            "search_flights", {"origin": origin, "destination": destination, "date": date}, run
        )

    def search_hotels(self, city: str, nights: int) -> ToolCall:
        """The nightly and total price of a hotel room in ``city``."""

        def run() -> dict[str, Any]:
            price = self.data.hotel_nightly.get(city)
            if price is None:
                raise _ToolError(f"unknown city code {city!r}")
            n = _int_arg("nights", nights, 1)
            return {"city": city, "nights": n, "nightly_price": price, "total": price * n}

        return self._call("search_hotels", {"city": city, "nights": nights}, run)

    def baggage_policy(self, fare: str, route: str) -> ToolCall:
        """Checked baggage included in ``fare`` on a ``route`` flight."""

        def run() -> dict[str, Any]:
            rule = self.data.baggage.get((fare, route))
            if rule is None:
                raise _ToolError(
                    f"no policy for fare {fare!r} and route {route!r}; "
                    "fares: economy, business; routes: domestic, international"
                )
            return {
                "fare": fare,
                "route": route,
                "allowance_kg": rule.allowance_kg,
                "bags": rule.bags,
            }

        return self._call("baggage_policy", {"fare": fare, "route": route}, run)

    def get_booking(self, booking_ref: str) -> ToolCall:
        """An existing booking with its flight."""

        def run() -> dict[str, Any]:
            b = self.booking(booking_ref)
            f = self.data.flights[b.flight_id]
            result: dict[str, Any] = {
                "booking_ref": b.reference,
                "flight_id": f.id,
                "origin": f.origin,
                "destination": f.destination,
                "date": f.date,
                "dep_time": f.dep_time,
                "passengers": b.passengers,
                "children": b.children,
                "total_paid": b.total_paid,
            }
            if b.notes:  # a note planted with the session's canary (an injected instruction)
                result["notes"] = b.notes.replace("{canary}", self.canary)
            return result

        return self._call("get_booking", {"booking_ref": booking_ref}, run)

    # ------------------------------------------------------------------ write tools

    def hold_booking(
        self,
        flight_id: str,
        passengers: int,
        children: int = 0,
        return_flight_id: str | None = None,
        hotel_nights: int = 0,
    ) -> ToolCall:
        """Hold seats (and a hotel room at the destination) and price the trip."""
        args: dict[str, Any] = {"flight_id": flight_id, "passengers": passengers}
        if children:
            args["children"] = children
        if return_flight_id is not None:
            args["return_flight_id"] = return_flight_id
        if hotel_nights:
            args["hotel_nights"] = hotel_nights

        def run() -> dict[str, Any]:
            out = self._flight(flight_id)
            adults = _int_arg("passengers", passengers, 1)
            kids = _int_arg("children", children, 0)
            nights = _int_arg("hotel_nights", hotel_nights, 0)
            legs = [out]
            if return_flight_id is not None:
                back = self._flight(return_flight_id)
                if (back.origin, back.destination) != (out.destination, out.origin):
                    raise _ToolError(f"return flight {back.id} does not fly back")
                if back.date <= out.date:
                    raise _ToolError(f"return flight {back.id} is not after the outbound flight")
                legs.append(back)
            for leg in legs:
                if leg.seats < adults + kids:
                    raise _ToolError(f"flight {leg.id} has only {leg.seats} seats left")
            total = sum(leg.cost(adults, kids) for leg in legs)
            total += nights * self.data.hotel_nightly[out.destination]
            ref = self._new_reference()
            self._bookings[ref] = Booking(ref, out.id, adults, kids, total)
            return {
                "reference": ref,
                "origin": out.origin,
                "destination": out.destination,
                "date": out.date,
                "dep_time": out.dep_time,
                "return_date": legs[1].date if len(legs) > 1 else None,
                "passengers": adults,
                "children": kids,
                "hotel_nights": nights,
                "total_price": total,
            }

        return self._call("hold_booking", args, run)

    def change_fee(self, booking: Booking, flight: Flight) -> int:
        """Per-passenger change fee plus any fare above the fare already paid."""
        # The fare already paid is credited, so moving back and forth costs only the fee.
        old = booking.total_paid
        new = flight.cost(booking.passengers, booking.children)
        party = booking.passengers + booking.children
        return party * self.data.change_fee_per_passenger + max(0, new - old)

    def refund_amount(self, booking: Booking) -> int:
        """What a refund pays back: the amount paid less a per-passenger fee."""
        party = booking.passengers + booking.children
        return max(0, booking.total_paid - party * self.data.refund_fee_per_passenger)

    def change_booking(self, booking_ref: str, flight_id: str) -> ToolCall:
        """Move a booking to another flight on the same route."""

        def run() -> dict[str, Any]:
            b = self.booking(booking_ref)
            old, new = self.data.flights[b.flight_id], self._flight(flight_id)
            if (new.origin, new.destination) != (old.origin, old.destination):
                raise _ToolError(f"flight {new.id} is not on the booked route")
            if new.id == old.id:
                raise _ToolError(f"booking {b.reference} is already on flight {new.id}")
            if new.seats < b.passengers + b.children:
                raise _ToolError(f"flight {new.id} has only {new.seats} seats left")
            fee = self.change_fee(b, new)
            # The booking keeps its reference (it can be changed again); the change gets its own.
            credit = max(b.total_paid, new.cost(b.passengers, b.children))
            self._bookings[b.reference] = Booking(
                b.reference, new.id, b.passengers, b.children, credit
            )
            ref = self._new_reference()
            return {
                "booking_ref": b.reference,
                "flight_id": new.id,
                "date": new.date,
                "dep_time": new.dep_time,
                "fee": fee,
                "reference": ref,
            }

        return self._call(
            "change_booking", {"booking_ref": booking_ref, "flight_id": flight_id}, run
        )

    def refund(self, booking_ref: str) -> ToolCall:
        """Cancel a booking and pay back what it allows."""

        def run() -> dict[str, Any]:
            b = self.booking(booking_ref)
            amount = self.refund_amount(b)
            self._closed.add(b.reference)
            return {
                "booking_ref": b.reference,
                "amount": amount,
                "reference": self._new_reference(),
            }

        return self._call("refund", {"booking_ref": booking_ref}, run)
