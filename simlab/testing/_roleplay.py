"""A responder that plays simlab's own LLM roles well enough for end-to-end runs.

With it, ``simlab fake-provider`` (its default responder) stands in for a real
model behind every role of a suite run with ``--llm``:

* the simulated user says the plan's plain version (the turn prompt carries it),
  in the JSON the LLM simulator asks for;
* the LLM agent is played by the reference agent ``v2`` over the user
  messages in the request, answering in the LLM agent's JSON reply format
  (tool calls first, then the final text once the tool results come back), or
  with native tool calls when the request offers ``tools`` (any request that
  does is taken for the agent's);
* the judge answers each criterion of its rubric from what the case states
  mechanically (``judge_reply``: a fact the user had to repeat twice fails
  ``no_repeat``, a final action that never succeeded fails ``resolved`` unless
  no option was feasible); a rubric without criteria gets its own example
  verdict (the default responder).

It couples the fake provider to simlab's prompt files on purpose: it exists
to exercise simlab's real LLM path offline, not to model any provider.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Coroutine, Sequence
from typing import Any

from simlab.agents.reference import ReferenceAgent, SkillFactory, preset, skill_for
from simlab.core import Message, SessionContext
from simlab.spec import Domain
from simlab.testing._judge_play import fake_judge
from simlab.testing._reply import FakeReply
from simlab.testing._request import FakeMessage, FakeRequest, FakeToolCall
from simlab.testing._responders import ByModel

_PLAIN = re.compile(r"^Plain version: (.*)$", re.MULTILINE)
_FACTS = re.compile(
    r"these facts \(id: what to say\):\n(.*?)\nPlain version:", re.DOTALL | re.MULTILINE
)
_AGENT_MARKER = "Only the text of your last answer in a turn reaches the user."
_TOOL_RESULTS = "Tool results (JSON):"
_MAX_CONVERSATIONS = 4096
_SECTION_HEADERS = (
    "What the user has told you so far (their own words, by turn):",
    "Reminder of the rules you must follow:",
)


class Roleplay:
    """The responder; ``agent_version`` picks the reference agent that plays the agent.

    ``v1`` (with its defects) makes longer, failing conversations; ``v2`` correct ones.
    ``domain`` is the domain the played agent serves (None: the shipped default, travel):
    a hosted agent of your own domain is played only with your domain.
    """

    def __init__(self, agent_version: str = "v2", domain: Domain | None = None) -> None:
        self.agent_version = agent_version
        self.domain = domain
        # what the played agents share: the domain's skill (its reader, every phrasing
        # compiled) and the event loop their replies run on, made once for this responder
        self._skill: SkillFactory | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        # conversation so far (user texts) -> (agent, history, its reply to the last text);
        # a conversation only grows, so each agent call advances one cached agent one turn
        # instead of replaying the whole conversation (which made the server the bottleneck)
        self._agents: OrderedDict[tuple[str, ...], tuple[Any, list[Any], Any]] = OrderedDict()

    def __call__(self, request: FakeRequest) -> str | FakeReply:
        """Answer as whichever simlab role sent ``request``."""
        last = request.messages[-1].text if request.messages else ""
        plain = _PLAIN.search(last)
        if plain is not None:
            return _user_turn(last, plain.group(1))
        if request.tools:
            return self._native_agent_turn(request)
        if _AGENT_MARKER in request.system:
            return self._agent_turn(request)
        return fake_judge(request)

    def _native_agent_turn(self, request: FakeRequest) -> FakeReply:
        reply = self._reply_to(_user_texts(request.messages))
        results = _trailing_results(request.messages)
        if results:
            return FakeReply(_with_their_values(reply, results))
        if reply.tool_calls:
            return FakeReply("", tuple(FakeToolCall(c.name, c.args) for c in reply.tool_calls))
        return FakeReply(reply.text)

    def _agent_turn(self, request: FakeRequest) -> str:
        reply = self._reply_to(_user_texts(request.messages))
        last = request.messages[-1].text if request.messages else ""
        if last.startswith(_TOOL_RESULTS):
            results = json.loads(last[len(_TOOL_RESULTS) :])
            return json.dumps({"text": _with_their_values(reply, results), "tool_calls": []})
        if reply.tool_calls:
            calls = [{"name": c.name, "args": c.args} for c in reply.tool_calls]
            return json.dumps({"text": "", "tool_calls": calls})
        return json.dumps({"text": reply.text, "tool_calls": []})

    def _reply_to(self, user_texts: tuple[str, ...]) -> Any:
        cached = self._agents.get(user_texts)
        if cached is not None:
            return cached[2]
        before = self._agents.pop(user_texts[:-1], None)
        if before is not None:
            agent, history, _ = before
            todo = user_texts[-1:]
        else:
            agent = ReferenceAgent(preset(self.agent_version), 0, self._skill_factory())
            history, todo = [], user_texts
        reply = self._advance(agent, history, todo)
        self._agents[user_texts] = (agent, history, reply)
        while len(self._agents) > _MAX_CONVERSATIONS:
            self._agents.popitem(last=False)
        return reply

    def _skill_factory(self) -> SkillFactory:
        if self._skill is None:
            self._skill = skill_for(self.domain)
        return self._skill

    def _advance(self, agent: Any, history: list[Any], user_texts: Sequence[str]) -> Any:
        """Feed ``user_texts`` to ``agent`` after ``history`` (extended in place); its last
        reply."""
        reply = None
        for text in user_texts:
            history.append(Message(role="user", text=text))
            turn = sum(1 for m in history if m.role == "user")
            reply = self._finish(agent.reply(history, SessionContext("roleplay", 0, turn)))
            history.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
        return reply

    def _finish(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """The agent's coroutine run to its end on this responder's own event loop, in a
        thread of its own: a responder is a plain function, and may be called inside the
        fake server's running loop."""
        return asyncio.run_coroutine_threadsafe(coro, self._agent_loop()).result()

    def _agent_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="roleplay", daemon=True).start()
                self._loop = loop
            return self._loop


