"""What the agent should do next, from the slot values it has in view.

``decide`` is pure over the slots: the agent calls it once for what it does and,
to record the true cause of a defect, again over what it *would* have seen
without the defect. Only the first call records tool calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simlab.agents.reference._data import Booking, Flight
from simlab.agents.reference._skill import Decision, Plan
from simlab.agents.reference._tools import TravelDesk
from simlab.core import ToolCall
from simlab.spec import FactValue

REQUIRED: dict[str, tuple[str, ...]] = {
    "hold_booking": ("origin", "destination", "date", "passengers"),
    "change_booking": ("booking_ref", "date"),
    "refund": ("booking_ref",),
    "baggage_policy": ("fare", "route"),
}
"""The slots each task cannot go ahead without, in the order they are asked."""


def infer_task(slots: Mapping[str, FactValue]) -> str | None:
    """The task a user means when they never said it in words."""
    if "booking_ref" in slots:
        return "change_booking" if "date" in slots else "refund"
    if "fare" in slots or "route" in slots:
        return "baggage_policy"
    if any(s in slots for s in REQUIRED["hold_booking"]):
        return "hold_booking"
    return None


def decide(
    task: str,
    slots: Mapping[str, FactValue],
    desk: TravelDesk,
    record: list[ToolCall] | None,
) -> Decision:
    """The next step of ``task`` given ``slots``; tool calls go to ``record`` if given."""
    missing = tuple(s for s in REQUIRED[task] if s not in slots)
    if missing:
        return Decision(ask=missing)
    if task == "hold_booking":
        return _book(slots, desk, record)
    if task == "baggage_policy":
        args = (("fare", slots["fare"]), ("route", slots["route"]))
        return Decision(plan=Plan("baggage_policy", args))
    booking = _booking(str(slots["booking_ref"]), desk, record)
    if booking is None:
        return Decision(
            ask=("booking_ref",), problem="unknown_booking", detail={"ref": slots["booking_ref"]}
        )
    if task == "refund":
        info = {"booking_ref": booking.reference, "amount": desk.refund_amount(booking)}
        info.update(_flight_info(desk.data.flights[booking.flight_id]))
        return Decision(plan=Plan("refund", (("booking_ref", booking.reference),), info))
    return _change(booking, slots, desk, record)


def _booking(ref: str, desk: TravelDesk, record: list[ToolCall] | None) -> Booking | None:
    if record is not None:
        call = desk.get_booking(ref)
        record.append(call)
        if call.error is not None:
            return None
    return desk.find_booking(ref)


def _flight_info(f: Flight) -> dict[str, Any]:
    return {
        "flight_id": f.id,
        "origin": f.origin,
        "destination": f.destination,
        "date": f.date,
        "dep_time": f.dep_time,
    }


def _fits_time(f: Flight, slots: Mapping[str, FactValue]) -> bool:
    latest = slots.get("latest_departure")
    return latest is None or f.dep_time <= str(latest)


def _search(
    desk: TravelDesk, record: list[ToolCall] | None, o: str, d: str, day: str
) -> tuple[Flight, ...]:
    if record is not None:
        record.append(desk.search_flights(o, d, day))
    return desk.data.leg(o, d, day)


def _book(
    slots: Mapping[str, FactValue], desk: TravelDesk, record: list[ToolCall] | None
) -> Decision:
    o, d, day = str(slots["origin"]), str(slots["destination"]), str(slots["date"])
    adults, kids = int(slots["passengers"]), int(slots.get("children", 0))
    nights = int(slots.get("hotel_nights", 0))
    back_day = slots.get("return_date")
    where = {"origin": o, "destination": d, "date": day}
    if o == d:
        return Decision(problem="same_city", detail=where)
    party = adults + kids
    outs = [
        f for f in _search(desk, record, o, d, day) if f.seats >= party and _fits_time(f, slots)
    ]
    backs: list[Flight] = []
    if back_day is not None:
        backs = [f for f in _search(desk, record, d, o, str(back_day)) if f.seats >= party]
    if nights and record is not None:
        record.append(desk.search_hotels(d, nights))
    if not outs or (back_day is not None and not backs):
        return Decision(problem="no_flight", detail=where)
    out = min(outs, key=lambda f: (f.cost(adults, kids), f.dep_time))
    back = min(backs, key=lambda f: (f.cost(adults, kids), f.dep_time)) if backs else None
    total = out.cost(adults, kids) + (back.cost(adults, kids) if back else 0)
    total += nights * desk.data.hotel_nightly.get(d, 0)
    budget = slots.get("budget")
    if budget is not None and total > int(budget):
        return Decision(
            problem="over_budget", detail={**where, "budget": budget, "cheapest": total}
        )
    args: list[tuple[str, Any]] = [("flight_id", out.id), ("passengers", adults)]
    if kids:
        args.append(("children", kids))
    if back is not None:
        args.append(("return_flight_id", back.id))
    if nights:
        args.append(("hotel_nights", nights))
    info = _flight_info(out) | {
        "passengers": adults,
        "children": kids,
        "hotel_nights": nights,
        "total_price": total,
    }
    if back is not None:
        info |= {
            "return_flight_id": back.id,
            "return_date": back.date,
            "return_time": back.dep_time,
        }
    return Decision(plan=Plan("hold_booking", tuple(args), info))


def _change(
    booking: Booking,
    slots: Mapping[str, FactValue],
    desk: TravelDesk,
    record: list[ToolCall] | None,
) -> Decision:
    old = desk.data.flights[booking.flight_id]
    day = str(slots["date"])
    adults, kids = booking.passengers, booking.children
    party = adults + kids
    options = [
        f
        for f in _search(desk, record, old.origin, old.destination, day)
        if f.seats >= party and f.id != old.id and _fits_time(f, slots)
    ]
    where = {"origin": old.origin, "destination": old.destination, "date": day}
    if not options:
        return Decision(problem="no_flight", detail=where)
    # Lowest fee first; among equal fees the cheaper flight (the fee hides the fare).
    new = min(
        options, key=lambda f: (desk.change_fee(booking, f), f.cost(adults, kids), f.dep_time)
    )
    fee = desk.change_fee(booking, new)
    budget = slots.get("budget")
    if budget is not None and fee > int(budget):
        return Decision(problem="over_budget", detail={**where, "budget": budget, "cheapest": fee})
    info = _flight_info(new) | {"booking_ref": booking.reference, "fee": fee}
    return Decision(
        plan=Plan(
            "change_booking", (("booking_ref", booking.reference), ("flight_id", new.id)), info
        )
    )
