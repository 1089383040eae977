"""A sample bank-support agent for simlab, driven by nothing but the bank domain's data.

It reads the domain (``domains/bank``): the intents' openings tell it what the user
wants, the slots' phrasings how to read a value from a message, the slots' ``ask``
cues how to ask for one, the tools' schemas which values a call needs and their
fixtures what a call returns. Each turn it re-reads the whole conversation:

1. every value the user stated (the latest statement of each slot wins);
2. a slot still missing for ``verify_identity`` or the final tool: ask for it;
3. a proposal the user said yes to: verify identity, check a disputed transaction
   is the caller's, call the final tool and state its result;
4. otherwise propose the call and ask for the go-ahead.

Run it with ``simlab run examples/bank/simlab.yaml`` (the suite names it as
``bank_agent:reply``; simlab finds the module beside the suite).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from simlab.spec import Domain, DomainSlot, shipped_domain

IDENTITY_TOOL = "verify_identity"
OWNERSHIP_TOOL = "get_transaction"


def fold(text: str) -> str:
    """Lower-case, without diacritics: how messages and phrasings are compared."""
    text = text.replace("đ", "d").replace("Đ", "D")
    return unicodedata.normalize("NFD", text).encode("ascii", "ignore").decode().lower()


@dataclass(frozen=True)
class _Reader:
    """One phrasing of one slot as a regular expression over folded text."""

    slot: DomainSlot
    pattern: re.Pattern[str]
    names: tuple[str, ...]  # its placeholders, in the order they are written
    values: dict[str, str]  # an enum value as said (folded) -> its code


def _group(slot: DomainSlot, name: str, domain: Domain) -> str:
    if name in ("day", "month"):
        return r"(\d{1,2})"
    if name == "year":
        return r"(\d{4})"
    if name == "month_name":
        names = {fold(m) for s in domain.languages.values() for m in s.month_names}
        return "(" + "|".join(sorted(map(re.escape, names))) + ")"
    if name == "currency":  # written, not read: no group
        return re.escape(fold(slot.currency or ""))
    if name == "amount" or slot.type in ("integer", "number", "money"):
        return r"(\d+(?:\.\d+)?)"
    if slot.type == "enum":
        said = {fold(v.said(lang)) for v in slot.values for lang in domain.languages}
        return "(" + "|".join(sorted(map(re.escape, said), key=len, reverse=True)) + ")"
    if slot.type == "identifier" and slot.pattern:
        return f"({slot.pattern.lower()})"
    return r"(.+?)"


@cache
def _readers() -> tuple[_Reader, ...]:
    domain = _domain()
    readers = []
    for slot in domain.slots:
        values = {fold(v.said(lang)): v.value for v in slot.values for lang in domain.languages}
        for speech in slot.say.values():
            for phrasings in (*speech.state.values(), *speech.correct.values()):
                for template in phrasings:
                    pieces = re.split(r"\{(\w+)\}", fold(template))
                    regex = "".join(
                        re.escape(p) if i % 2 == 0 else _group(slot, p, domain)
                        for i, p in enumerate(pieces)
                    )
                    names = tuple(n for n in pieces[1::2] if n != "currency")
                    readers.append(_Reader(slot, re.compile(regex), names, values))
    return tuple(readers)


def _value(reader: _Reader, match: re.Match[str]) -> Any:
    got = dict(zip(reader.names, match.groups(), strict=False))
    slot = reader.slot
    if slot.type == "date":
        months = [fold(m) for s in _domain().languages.values() for m in s.month_names][:12]
        month = int(got["month"]) if "month" in got else months.index(got["month_name"]) + 1
        return f"{int(got['year']):04d}-{month:02d}-{int(got['day']):02d}"
    raw = got.get("value", got.get("amount", ""))
    if slot.type == "enum":
        return reader.values[raw]
    if slot.type in ("integer", "number", "money"):
        number = float(raw)
        return int(number) if number.is_integer() else number
    return raw.upper() if slot.type == "identifier" else raw


@cache
def _domain() -> Domain:
    return shipped_domain("bank")


def stated(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Every slot the user stated, the latest statement winning."""
    found: dict[str, Any] = {}
    for message in messages:
        if message["role"] != "user":
            continue
        text = fold(message["content"])
        latest: dict[str, tuple[int, Any]] = {}
        for reader in _readers():
            for match in reader.pattern.finditer(text):
                name = reader.slot.name
                if name not in latest or match.start() >= latest[name][0]:
                    latest[name] = (match.start(), _value(reader, match))
        found.update({name: value for name, (_, value) in latest.items()})
    return found


