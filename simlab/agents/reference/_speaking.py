"""What the reference agent says: its phrasings, in English, Vietnamese or bare.

The sentences around a domain's own words (its slots' ``ask`` cues, its
``confirm_cues``, its values as written) are the agent's; in a language without
sentences of its own, the domain's cues carry the questions and proposals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from simlab.agents.reference._skill import Decision, Plan
from simlab.core import ToolCall
from simlab.spec import Domain, DomainSlot, as_written

_GLUE: dict[str, dict[str, str]] = {
    "en": {
        "greet": "Hello! How can I help you today?",
        "ask": "Please tell me: {cues}?",
        "propose": "{what}: {values}. Shall I go ahead?",
        "done": "Done. {values}.",
        "drifted": "Done! It's all sorted.",
        "refused": "Sorry, that did not go through: {error}.",
        "not_yours": "Sorry, {value} is not on your account, so I cannot act on it.",
        "no_fit": "Sorry, nothing fits your request for {what}.",
        "over_limit": "Sorry, the best I found comes to {value}, above your limit of {limit}.",
        "nothing_new": "Your request is already done.",
        "more": " Is there anything else I can do?",
        "and": " and ",
    },
    "vi": {
        "greet": "Xin chào! Tôi có thể giúp gì cho bạn?",
        "ask": "Bạn cho tôi biết: {cues}?",
        "propose": "{what}: {values}. Bạn đồng ý không?",
        "done": "Xong. {values}.",
        "drifted": "Xong! Yêu cầu của bạn đã được xử lý.",
        "refused": "Xin lỗi, yêu cầu chưa thực hiện được: {error}.",
        "not_yours": "Xin lỗi, {value} không thuộc tài khoản của bạn nên tôi không thể xử lý.",
        "no_fit": "Xin lỗi, không có lựa chọn nào phù hợp với {what}.",
        "over_limit": "Xin lỗi, lựa chọn tốt nhất là {value}, vượt mức {limit} của bạn.",
        "nothing_new": "Yêu cầu của bạn đã được thực hiện rồi.",
        "more": " Bạn cần gì thêm không?",
        "and": " và ",
    },
}
# Any other language: the domain's own cues carry the questions and proposals.
_BARE = {
    "greet": "Hello!",
    "ask": "{cues}?",
    "propose": "{what}: {values}. {cue}?",
    "done": "OK. {values}.",
    "drifted": "OK.",
    "refused": "{error}.",
    "not_yours": "{value}: ✗.",
    "no_fit": "{what}: ✗.",
    "over_limit": "{value} > {limit}.",
    "nothing_new": "OK.",
    "more": "",
    "and": ", ",
}


class Speaker:
    """The agent's replies in one domain.

    Args:
        domain: The domain served.
    """

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self._default_lang = next(iter(domain.languages), "en")
        self._slot_named: dict[str, DomainSlot] = {}
        for slot in domain.slots:  # the first of a name, as Domain.slot finds it
            self._slot_named.setdefault(slot.name, slot)
        self._limited_by = {lim.field: lim.slot for t in domain.tools for lim in t.limits}
        self._asked_with = {s.name: tuple(s.asked_with) for s in domain.slots if s.asked_with}

    def _glue(self, lang: str | None) -> tuple[str, dict[str, str]]:
        lang = lang or self._default_lang
        return lang, _GLUE.get(lang, _BARE)

    def _cue(self, lang: str) -> str:
        speech = self.domain.languages.get(lang) or next(iter(self.domain.languages.values()))
        return speech.confirm_cues[0]

    def written(self, name: str, value: Any, lang: str) -> str:
        """A slot's value as written in ``lang``; a result field a slot limits is written
        as that slot (a total in its currency)."""
        slot = self._slot_named.get(name) or self._slot_named.get(self._limited_by.get(name, ""))
        if slot is None:
            return str(as_written(value))  # a frozen result's list written as a list
        if slot.type == "enum":
            found = slot.value(str(value))
            return found.said(lang) if found else str(value)
        if slot.type == "money":
            return f"{value} {slot.currency}"
        if slot.type == "date":
            return self._date(value, lang)
        return str(value)

    def _date(self, value: Any, lang: str) -> str:
        try:
            d = date.fromisoformat(str(value))
        except ValueError:
            return str(value)
        speech = self.domain.languages.get(lang)
        months = speech.month_names if speech else []
        if months:
            return f"{d.day} {months[d.month - 1]} {d.year}"
        return f"{d.day}/{d.month}/{d.year}"

    def greet(self, lang: str | None) -> str:
        """A greeting that asks for nothing in particular."""
        return self._glue(lang)[1]["greet"]

    def problem(self, decision: Decision, lang: str | None, *, alone: bool) -> str:
        """Why the request cannot go on as it stands; ``alone``: the whole reply."""
        _, glue = self._glue(lang)
        text = glue[str(decision.problem)].format(**decision.detail)
        return text + glue["more"] if alone else text + " "

    def ask(self, slots: Sequence[str], lang: str | None) -> str:
        """One question naming each slot (and those asked with it) by its ``ask`` cue."""
        lang, glue = self._glue(lang)
        cues = []
        for name in dict.fromkeys(n for s in slots for n in (s, *self._asked_with.get(s, ()))):
            slot = self._slot_named.get(name)
            speech = (slot.say.get(lang) or next(iter(slot.say.values()), None)) if slot else None
            cues.append(speech.ask[0] if speech and speech.ask else name)
        joined = cues[0] if len(cues) == 1 else ", ".join(cues[:-1]) + glue["and"] + cues[-1]
        return glue["ask"].format(cues=joined)

    def propose(self, plan: Plan, lang: str | None) -> str:
        """The call's values, the figures quoted for the user's limits, the go-ahead question."""
        lang, glue = self._glue(lang)
        values = ", ".join(self.written(k, v, lang) for k, v in plan.args)
        if plan.info:
            values += ", " + ", ".join(
                f"{k}: {self.written(k, v, lang)}" for k, v in plan.info.items()
            )
        intent = self.domain.intent(plan.tool)
        what = (intent.description if intent and lang == "en" else "") or plan.tool
        cue = self._cue(lang)
        return glue["propose"].format(what=what.rstrip("."), values=values, cue=cue)

    def confirm(self, call: ToolCall, lang: str | None, drifted: bool) -> str:
        """Every field of the result, or (drifted) none."""
        lang, glue = self._glue(lang)
        if drifted:
            return glue["drifted"]
        if not isinstance(call.result, Mapping):
            return glue["done"].format(values="")
        values = "; ".join(f"{k}: {self.written(k, v, lang)}" for k, v in call.result.items())
        return glue["done"].format(values=values)

    def tool_error(self, call: ToolCall, lang: str | None) -> str:
        """That the call failed, with the tool's reason."""
        return self._glue(lang)[1]["refused"].format(error=call.error)

    def nothing_new(self, lang: str | None) -> str:
        """That the request is already done."""
        return self._glue(lang)[1]["nothing_new"]
