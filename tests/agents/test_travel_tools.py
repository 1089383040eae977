"""The travel domain's flight tools, run by the reference agent's ``DomainSkill`` on the
domain's fixtures (``domains/travel/flights.yaml``): results checked by hand against the
searches, and every hold, change and refund against the rules its fixtures were made by
(``domains/travel/source/generate.py``); errors are data, never exceptions."""

from __future__ import annotations

from typing import Any

import pytest

from simlab.agents.reference import DomainSkill, Plan
from simlab.core import ToolCall
from simlab.spec import Domain, shipped_domain

CHANGE_FEE = 15  # per passenger, children too, plus any fare above the fare paid
REFUND_FEE = 20  # per passenger, children too, kept back from the amount paid


@pytest.fixture(scope="module")
def travel() -> Domain:
    return shipped_domain("travel")


def run(travel: Domain, tool: str, **args: Any) -> ToolCall:
    """``tool`` called with ``args`` as the reference agent calls it."""
    return DomainSkill(travel).execute(Plan(tool, tuple(args.items())))


def fixtures(travel: Domain, tool: str) -> list[tuple[dict[str, Any], Any]]:
    found = travel.tool(tool)
    assert found is not None and found.fixtures, tool
    return [(dict(f.when), f.result) for f in found.fixtures]


def flights(travel: Domain) -> dict[str, dict[str, Any]]:
    """Every flight the searches return, by id."""
    return {row["id"]: row for _, rows in fixtures(travel, "search_flights") for row in rows}


def cost(flight: dict[str, Any], adults: int, kids: int) -> int:
    return int(adults * flight["price_adult"] + kids * flight["price_child"])


def test_search_flights_lists_the_day_by_departure(travel: Domain) -> None:
    call = run(travel, "search_flights", origin="HAN", destination="DAD", date="2026-12-20")
    assert call.error is None
    assert [(f["id"], f["dep_time"], f["price_adult"]) for f in call.result] == [
        ("VJ1077", "06:00", 88),
        ("VJ1078", "10:15", 76),
        ("VJ1079", "14:00", 66),
        ("VJ1080", "20:30", 53),
    ]


def test_hold_booking_prices_round_trip_with_hotel(travel: Domain) -> None:
    call = run(
        travel,
        "hold_booking",
        flight_id="VJ1334",
        passengers=2,
        return_flight_id="VJ2348",
        hotel_nights=5,
    )
    assert call.error is None
    r = call.result
    # 2 x 63 out + 2 x 49 back + 5 nights x 70 in Phu Quoc
    out, back = flights(travel)["VJ1334"], flights(travel)["VJ2348"]
    assert (out["price_adult"], back["price_adult"]) == (63, 49)
    hotel = run(travel, "search_hotels", city="PQC", nights=5).result
    assert (hotel["nightly_price"], hotel["total"]) == (70, 350)
    assert r["total_price"] == 126 + 98 + 350 == 574
    assert (r["origin"], r["destination"], r["date"], r["dep_time"]) == (
        "SGN",
        "PQC",
        "2026-12-22",
        "10:45",
    )
    assert (r["return_date"], r["passengers"], r["children"], r["hotel_nights"]) == (
        "2026-12-27",
        2,
        0,
        5,
    )
    assert len(r["reference"]) == 6


def test_hold_booking_child_fare(travel: Domain) -> None:
    r = run(travel, "hold_booking", flight_id="VN1163", passengers=2, children=1).result
    flight = flights(travel)["VN1163"]
    assert (flight["price_adult"], flight["price_child"]) == (80, 60)
    assert r["total_price"] == 2 * 80 + 60


def test_every_hold_totals_its_legs_for_the_party_and_the_hotels_nights(travel: Domain) -> None:
    by_id = flights(travel)
    nightly = {w["city"]: r["nightly_price"] for w, r in fixtures(travel, "search_hotels")}
    holds = fixtures(travel, "hold_booking")
    assert len(holds) > 100
    for when, result in holds:
        adults, kids = when["passengers"], when.get("children", 0)
        out = by_id[when["flight_id"]]
        nights = when.get("hotel_nights", 0)
        total = cost(out, adults, kids) + (nights * nightly[out["destination"]] if nights else 0)
        if "return_flight_id" in when:
            back = by_id[when["return_flight_id"]]
            assert (back["origin"], back["destination"]) == (out["destination"], out["origin"])
            total += cost(back, adults, kids)
        assert result["total_price"] == total, when
        assert out["seats"] >= adults + kids, when
        assert run(travel, "hold_booking", **when).result == result