def _intent(first: str) -> tuple[str, str] | None:
    """The final tool the first message asks for, and its language."""
    text = fold(first)
    for intent in _domain().intents:
        for lang, by_style in intent.openings.items():
            if any(fold(o) in text for os in by_style.values() for o in os):
                return intent.tool, lang
    return None


def _said_yes(text: str) -> bool:
    folded = fold(text)
    yes = [
        fold(p)
        for s in _domain().languages.values()
        for ps in s.phrases["answer_yes"].values()
        for p in ps
    ]
    return any(re.search(r"(^|\W)" + re.escape(p) + r"($|\W)", folded) for p in yes)


_WORDS = {
    "en": {
        "ask": "Could you tell me your {cue}?",
        "propose": "To confirm: {tool} with {args}. Shall I go ahead?",
        "done": "Done. {result}.",
        "refused": "I'm sorry, I cannot do that: {why}.",
        "what": "How can I help you today: a card, a transaction, a limit, your details, "
        "a balance or an account?",
    },
    "vi": {
        "ask": "Bạn cho tôi xin {cue} được không?",
        "propose": "Bạn xác nhận giúp tôi: {tool} với {args} nhé?",
        "done": "Xong. {result}.",
        "refused": "Xin lỗi, tôi không làm được: {why}.",
        "what": "Tôi có thể giúp gì cho bạn?",
    },
}


def _needed(tool: str) -> list[str]:
    domain = _domain()
    slots = [s.name for s in domain.slots]
    wanted: list[str] = []
    for name in (IDENTITY_TOOL, tool):
        spec = domain.tool(name)
        wanted += [p for p in (spec.parameters.get("required") or []) if p in slots] if spec else []
    return [s for s in slots if s in wanted]  # asked in the domain's order


def _act(tool: str, facts: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The calls made on a go-ahead, and why it stopped short (None when it acted)."""
    domain = _domain()
    calls: list[dict[str, Any]] = []

    def call(name: str) -> dict[str, Any]:
        spec = domain.tool(name)
        assert spec is not None, name
        wanted = (spec.parameters.get("properties") or {}).keys()
        made = spec.call({k: v for k, v in facts.items() if k in wanted})
        calls.append({"name": name, "args": made.args, "result": made.result, "error": made.error})
        return {"result": made.result, "error": made.error}

    identity = call(IDENTITY_TOOL)
    if identity["error"]:
        return calls, identity["error"]
    if tool == "dispute_transaction":
        owner = call(OWNERSHIP_TOOL)
        if owner["error"] or owner["result"]["owner_id"] != facts["customer_id"]:
            return calls, owner["error"] or "that transaction is not on your account"
    final = call(tool)
    return calls, final["error"]


def reply(messages: list[dict[str, Any]], ctx: Any = None) -> dict[str, Any]:
    """One turn of the bank agent (simlab's callable target signature)."""
    users = [m for m in messages if m["role"] == "user"]
    found = _intent(users[0]["content"]) if users else None
    if found is None:
        return {"text": _WORDS["en"]["what"]}
    tool, lang = found
    words = _WORDS.get(lang, _WORDS["en"])
    facts = stated(messages)
    for name in _needed(tool):
        if name not in facts:
            slot = _domain().slot(name)
            assert slot is not None
            speech = slot.say.get(lang) or next(iter(slot.say.values()))
            return {"text": words["ask"].format(cue=speech.ask[0])}
    before = [m for m in messages if m["role"] == "assistant"][-1:]
    proposed = bool(before) and words["propose"].split(":")[0] in before[0]["content"]
    if proposed and _said_yes(messages[-1]["content"]):
        calls, why = _act(tool, facts)
        if why is not None:
            return {"text": words["refused"].format(why=why), "tool_calls": calls}
        result = calls[-1]["result"] or {}
        shown = "; ".join(f"{k}: {v}" for k, v in result.items())
        return {"text": words["done"].format(result=shown), "tool_calls": calls}
    spec = _domain().tool(tool)
    params = (spec.parameters.get("properties") or {}).keys() if spec else ()
    args = ", ".join(f"{k} {facts[k]}" for k in params if k in facts)
    return {"text": words["propose"].format(tool=tool, args=args)}
