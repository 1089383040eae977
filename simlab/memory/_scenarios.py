"""One multi-session scenario per memory aspect, seeded so a store cannot pass by luck."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from random import Random

from simlab.memory._catalogue import CATALOGUE, KINDS_BY_TOPIC, SHARED_TOPICS, TOPICS, FactKind
from simlab.memory._probe import Probe, show, stamp
from simlab.memory._protocol import MemoryItem
from simlab.memory._result import Aspect

Scenario = Callable[[Probe, Random], Awaitable[None]]


def _days(rng: Random, lo: int, hi: int) -> timedelta:
    return timedelta(days=rng.randint(lo, hi))


def _user(rng: Random) -> str:
    return f"u{rng.randrange(1000, 10000)}"


def _values_of(items: Sequence[MemoryItem], key: str) -> list[str]:
    return [i.value for i in items if i.key == key]


def _topics_of(kinds: Sequence[FactKind]) -> list[str]:
    return sorted({k.topic for k in kinds})


async def storage(p: Probe, rng: Random) -> None:
    """Facts saved in session 1 are retrievable in session 2, days later."""
    user = _user(rng)
    kinds = rng.sample(CATALOGUE, rng.randint(3, 5))
    facts = {k: rng.choice(k.values) for k in kinds}
    p.new_session(timedelta(0))
    saved_at = {k: await p.save(user, k, v) for k, v in facts.items()}
    p.new_session(_days(rng, 1, 30))
    for topic in _topics_of(kinds):
        got = await p.retrieve(user, topic)
        for k in (k for k in kinds if k.topic == topic):
            p.check(
                facts[k] in _values_of(got, k.key),
                f"user {user!r} retrieve({topic!r}) should hold {k.key}={facts[k]!r} "
                f"saved at {stamp(saved_at[k])}; got {show(got)}",
            )


async def retrieval(p: Probe, rng: Random) -> None:
    """With several topics stored, a topic's own facts fill the top of its retrieval."""
    user = _user(rng)
    topics = rng.sample(TOPICS, rng.randint(4, len(TOPICS) - 1))
    kinds = [k for t in topics for k in KINDS_BY_TOPIC[t]]
    facts = {k: rng.choice(k.values) for k in kinds}
    order = list(kinds)
    rng.shuffle(order)
    # Two sessions, so other topics' facts are often newer: recency alone cannot rank.
    half = len(order) // 2
    for batch in (order[:half], order[half:]):
        p.new_session(_days(rng, 1, 10))
        for k in batch:
            await p.save(user, k, facts[k])
    p.new_session(_days(rng, 1, 10))
    for topic in rng.sample(topics, len(topics)):
        own = KINDS_BY_TOPIC[topic]
        want = {(k.key, facts[k]) for k in own}
        got = await p.retrieve(user, topic)
        top = got[: len(own)]
        unrelated = [i for i in top if (i.key, i.value) not in want]
        detail = f"; unrelated in the top: {show(unrelated)}" if unrelated else ""
        p.check(
            {(i.key, i.value) for i in top} == want and len(top) == len(want),
            f"retrieve({topic!r}) top {len(own)} should be exactly "
            f"{', '.join(f'{k}={v!r}' for k, v in sorted(want))}; got {show(got)}{detail}",
        )