roleplay = Roleplay("v2")
"""Plays the agent with the reference agent v2."""

SMALL_MODEL = "fake-small"
"""A model name whose agent ``roleplay_models`` plays as reference v1 (defects on)."""
LARGE_MODEL = "fake-large"
"""A model name whose agent ``roleplay_models`` plays as reference v2 (any other name too)."""
roleplay_models = ByModel({SMALL_MODEL: Roleplay("v1")}, default=roleplay)
"""Plays simlab's roles with two quality profiles: the agent of model names starting
``fake-small`` is reference v1, of any other model v2."""


def roleplay_of(domain: Domain) -> dict[str, ByModel | Roleplay]:
    """The roleplay responders by their ``simlab fake-provider --responder`` names, with
    the played agent serving ``domain``."""
    v2 = Roleplay("v2", domain)
    return {
        "roleplay": v2,
        "roleplay-v1": Roleplay("v1", domain),
        "roleplay-models": ByModel({SMALL_MODEL: Roleplay("v1", domain)}, default=v2),
    }


def _user_texts(messages: Sequence[FakeMessage]) -> tuple[str, ...]:
    """What the user said, without tool results (in text or native) or the knobs' sections."""
    return tuple(
        _strip_sections(m.text)
        for m in messages
        if m.role == "user" and not m.tool_results and not m.text.startswith(_TOOL_RESULTS)
    )


def _trailing_results(messages: Sequence[FakeMessage]) -> list[dict[str, Any]]:
    """The native tool results that end the conversation, as ``{"result": ...}`` rows."""
    texts: list[str] = []
    for message in reversed(messages):
        if not message.tool_results:
            break
        texts[:0] = message.tool_results
    rows = []
    for text in texts:
        try:
            rows.append({"result": json.loads(text)})
        except ValueError:
            rows.append({"result": text})
    return rows


def _user_turn(prompt: str, draft: str) -> str:
    facts = _FACTS.search(prompt)
    ids = []
    if facts is not None:
        ids = [line.split(":", 1)[0].strip() for line in facts.group(1).splitlines() if ":" in line]
    return json.dumps({"response": draft, "disclosed": [i for i in ids if i and " " not in i]})


def _with_their_values(reply: Any, results: list[dict[str, Any]]) -> str:
    """The played agent's text, with its own reference codes swapped for the tools' ones."""
    text: str = reply.text
    for mine, theirs in zip(reply.tool_calls, results, strict=False):
        if isinstance(mine.result, dict) and isinstance(theirs.get("result"), dict):
            for field in ("reference", "total_price", "amount", "fee"):
                a, b = mine.result.get(field), theirs["result"].get(field)
                if a is not None and b is not None and str(a) != str(b):
                    text = text.replace(str(a), str(b))
    return text


def _strip_sections(text: str) -> str:
    for header in _SECTION_HEADERS:
        text = text.split("\n\n" + header, 1)[0].split(header, 1)[0]
    return text.strip()
