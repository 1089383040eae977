"""The reference agent's tools: results computed by hand from the shipped data, errors as data."""

from __future__ import annotations

from simlab.agents.reference import TravelDesk, travel_data


def test_search_flights_lists_the_day_by_departure() -> None:
    call = TravelDesk(0).search_flights("HAN", "DAD", "2026-12-20")
    assert call.error is None
    assert [(f["id"], f["dep_time"], f["price_adult"]) for f in call.result] == [
        ("VJ1077", "06:00", 88),
        ("VJ1078", "10:15", 76),
        ("VJ1079", "14:00", 66),
        ("VJ1080", "20:30", 53),
    ]


def test_hold_booking_prices_round_trip_with_hotel() -> None:
    call = TravelDesk(0).hold_booking("VJ1334", 2, return_flight_id="VJ2348", hotel_nights=5)
    assert call.error is None
    r = call.result
    # 2 x 63 out + 2 x 49 back + 5 nights x 70 in Phu Quoc
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


def test_hold_booking_child_fare() -> None:
    r = TravelDesk(0).hold_booking("VN1163", 2, children=1).result
    assert r["total_price"] == 2 * 80 + 60


def test_bad_arguments_are_errors_not_exceptions() -> None:
    desk = TravelDesk(0)
    assert desk.hold_booking("XX999", 1).error == "unknown flight 'XX999'"
    assert "integer >= 1" in (desk.hold_booking("VJ1077", 0).error or "")
    assert "seats" in (desk.hold_booking("VJ1072", 4).error or "")  # 3 seats left
    assert "does not fly back" in (
        desk.hold_booking("VJ1077", 1, return_flight_id="VJ1078").error or ""
    )
    assert desk.search_flights("HAN", "XYZ", "2026-12-20").error == "unknown city code 'XYZ'"
    assert desk.search_hotels("HAN", 0).error is not None
    assert "fares: economy, business" in (desk.baggage_policy("first", "domestic").error or "")
    assert desk.get_booking("ZZZZZZ").error == "no open booking 'ZZZZZZ'"
    assert "not on the booked route" in (desk.change_booking("QX7K2P", "VN1163").error or "")
    assert desk.refund("NOPE12").error is not None


def test_baggage_policy_table() -> None:
    r = TravelDesk(0).baggage_policy("business", "international").result
    assert r == {"fare": "business", "route": "international", "allowance_kg": 40, "bags": 2}


def test_change_booking_fee_and_reference_kept() -> None:
    desk = TravelDesk(0)
    # QX7K2P: 2 adults paid 146; VJ1074 costs 2 x 69 = 138: only the 2 x 15 fee.
    first = desk.change_booking("QX7K2P", "VJ1074")
    assert first.error is None
    assert (first.result["booking_ref"], first.result["date"], first.result["fee"]) == (
        "QX7K2P",
        "2026-12-19",
        30,
    )
    # VJ1073 costs 2 x 83 = 166, 20 above the 146 credit: fee 30 + 20.
    again = desk.change_booking("QX7K2P", "VJ1073")
    assert again.result["fee"] == 50
    assert again.result["reference"] != first.result["reference"]


def test_refund_once() -> None:
    desk = TravelDesk(0)
    r = desk.refund("MB4T9R")
    assert r.result["amount"] == 63 - 20
    assert desk.refund("MB4T9R").error == "no open booking 'MB4T9R'"


def test_data_is_loaded_once() -> None:
    assert travel_data() is travel_data()
    assert len(travel_data().flights) == 22 * 62 * 4