async def update(p: Probe, rng: Random) -> None:
    """A fact restated with a new value returns only its newest value."""
    user = _user(rng)
    kinds = rng.sample(CATALOGUE, rng.randint(3, 5))
    history = {k: rng.sample(k.values, 3) for k in kinds}
    said: dict[FactKind, list[tuple[str, datetime]]] = {k: [] for k in kinds}

    async def state(kinds_now: Sequence[FactKind], version: int) -> None:
        for k in kinds_now:
            said[k].append((history[k][version], await p.save(user, k, history[k][version])))

    p.new_session(timedelta(0))
    await state(kinds, 0)
    updated = rng.sample(kinds, rng.randint(1, min(3, len(kinds))))
    p.new_session(_days(rng, 1, 30))
    await state(updated, 1)
    twice = [k for k in updated if rng.random() < 0.5]
    if twice:
        p.new_session(_days(rng, 1, 30))
        await state(twice, 2)
    p.new_session(_days(rng, 1, 30))
    for topic in _topics_of(kinds):
        got = await p.retrieve(user, topic)
        for k in (k for k in kinds if k.topic == topic):
            newest, values = said[k][-1][0], _values_of(got, k.key)
            older = {v for v, _ in said[k][:-1]}
            stale = [v for v in values if v in older]
            stated = ", ".join(f"{v!r} at {stamp(at)}" for v, at in said[k])
            detail = f"; stale value(s) {stale!r} returned" if stale else ""
            p.check(
                values == [newest],
                f"{k.key} stated as {stated}: retrieve({topic!r}) should give only "
                f"{newest!r}; got {values!r}{detail}",
            )


async def staleness(p: Probe, rng: Random) -> None:
    """A fact with a TTL applies until it expires and not after; fresh facts still apply."""
    user = _user(rng)
    topic = rng.choice(SHARED_TOPICS)
    temp, lasting = rng.sample(KINDS_BY_TOPIC[topic], 2)
    first, second = rng.sample(temp.values, 2)
    kept = rng.choice(lasting.values)
    ttl = timedelta(days=rng.choice((7, 14, 30, 90)))

    async def expect(present: dict[str, str], absent: dict[str, str], why: str) -> None:
        got = await p.retrieve(user, topic)
        for key, value in present.items():
            p.check(
                value in _values_of(got, key),
                f"{key}={value!r} should be returned ({why}); got {show(got)}",
            )
        for key, value in absent.items():
            p.check(
                value not in _values_of(got, key),
                f"{key}={value!r} should not be returned ({why}); got {show(got)}",
            )

    start = p.new_session(timedelta(0))
    t_first = await p.save(user, temp, first, ttl)
    await p.save(user, lasting, kept)
    exp = stamp(t_first + ttl)
    p.new_session(_days(rng, 1, ttl.days - 1) - (p.clock.now() - start))
    await expect({temp.key: first, lasting.key: kept}, {}, f"ttl {ttl.days}d, expires {exp}")
    p.new_session(t_first + ttl + _days(rng, 1, 60) - p.clock.now())
    await expect(
        {lasting.key: kept}, {temp.key: first}, f"expired at {exp}; {lasting.key} has no ttl"
    )
    p.new_session(_days(rng, 1, 5))
    t_second = await p.save(user, temp, second, ttl)
    await expect({temp.key: second}, {temp.key: first}, "restated just now with a fresh ttl")
    p.new_session(t_second + ttl + _days(rng, 1, 30) - p.clock.now())
    await expect(
        {lasting.key: kept},
        {temp.key: second},
        f"restated value expired at {stamp(t_second + ttl)}",
    )


