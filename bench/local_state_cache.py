"""The local model's prompt-state cache: wall time of alternating roles, cache on vs off.

In a run the simulated user, the agent and the judge take turns on one
in-process model, so llama.cpp's reuse of the previous call's prefix rarely
applies: each call re-evaluates its whole prompt. The state cache
(``state_cache_mb``) saves states by prompt prefix and loads the longest match.
This replays the call pattern of a session (a user turn, then an agent turn
whose system prompt is ~2,000 tokens, each conversation growing) through the
real ``local`` backend, with the cache off and on, and prints the ratio.

Needs the local extra: pip install -e '.[local]'.

    python bench/local_state_cache.py [--turns N]
"""

from __future__ import annotations

import argparse
import time

import anyio

from simlab.llm import LLMMessage, LLMRequest, LLMSpec, create_llm

AGENT_SYSTEM = "You are a travel booking agent. " + " ".join(
    f"Rule {i}: check the constraint on item {i} before any booking." for i in range(150)
)
USER_SYSTEM = "You play a traveller who wants a flight. " + " ".join(
    f"Fact {i} of the trip." for i in range(60)
)


async def session(cache_mb: int, turns: int) -> float:
    """Seconds for ``turns`` user+agent exchanges on a freshly loaded model."""
    llm = create_llm(
        LLMSpec(backend="local", state_cache_mb=cache_mb, max_tokens=8, temperature=0.0)
    )
    user: list[LLMMessage] = []
    agent: list[LLMMessage] = []
    warm = LLMRequest(messages=[LLMMessage(role="user", content="hi")], max_tokens=1)
    await llm.complete(warm)  # loads the model: not part of the figure
    start = time.perf_counter()
    for turn in range(turns):
        user.append(LLMMessage(role="user", content=f"Turn {turn}: your next message?"))
        said = await llm.complete(LLMRequest(system=USER_SYSTEM, messages=list(user), seed=1))
        user.append(LLMMessage(role="assistant", content=said.text or "ok"))
        agent.append(LLMMessage(role="user", content=said.text or f"I want to fly ({turn})"))
        reply = await llm.complete(LLMRequest(system=AGENT_SYSTEM, messages=list(agent), seed=1))
        agent.append(LLMMessage(role="assistant", content=reply.text or "ok"))
    await llm.aclose()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    off = anyio.run(session, 0, args.turns)
    on = anyio.run(session, 2048, args.turns)
    print(f"turns               {args.turns} (a user call and an agent call each)")
    print(f"cache off           {off:.1f} s")
    print(f"cache on            {on:.1f} s")
    print(f"speed-up            {off / on:.2f}x (same machine, same run)")


if __name__ == "__main__":
    main()
