"""Responders: what the fake provider says. Deterministic functions of the request."""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Protocol

from simlab.llm import first_json_object
from simlab.testing._reply import FakeReply, schema_instance
from simlab.testing._request import FakeRequest


class Responder(Protocol):
    """Turns a parsed request into the assistant's reply: text, or a ``FakeReply``
    with native tool calls (sent as such when the request offers tools)."""

    def __call__(self, request: FakeRequest) -> str | FakeReply:
        """Return the reply to ``request``."""
        ...


_SENTENCES = (
    "Sure, I can help with that.",
    "Thanks, that is clear.",
    "Could you tell me a little more?",
    "Understood, let me check.",
    "Got it, that works for me.",
    "Okay, please go ahead.",
)


def _sentence(request: FakeRequest) -> str:
    return _SENTENCES[request.rng().randrange(len(_SENTENCES))]


@lru_cache(maxsize=256)
def _json_example(prompt: str) -> str | None:
    """The first JSON object literal in ``prompt``, re-serialized, if any parses."""
    value = first_json_object(prompt)
    return None if value is None else json.dumps(value, ensure_ascii=False)


def default_responder(request: FakeRequest) -> str:
    """The responder used when none is given; useful for simlab's own LLM roles.

    When JSON is wanted (the system prompt contains "JSON", or an OpenAI
    ``response_format`` asks for it) the reply is, in order of preference: the
    first JSON object literal written in the system prompt (so a prompt's own
    example comes back, valid by construction), a minimal instance of the
    ``json_schema`` response format, or ``{"response": <sentence>}``. Otherwise it
    is one short plain sentence drawn with the request's seed.
    """
    if request.json_mode or "JSON" in request.system:
        example = _json_example(request.system)
        if example is not None:
            return example
        if request.json_schema is not None:
            return json.dumps(schema_instance(request.json_schema))
        return json.dumps({"response": _sentence(request)})
    return _sentence(request)


def echo(request: FakeRequest) -> str:
    """Reply with the last user message, unchanged."""
    return request.last_user_text


class _Scripted:
    def __init__(self, texts: Sequence[str | FakeReply]) -> None:
        if not texts:
            raise ValueError("scripted() needs at least one text")
        self._texts = itertools.cycle(tuple(texts))
        # The thread server and the caller's thread may both call it.
        self._lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> str | FakeReply:
        with self._lock:
            return next(self._texts)


def scripted(texts: Sequence[str | FakeReply]) -> Responder:
    """Reply with ``texts`` in order, one per request, cycling when they run out.

    An item may be a ``FakeReply`` to answer with native tool calls.
    """
    return _Scripted(texts)


class _RuleBased:
    def __init__(self, rules: Iterable[tuple[re.Pattern[str], str]], default: Responder) -> None:
        self._rules = tuple(rules)
        self._default = default

    def __call__(self, request: FakeRequest) -> str | FakeReply:
        text = request.last_user_text
        for pattern, template in self._rules:
            match = pattern.search(text)
            if match is not None:
                return match.expand(template)
        return self._default(request)


def rule_based(
    rules: Mapping[str, str] | Sequence[tuple[str | re.Pattern[str], str]],
    default: Responder = default_responder,
) -> Responder:
    """Reply by the first regex that matches the last user message.

    Args:
        rules: ``pattern -> template`` in priority order. Patterns are searched
            (not fully matched), case-sensitively unless they carry ``(?i)``;
            templates may use ``\\1`` or ``\\g<name>`` for groups.
        default: What answers when no rule matches.

    Raises:
        re.error: if a pattern does not compile (at construction, not per request).
    """
    pairs = rules.items() if isinstance(rules, Mapping) else rules
    compiled = [(re.compile(p) if isinstance(p, str) else p, t) for p, t in pairs]
    return _RuleBased(compiled, default)


class ByModel:
    """Answers with the responder of the requested model: quality profiles by model name.

    A request's ``model`` takes the responder of its longest matching prefix in
    ``profiles``, else ``default``; runs of one suite on several model names
    then differ as those responders do (``simlab routing`` reads such runs).

    Args:
        profiles: Model name (or name prefix) to responder.
        default: The responder of any other model.
    """

    def __init__(self, profiles: Mapping[str, Responder], default: Responder) -> None:
        self.profiles = dict(profiles)
        self.default = default
        self._prefixes = sorted(self.profiles, key=len, reverse=True)

    def __call__(self, request: FakeRequest) -> str | FakeReply:
        """The reply of the model's responder."""
        for prefix in self._prefixes:
            if request.model.startswith(prefix):
                return self.profiles[prefix](request)
        return self.default(request)
