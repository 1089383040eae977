"""End to end: a scripted user states facts in one session and relies on them in a later one.

Each script runs against a fresh store wrapped in a ``MemoryAgent``; a new agent
serves every session, so only the store carries facts across them. A session
that asks for an order is graded on the agent's ``place_order`` arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from random import Random

import anyio

from simlab.core import AgentReply, Message, SessionContext, derive_seed
from simlab.memory._agent import MemoryAgent
from simlab.memory._catalogue import CATALOGUE
from simlab.memory._clock import SimClock
from simlab.memory._probe import stamp
from simlab.memory._result import AspectResult

_VALUES = {k.key: k.values for k in CATALOGUE}
_ITEMS = ("a desk lamp", "a rice cooker", "running shoes", "a bookshelf", "a tea set")
E2E_VARIANTS: tuple[str, ...] = ("recall", "update", "forget", "expiry")


@dataclass(frozen=True, slots=True)
class ScriptedSession:
    """One conversation of the scripted user.

    Attributes:
        after: Simulated time since the previous session began.
        user_turns: What the user says, one message per turn.
        expect: For an ordering session, the ``place_order`` arguments the answer
            must carry (``None`` = must not be filled from memory).
        superseded: Values the user replaced or withdrew earlier, by order
            argument, so evidence can say when the agent used one of them.
    """

    after: timedelta
    user_turns: tuple[str, ...]
    expect: dict[str, str | None] | None = None
    superseded: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MemoryScript:
    """A multi-session script testing one end-to-end variant."""

    variant: str
    user_id: str
    sessions: tuple[ScriptedSession, ...] = field(default_factory=tuple)


def _introduce(contact: str, payment: str, home: str) -> tuple[str, ...]:
    return (
        "Hi! Please remember this for next time.",
        f"I prefer to be contacted by {contact}.",
        f"I always pay with {payment}.",
        f"I live in {home}.",
    )


def build_script(variant: str, seed: int) -> MemoryScript:
    """The seeded script for ``variant`` (one of ``E2E_VARIANTS``)."""
    if variant not in E2E_VARIANTS:
        raise ValueError(f"unknown end-to-end variant {variant!r}; choose from {E2E_VARIANTS}")
    rng = Random(derive_seed("memory-e2e", seed, variant))
    contact, new_contact = rng.sample(_VALUES["contact"], 2)
    payment = rng.choice(_VALUES["payment"])
    home = rng.choice(_VALUES["home_city"])
    item = rng.choice(_ITEMS)
    user = f"u{rng.randrange(1000, 10000)}"

    def days(lo: int, hi: int) -> timedelta:
        return timedelta(days=rng.randint(lo, hi))

    def order(when: str) -> tuple[str, ...]:
        return (f"Order me {item} for {when}.",)

    stated: dict[str, str | None] = {
        "city": home,
        "payment": payment,
        "contact": contact,
        "delegate": None,
    }
    first = ScriptedSession(timedelta(0), _introduce(contact, payment, home))
    sessions: list[ScriptedSession] = [first]
    if variant == "recall":
        sessions.append(ScriptedSession(days(2, 30), order("Friday"), stated))
    elif variant == "update":
        sessions.append(
            ScriptedSession(
                days(2, 30), (f"Actually, I now prefer to be contacted by {new_contact}.",)
            )
        )
        sessions.append(
            ScriptedSession(
                days(2, 30),
                order("Monday"),
                {**stated, "contact": new_contact},
                {"contact": contact},
            )
        )
    elif variant == "forget":
        sessions.append(ScriptedSession(days(2, 30), ("Please forget my home city.",)))
        sessions.append(
            ScriptedSession(days(2, 30), order("Sunday"), {**stated, "city": None}, {"city": home})
        )
    else:
        ttl = rng.choice((7, 14))
        delegate = rng.choice(_VALUES["delegate"])
        standing_in = f"For the next {ttl} days {delegate} acts for me."
        sessions[0] = ScriptedSession(timedelta(0), (*first.user_turns, standing_in))
        sessions.append(
            ScriptedSession(days(1, ttl - 1), order("Saturday"), {**stated, "delegate": delegate})
        )
        sessions.append(
            ScriptedSession(days(ttl, ttl + 30), order("Tuesday"), stated, {"delegate": delegate})
        )
    return MemoryScript(variant, user, tuple(sessions))


def _grade(reply: AgentReply, session: ScriptedSession, where: str) -> list[str]:
    """Evidence lines comparing the agent's order with what the user last said."""
    expect = session.expect or {}
    order = next((c for c in reply.tool_calls if c.name == "place_order"), None)
    if order is None:
        return [f"FAIL: {where}: no place_order call; the agent said {reply.text!r}"]
    lines = []
    for name, want in expect.items():
        got = order.args.get(name)
        verdict = "ok" if got == want else "FAIL"
        old = session.superseded.get(name)
        note = f" (the superseded value {old!r})" if got is not None and got == old else ""
        lines.append(
            f"{verdict}: {where}: place_order {name} should be {want!r}; got {got!r}{note}"
        )
    return lines


async def arun_script(factory: Callable[[], object], script: MemoryScript) -> AspectResult:
    """Play ``script`` against a fresh store from ``factory`` (async form)."""
    store, clock = factory(), SimClock()
    evidence: list[str] = []
    for n, session in enumerate(script.sessions, start=1):
        clock.advance(session.after)
        where = f"session {n} at {stamp(clock.now())}"
        agent = MemoryAgent(store, script.user_id, clock)
        history: list[Message] = []
        reply = AgentReply(text="")
        try:
            for turn, text in enumerate(session.user_turns, start=1):
                history.append(Message(role="user", text=text))
                ctx = SessionContext(f"{script.variant}-{n}", 0, turn)
                reply = await agent.reply(history, ctx)
                history.append(Message(role="assistant", text=reply.text))
                clock.advance(timedelta(minutes=1))
        except Exception as e:  # the store is untrusted code: its crash is evidence
            evidence.append(f"FAIL: {where}: the store raised {type(e).__name__}: {e}")
            break
        if session.expect is not None:
            evidence.extend(_grade(reply, session, where))
    passed = bool(evidence) and not any(e.startswith("FAIL") for e in evidence)
    return AspectResult(f"e2e:{script.variant}", passed, evidence)


async def arun_memory_e2e(factory: Callable[[], object], seed: int = 0) -> list[AspectResult]:
    """Every end-to-end variant, in ``E2E_VARIANTS`` order (async form)."""
    return [await arun_script(factory, build_script(v, seed)) for v in E2E_VARIANTS]


def run_memory_e2e(factory: Callable[[], object], seed: int = 0) -> list[AspectResult]:
    """Run the end-to-end memory variants through a ``MemoryAgent``.

    Variants: ``recall`` (facts from session 1 used in an order days later),
    ``update`` (a corrected preference must win), ``forget`` (a forgotten home
    city must not be used), ``expiry`` (a temporary delegate applies within its
    TTL and not after).

    Args:
        factory: Makes an empty store; sync or async methods.
        seed: Chooses the user's values and the gaps between sessions.

    Returns:
        One ``AspectResult`` per variant, named ``e2e:<variant>``.
    """
    return anyio.run(arun_memory_e2e, factory, seed)