def test_change_booking_fee_and_a_reference_per_change(travel: Domain) -> None:
    # QX7K2P: 2 adults paid 146; VJ1074 costs 2 x 69 = 138: only the 2 x 15 fee.
    first = run(travel, "change_booking", booking_ref="QX7K2P", flight_id="VJ1074")
    assert first.error is None
    assert (first.result["booking_ref"], first.result["date"], first.result["fee"]) == (
        "QX7K2P",
        "2026-12-19",
        30,
    )
    # VJ1073 costs 2 x 83 = 166, 20 above the 146 credit: fee 30 + 20.
    other = run(travel, "change_booking", booking_ref="QX7K2P", flight_id="VJ1073")
    assert other.result["fee"] == 50
    assert other.result["reference"] != first.result["reference"]


def test_every_change_costs_a_fee_per_passenger_and_the_fare_above_the_paid(
    travel: Domain,
) -> None:
    by_id = flights(travel)
    bookings = {w["booking_ref"]: r for w, r in fixtures(travel, "get_booking")}
    changes = fixtures(travel, "change_booking")
    assert {w["booking_ref"] for w, _ in changes} == set(bookings)
    for when, result in changes:
        booking, new = bookings[when["booking_ref"]], by_id[when["flight_id"]]
        adults, kids = booking["passengers"], booking["children"]
        assert (new["origin"], new["destination"]) == (booking["origin"], booking["destination"])
        assert new["id"] != booking["flight_id"] and new["seats"] >= adults + kids
        above = max(0, cost(new, adults, kids) - booking["total_paid"])
        assert result["fee"] == (adults + kids) * CHANGE_FEE + above, when
        assert (result["date"], result["dep_time"]) == (new["date"], new["dep_time"])


def test_a_refund_pays_back_the_amount_paid_less_a_fee_per_passenger(travel: Domain) -> None:
    assert run(travel, "refund", booking_ref="MB4T9R").result["amount"] == 63 - 20
    assert run(travel, "refund", booking_ref="HN2D8K").result["amount"] == 319 - 3 * 20
    for ref, booking in ((w["booking_ref"], r) for w, r in fixtures(travel, "get_booking")):
        party = booking["passengers"] + booking["children"]
        amount = run(travel, "refund", booking_ref=ref).result["amount"]
        assert amount == booking["total_paid"] - party * REFUND_FEE, ref


def test_baggage_policy_table(travel: Domain) -> None:
    r = run(travel, "baggage_policy", fare="business", route="international").result
    assert r == {"fare": "business", "route": "international", "allowance_kg": 40, "bags": 2}


def test_bad_arguments_are_errors_not_exceptions(travel: Domain) -> None:
    def error(tool: str, **args: Any) -> str:
        call = run(travel, tool, **args)
        assert call.result is None and call.error, (tool, args)
        return call.error

    assert error("hold_booking", flight_id="XX999", passengers=1) == (
        "hold_booking: no such flight for this party"
    )
    assert "less than the minimum of 1" in error("hold_booking", flight_id="VJ1077", passengers=0)
    assert "no such flight" in error("hold_booking", flight_id="VJ1072", passengers=4)  # 3 seats
    assert "no such flight" in error(
        "hold_booking", flight_id="VJ1077", passengers=1, return_flight_id="VJ1078"
    )  # VJ1078 does not fly back
    assert "no flights found" in error(
        "search_flights", origin="HAN", destination="XYZ", date="2026-12-20"
    )
    assert "less than the minimum of 1" in error("search_hotels", city="HAN", nights=0)
    assert "one of ['economy', 'business']" in error(
        "baggage_policy", fare="first", route="domestic"
    )
    assert "nothing found" in error("get_booking", booking_ref="ZZZZZZ")
    assert "no open booking on this flight's route" in error(
        "change_booking", booking_ref="QX7K2P", flight_id="VN1163"
    )
    assert "no open booking" in error("refund", booking_ref="NOPE12")
    assert error("teleport") == "no tool 'teleport'"
