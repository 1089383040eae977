"""A sample support agent for simlab: replace its body with a call to your own agent.

simlab calls ``reply(messages, ctx)`` once per agent turn (the suite names it as
``target: agent:reply``). ``messages`` is the conversation so far, oldest first:
``[{"role": "user" | "assistant", "content": str}, ...]``. Return the reply's text
and the tool calls made this turn, each with its result: the graders judge the
last write call (its arguments and result) and the reply that follows it.

This agent knows nothing but the domain's data (``domains/shop``). Each turn it
re-reads the whole conversation:

1. what the user wants: the intent whose opening the first message holds;
2. every value the user stated, read with the slots' phrasings (the latest wins);
3. a value the final tool needs is missing: ask for it with the slot's ``ask`` cue;
4. the user said yes to a proposal: call the read tools it can, then the final
   tool, on the domain's fixtures, and state the result;
5. otherwise: propose the call and ask for the go-ahead.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

from simlab.spec import Domain, DomainSlot, load_domain

DOMAIN = Path(__file__).resolve().parent / "domains" / "shop"


def fold(text: str) -> str:
    """Lower-case, without diacritics: how messages and phrasings are compared."""
    return unicodedata.normalize("NFD", text).encode("ascii", "ignore").decode().lower()


@cache
def domain() -> Domain:
    """The domain this agent serves, read once."""
    return load_domain(DOMAIN)


def _group(slot: DomainSlot, name: str) -> str:
    """The regular expression one placeholder of a phrasing reads."""
    if name in ("day", "month"):
        return r"(\d{1,2})"
    if name == "year":
        return r"(\d{4})"
    if name == "month_name":
        months = {fold(m) for lang in domain().languages.values() for m in lang.month_names}
        return "(" + "|".join(sorted(months, key=len, reverse=True)) + ")"
    if name == "currency":
        return re.escape(fold(slot.currency or ""))
    if name == "amount" or slot.type in ("integer", "number", "money"):
        return r"(\d+(?:\.\d+)?)"
    if slot.type == "enum":
        said = {fold(v.said(lang)) for v in slot.values for lang in domain().languages}
        return "(" + "|".join(sorted(map(re.escape, said), key=len, reverse=True)) + ")"
    if slot.type == "identifier" and slot.pattern:
        return f"({slot.pattern.lower()})"
    return r"(.+?)"


@cache
def readers() -> list[tuple[DomainSlot, re.Pattern[str], list[str]]]:
    """Every phrasing of every slot as (slot, regex over folded text, placeholder names)."""
    found = []
    for slot in domain().slots:
        for speech in slot.say.values():
            for phrasings in (*speech.state.values(), *speech.correct.values()):
                for template in phrasings:
                    pieces = re.split(r"\{(\w+)\}", fold(template))
                    regex = "".join(
                        re.escape(p) if i % 2 == 0 else _group(slot, p)
                        for i, p in enumerate(pieces)
                    )
                    names = [n for n in pieces[1::2] if n != "currency"]
                    found.append((slot, re.compile(regex), names))
    return found


def _value(slot: DomainSlot, got: dict[str, str]) -> Any:
    """A slot's value, typed as goals write it, from the placeholders read."""
    if slot.type == "date":
        months = [fold(m) for lang in domain().languages.values() for m in lang.month_names]
        month = int(got["month"]) if "month" in got else months.index(got["month_name"]) % 12 + 1
        return f"{int(got['year']):04d}-{month:02d}-{int(got['day']):02d}"
    raw = got.get("value", got.get("amount", ""))
    if slot.type == "enum":
        return next(
            v.value for v in slot.values for lang in domain().languages if fold(v.said(lang)) == raw
        )
    if slot.type in ("integer", "number", "money"):
        number = float(raw)
        return int(number) if number.is_integer() else number
    return raw.upper() if slot.type == "identifier" else raw


def stated(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Every slot the user stated so far, the latest statement winning."""
    facts: dict[str, Any] = {}
    for message in messages:
        if message["role"] != "user":
            continue
        text = fold(message["content"])
        latest: dict[str, tuple[int, Any]] = {}
        for slot, pattern, names in readers():
            for match in pattern.finditer(text):
                if slot.name not in latest or match.start() >= latest[slot.name][0]:
                    value = _value(slot, dict(zip(names, match.groups(), strict=False)))
                    latest[slot.name] = (match.start(), value)
        facts.update({name: value for name, (_, value) in latest.items()})
    return facts


def intent(first_message: str) -> str | None:
    """The final tool the user's first message asks for (None: not understood)."""
    text = fold(first_message)
    for candidate in domain().intents:
        for by_style in candidate.openings.values():
            if any(fold(o) in text for openings in by_style.values() for o in openings):
                return candidate.tool
    return None


def said_yes(text: str) -> bool:
    """Whether a message says one of the domain's yes phrases."""
    folded = fold(text)
    yes = [
        fold(p)
        for lang in domain().languages.values()
        for phrasings in lang.phrases["answer_yes"].values()
        for p in phrasings
    ]
    return any(re.search(r"(^|\W)" + re.escape(p) + r"($|\W)", folded) for p in yes)


def _required(tool: str) -> list[str]:
    spec = domain().tool(tool)
    return list(spec.parameters.get("required") or []) if spec else []


def act(final_tool: str, facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Call each read tool whose arguments are all known, then the final tool."""
    calls = []
    for spec in domain().tools:
        reads = spec.effect == "read" and all(p in facts for p in _required(spec.name))
        if reads or spec.name == final_tool:
            wanted = (spec.parameters.get("properties") or {}).keys()
            made = spec.call({k: v for k, v in facts.items() if k in wanted})
            calls.append(
                {"name": made.name, "args": made.args, "result": made.result, "error": made.error}
            )
            if made.error is not None:
                break
    return calls


PROPOSAL = "To confirm: {tool} with {args}. Shall I go ahead?"


def reply(messages: list[dict[str, Any]], ctx: Any = None) -> dict[str, Any]:
    """One agent turn: the reply's text and the tool calls it made (with their results)."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    tool = intent(users[0]) if users else None
    if tool is None:
        return {"text": "Hello! Would you like to order tea or return something?"}
    facts = stated(messages)
    for name in _required(tool):
        slot = domain().slot(name)
        if slot is not None and name not in facts:
            cue = next(iter(slot.say.values())).ask[0]
            return {"text": f"Could you tell me {cue}?"}
    agents = [m["content"] for m in messages if m["role"] == "assistant"]
    proposed = bool(agents) and PROPOSAL.split(":")[0] in agents[-1]
    if proposed and said_yes(users[-1]):
        calls = act(tool, facts)
        last = calls[-1]
        if last["error"] is not None:
            return {
                "text": f"I'm sorry, I could not do that: {last['error']}.",
                "tool_calls": calls,
            }
        shown = "; ".join(f"{k}: {v}" for k, v in (last["result"] or {}).items())
        return {"text": f"Done. {shown}.", "tool_calls": calls}
    args = ", ".join(f"{name} {facts[name]}" for name in _required(tool) if name in facts)
    return {"text": PROPOSAL.format(tool=tool, args=args)}
