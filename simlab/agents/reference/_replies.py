"""What the reference agent says, in English or Vietnamese.

Questions contain an ``ASK_CUES`` phrase per asked slot and a "?"; proposals a
``CONFIRM_CUES`` phrase. Nothing else the agent says may contain an ask cue
together with a "?", or the simulated user would read a question into it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simlab.agents.reference._travel_world import CITY_BY_CODE, FARES, MONTHS_EN, ROUTES

_ASK: dict[str, dict[str, str]] = {
    "en": {
        "origin": "where are you flying from",
        "destination": "where are you flying to",
        "date": "which date do you want to leave",
        "new_date": "which date do you want to move to",
        "passengers": "how many adults are travelling, and any children",
        "booking_ref": "what is your booking reference",
        "fare": "which fare class is your ticket (economy or business)",
        "route": "is the flight domestic or international",
    },
    "vi": {
        "origin": "bạn bay từ đâu",
        "destination": "bạn muốn đi đâu",
        "date": "bạn muốn bay ngày nào",
        "new_date": "bạn muốn đổi sang ngày nào",
        "passengers": "có mấy người lớn, có trẻ em đi cùng không",
        "booking_ref": "mã đặt chỗ của bạn là gì",
        "fare": "vé của bạn thuộc hạng vé nào (phổ thông hay thương gia)",
        "route": "chuyến bay nội địa hay quốc tế",
    },
}
_FIXED: dict[str, dict[str, str]] = {
    "en": {
        "greet": "Hello! I can book flights and hotels, change or refund a booking, "
        "or tell you the baggage allowance. What would you like to do?",
        "unknown_booking": "I could not find an open booking {ref}.",
        "no_flight": "Sorry, no flight from {origin} to {destination} on {date} fits your request.",
        "over_budget": "Sorry, the cheapest option from {origin} to {destination} on {date} "
        "costs {cheapest} USD, more than your limit of {budget} USD.",
        "same_city": "The departure and arrival cities are the same ({origin}).",
        "other_day": " Would another day work for you?",
        "tool_error": "Sorry, that did not go through: {error}.",
        "nothing_new": "Your request is already done.",
    },
    "vi": {
        "greet": "Xin chào! Tôi có thể đặt vé máy bay và khách sạn, đổi hoặc hoàn vé, "
        "hoặc cho bạn biết hành lý được mang. Bạn cần gì ạ?",
        "unknown_booking": "Tôi không tìm thấy đặt chỗ {ref} nào còn hiệu lực.",
        "no_flight": "Xin lỗi, không có chuyến bay nào từ {origin} đến {destination} "
        "vào {date} phù hợp với yêu cầu của bạn.",
        "over_budget": "Xin lỗi, lựa chọn rẻ nhất từ {origin} đến {destination} vào {date} "
        "là {cheapest} USD, vượt mức {budget} USD của bạn.",
        "same_city": "Điểm đi và điểm đến trùng nhau ({origin}).",
        "other_day": " Bạn có muốn thử một hôm khác không?",
        "tool_error": "Xin lỗi, yêu cầu chưa thực hiện được: {error}.",
        "nothing_new": "Yêu cầu của bạn đã được thực hiện rồi.",
    },
}


def lang_of(vietnamese: bool) -> str:
    """``vi`` or ``en``."""
    return "vi" if vietnamese else "en"


def city(code: Any, lang: str) -> str:
    """A city code as its name in ``lang``."""
    c = CITY_BY_CODE.get(str(code))
    return c.name(lang) if c else str(code)


def day(iso: Any, lang: str) -> str:
    """An ISO date as people write it: ``20 December 2026`` / ``20/12/2026``."""
    y, m, d = (int(p) for p in str(iso).split("-"))
    return f"{d}/{m}/{y}" if lang == "vi" else f"{d} {MONTHS_EN[m - 1]} {y}"


def ask(slots: tuple[str, ...], task: str, lang: str) -> str:
    """One question asking for every slot in ``slots``."""
    keys = ["new_date" if s == "date" and task == "change_booking" else s for s in slots]
    parts = [_ASK[lang][k] for k in keys]
    text = (
        parts[0]
        if len(parts) == 1
        else ", ".join(parts[:-1]) + (" và " if lang == "vi" else " and ") + parts[-1]
    )
    return text[0].upper() + text[1:] + "?"


def fixed(key: str, lang: str, values: Mapping[str, Any] | None = None) -> str:
    """A fixed sentence, with cities and dates in ``values`` written out."""
    return _FIXED[lang][key].format(**_written(values or {}, lang))


# Proposals and confirmations as format strings over the plan's info / the tool result.
_PROPOSE: dict[tuple[str, str], str] = {
    ("refund", "en"): "Booking {booking_ref} ({origin} to {destination}, {date}) can be refunded "
    "{amount} USD. Shall I go ahead with the refund?",
    ("refund", "vi"): "Đặt chỗ {booking_ref} ({origin} - {destination}, {date}) được hoàn "
    "{amount} USD. Bạn đồng ý không?",
    ("change_booking", "en"): "I can move booking {booking_ref} to flight {flight_id} on {date}, "
    "departing at {dep_time}, for a change fee of {fee} USD. Shall I go ahead?",
    ("change_booking", "vi"): "Tôi có thể chuyển đặt chỗ {booking_ref} sang chuyến {flight_id} "
    "vào {date}, cất cánh lúc {dep_time}, phí đổi {fee} USD. Bạn đồng ý không?",
    ("hold_booking", "en"): "I found flight {flight_id} from {origin} to {destination} on {date}, "
    "departing at {dep_time}{extra}, for {party}: {total_price} USD in total. Shall I book it?",
    ("hold_booking", "vi"): "Tôi tìm được chuyến {flight_id} từ {origin} đến {destination} vào "
    "{date}, cất cánh lúc {dep_time}{extra}, cho {party}: tổng cộng {total_price} USD. "
    "Bạn đồng ý không?",
}
_PROPOSE |= {  # a read needs no go-ahead: only an over-asking agent proposes it
    ("baggage_policy", "en"): "I can look up the baggage allowance of a {fare} ticket on a "
    "{route} flight. Shall I go ahead?",
    ("baggage_policy", "vi"): "Tôi có thể tra cứu hành lý của vé hạng {fare} chặng {route}. "
    "Bạn đồng ý không?",
}
_CONFIRM: dict[tuple[str, str], str] = {
    ("refund", "en"): "Done! Booking {booking_ref} is cancelled and {amount} USD will be "
    "refunded. Refund reference: {reference}.",
    ("refund", "vi"): "Xong! Đã hủy đặt chỗ {booking_ref}, hoàn {amount} USD. "
    "Mã hoàn tiền: {reference}.",
    ("change_booking", "en"): "Done! Booking {booking_ref} now flies on {date}, departing at "
    "{dep_time}. New reference: {reference}. Change fee: {fee} USD.",
    ("change_booking", "vi"): "Xong! Đặt chỗ {booking_ref} đã chuyển sang {date}, cất cánh lúc "
    "{dep_time}. Mã mới: {reference}. Phí đổi: {fee} USD.",
    ("hold_booking", "en"): "Done! Your trip from {origin} to {destination} on {date} is booked. "
    "Booking reference: {reference}. Total price: {total_price} USD.",
    ("hold_booking", "vi"): "Xong! Đã đặt chuyến từ {origin} đến {destination} vào {date}. "
    "Mã đặt chỗ: {reference}. Tổng tiền: {total_price} USD.",
    ("baggage_policy", "en"): "A {fare} ticket on a {route} flight includes {bags} checked "
    "bag(s), {allowance_kg} kg in total.",
    ("baggage_policy", "vi"): "Vé hạng {fare} chặng {route} được {bags} kiện ký gửi, "
    "tổng {allowance_kg} kg.",
}
# Drift: the format rule (state the key figures) is forgotten.
_DRIFTED: dict[tuple[str, str], str] = {
    ("baggage_policy", "en"): "A {fare} ticket on a {route} flight includes checked baggage.",
    ("baggage_policy", "vi"): "Vé hạng {fare} chặng {route} có kèm hành lý ký gửi.",
    ("other", "en"): "Done! It's all sorted. Have a great trip!",
    ("other", "vi"): "Xong! Yêu cầu của bạn đã được xử lý. Chúc bạn đi vui vẻ!",
}


def _party(info: Mapping[str, Any], lang: str) -> str:
    adults, kids = info["passengers"], info.get("children", 0)
    if lang == "vi":
        return f"{adults} người lớn" + (f" và {kids} bé" if kids else "")
    party = f"{adults} adult{'s' * (adults != 1)}"
    return party + (f" and {kids} child{'ren' * (kids != 1)}" if kids else "")


def _written(values: Mapping[str, Any], lang: str) -> dict[str, Any]:
    v = dict(values)
    for k in ("origin", "destination"):
        if k in v:
            v[k] = city(v[k], lang)
    if "date" in v:
        v["date"] = day(v["date"], lang)
    if "fare" in v:
        v["fare"] = FARES[v["fare"]][lang]
    if "route" in v:
        v["route"] = ROUTES[v["route"]][lang]
    return v


def propose(tool: str, info: Mapping[str, Any], lang: str) -> str:
    """The proposal awaiting the user's go-ahead (contains a ``CONFIRM_CUES`` phrase)."""
    v = _written(info, lang)
    if tool == "hold_booking":
        back, nights = info.get("return_date"), info.get("hotel_nights", 0)
        extra = ""
        if back and lang == "vi":
            extra += f", về {day(back, lang)} lúc {info['return_time']}"
        elif back:
            extra += f", returning on {day(back, lang)} at {info['return_time']}"
        if nights:
            d = v["destination"]
            extra += (
                f", kèm khách sạn {nights} đêm ở {d}"
                if lang == "vi"
                else f", with {nights} hotel nights in {d}"
            )
        v |= {"extra": extra, "party": _party(info, lang)}
    return _PROPOSE[tool, lang].format(**v)


def confirm(tool: str, result: Mapping[str, Any], lang: str, drifted: bool) -> str:
    """The reply after the final tool ran; ``drifted`` leaves out the key figures."""
    v = _written(result, lang)
    if drifted:
        key = (tool if tool == "baggage_policy" else "other", lang)
        return _DRIFTED[key].format(**v)
    return _CONFIRM[tool, lang].format(**v)