async def deletion(p: Probe, rng: Random) -> None:
    """After the user asks to forget a fact or a topic, it is gone for good; nothing else is."""
    user = _user(rng)
    topic_f = rng.choice(SHARED_TOPICS)
    forgotten = rng.choice(KINDS_BY_TOPIC[topic_f])
    rest = [t for t in TOPICS if t != topic_f]
    topic_t = rng.choice(rest)
    extra = rng.sample([t for t in rest if t != topic_t], rng.randint(1, 2))
    kinds = [k for t in (topic_f, topic_t, *extra) for k in KINDS_BY_TOPIC[t]]
    history = {k: rng.sample(k.values, 3) for k in kinds}
    p.new_session(timedelta(0))
    for k in kinds:
        await p.save(user, k, history[k][0])
    # The realistic path to "forget": the user corrected the fact before asking to drop it.
    p.new_session(_days(rng, 1, 20))
    await p.save(user, forgotten, history[forgotten][1])
    p.new_session(_days(rng, 1, 20))
    await p.forget(user, key=forgotten.key)
    await p.forget(user, topic=topic_t)
    p.new_session(_days(rng, 1, 20))
    got = await p.retrieve(user, topic_f)
    left = _values_of(got, forgotten.key)
    p.check(
        not left,
        f"after forgetting {forgotten.key} (stated {history[forgotten][:2]!r}), "
        f"retrieve({topic_f!r}) should hold no {forgotten.key}; got {left!r}",
    )
    for k in (k for k in kinds if k.topic == topic_f and k is not forgotten):
        p.check(
            history[k][0] in _values_of(got, k.key),
            f"{k.key}={history[k][0]!r} was not forgotten and should remain; got {show(got)}",
        )
    got_t = await p.retrieve(user, topic_t)
    t_keys = {k.key for k in KINDS_BY_TOPIC[topic_t]}
    p.check(
        not [i for i in got_t if i.key in t_keys],
        f"after forgetting topic {topic_t!r}, retrieve({topic_t!r}) should be empty; "
        f"got {show(got_t)}",
    )
    for topic in extra:
        got_x = await p.retrieve(user, topic)
        for k in KINDS_BY_TOPIC[topic]:
            p.check(
                history[k][0] in _values_of(got_x, k.key),
                f"{k.key}={history[k][0]!r} was not forgotten and should remain; got {show(got_x)}",
            )
    p.new_session(_days(rng, 1, 20))
    await p.save(user, forgotten, history[forgotten][2])
    values = _values_of(await p.retrieve(user, topic_f), forgotten.key)
    p.check(
        values == [history[forgotten][2]],
        f"{forgotten.key} told again as {history[forgotten][2]!r} after being forgotten: "
        f"only that should return; got {values!r}",
    )


async def isolation(p: Probe, rng: Random) -> None:
    """Each user sees only their own facts, and one user's forgetting leaves others' alone."""
    base = _user(rng)
    # Ids that are prefixes of each other catch stores that match users by prefix.
    users = [base] + [f"{base}{i}" for i in range(1, rng.randint(2, 4))]
    rng.shuffle(users)
    kinds = rng.sample(CATALOGUE, rng.randint(2, 4))
    topics = _topics_of(kinds)
    private = rng.choice([k for k in CATALOGUE if k.topic not in topics])
    owner = users[0]
    assigned = {k: rng.sample(k.values, len(users)) for k in kinds}
    own = {u: {(k.key, assigned[k][n]) for k in kinds} for n, u in enumerate(users)}
    private_value = rng.choice(private.values)
    own[owner].add((private.key, private_value))
    p.new_session(timedelta(0))
    for k in kinds:
        for n in rng.sample(range(len(users)), len(users)):
            await p.save(users[n], k, assigned[k][n])
    await p.save(owner, private, private_value)
    p.new_session(_days(rng, 1, 30))

    async def expect_own(user: str, topic: str, why: str) -> None:
        got = await p.retrieve(user, topic)
        foreign = [i for i in got if (i.key, i.value) not in own[user]]
        topic_keys = {k.key for k in KINDS_BY_TOPIC[topic]}
        mine = {(key, v) for key, v in own[user] if key in topic_keys}
        missing = mine - {(i.key, i.value) for i in got}
        p.check(
            not foreign and not missing,
            f"user {user!r} retrieve({topic!r}) {why}: should be {sorted(mine)!r}; got {show(got)}"
            + (f"; not theirs: {show(foreign)}" if foreign else ""),
        )

    for user in users:
        for topic in sorted({*topics, private.topic}):
            await expect_own(user, topic, "right after all users saved")
    p.new_session(_days(rng, 1, 30))
    dropped = rng.choice(topics)
    await p.forget(owner, topic=dropped)
    # Whether the owner's facts went is the deletion aspect's question; here,
    # only that everybody else's stayed.
    for user in users[1:]:
        await expect_own(user, dropped, f"after user {owner!r} forgot topic {dropped!r}")


SCENARIOS: dict[Aspect, Scenario] = {
    Aspect.STORAGE: storage,
    Aspect.RETRIEVAL: retrieval,
    Aspect.UPDATE: update,
    Aspect.STALENESS: staleness,
    Aspect.DELETION: deletion,
    Aspect.ISOLATION: isolation,
}
