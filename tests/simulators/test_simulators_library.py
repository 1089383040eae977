"""The shipped persona library (and goal library, when present) against the simulator."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from simlab.core import AgentReply, UserTurn
from simlab.simulators import ScriptedSimulator
from simlab.spec import Goal, Mode, Persona, shipped_domain

from .sim_driver import BOOKING_GOAL, GOOD_ARGS, Replier, booking, play

ROOT = Path(__file__).resolve().parents[2]
PERSONA_FILES = sorted((ROOT / "personas").glob("*.yaml"))
GOAL_FILES = sorted((ROOT / "goals").glob("*.yaml"))
EXPECTED = {
    "terse_en": "terse",
    "terse_vi": "terse",
    "chatty_en": "chatty",
    "chatty_vi": "chatty",
    "fickle_en": None,
    "fickle_vi": None,
    "impatient_en": "frustrated",
    "impatient_vi": "frustrated",
    "novice_en": "novice",
    "novice_vi": "novice",
    "nodiacritics_vi": None,
    "typo_en": None,
}


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    return data


def _personas() -> list[Persona]:
    return [Persona.model_validate(_load(p)) for p in PERSONA_FILES]


@pytest.mark.parametrize("path", PERSONA_FILES, ids=lambda p: p.stem)
def test_persona_file_validates(path: Path) -> None:
    persona = Persona.model_validate(_load(path))
    assert persona.id == path.stem
    assert len(persona.description) > 80


def test_library_covers_the_required_personas() -> None:
    by_id = {p.id: p for p in _personas()}
    assert set(EXPECTED) <= set(by_id)
    for pid, style in EXPECTED.items():
        assert by_id[pid].language == pid[-2:]
        if style is not None:
            assert by_id[pid].traits.style == style
    assert by_id["fickle_en"].traits.change_mind >= 0.7
    assert by_id["fickle_vi"].traits.change_mind >= 0.7
    assert by_id["impatient_en"].traits.patience <= 7
    assert by_id["nodiacritics_vi"].traits.strip_diacritics
    assert 0 < by_id["typo_en"].traits.typo_rate <= 0.1
    languages = Counter(p.language for p in by_id.values())
    assert languages["en"] >= 6 and languages["vi"] >= 6


def _careful_agent(goal: Goal, language: str) -> Replier:
    """Asks for the first missing required fact, proposes, books on a plain yes."""
    known: dict[str, Any] = {}
    proposed = False

    def reply(turn: int, user: UserTurn) -> AgentReply:
        nonlocal proposed
        new = any(known.get(k) != v for k, v in user.disclosed.items())
        known.update(user.disclosed)
        missing = [f for f in goal.facts if f.required and f.id not in known]
        if not missing and (new or not proposed):
            proposed = True
            return AgentReply(text="Shall I book it?" if language == "en" else "Bạn xác nhận nhé?")
        if not missing:
            args = {
                **GOOD_ARGS,
                "origin": known["origin"],
                "destination": known["destination"],
                "date": known["date"],
                "passengers": known["adults"],
            }
            return AgentReply(text="Booked.", tool_calls=[booking(**args)])
        if new:
            return AgentReply(text="Noted.")
        slot = shipped_domain().slot(missing[0].slot)
        assert slot is not None
        return AgentReply(text=f"What is the {slot.say[language].ask[0]}?")

    return reply


def test_persona_library_spreads_session_lengths() -> None:
    big = dict(BOOKING_GOAL)
    big["facts"] = [
        *BOOKING_GOAL["facts"],
        {"id": "back", "slot": "return_date", "value": "2026-12-27"},
        {"id": "kids", "slot": "children", "value": 1},
        {"id": "age", "slot": "child_age", "value": 7, "required": False},
        {"id": "nights", "slot": "hotel_nights", "value": 3, "required": False},
    ]
    big["mind_changes"] = [*BOOKING_GOAL["mind_changes"], {"fact": "adults", "value": 3}]
    goal = Goal.model_validate(big)
    buckets: Counter[str] = Counter()
    for persona in _personas():
        for seed in range(6):
            sim = ScriptedSimulator(persona, goal, Mode.SHARDED, seed)
            n = len(play(sim, _careful_agent(goal, persona.language)))
            buckets["2-4" if n <= 4 else "5-9" if n <= 9 else "10+"] += 1
    assert all(buckets[b] >= 5 for b in ("2-4", "5-9", "10+")), buckets


@pytest.mark.skipif(not GOAL_FILES, reason="no shipped goals yet")
@pytest.mark.parametrize("mode", [Mode.FULL, Mode.SHARDED])
def test_every_shipped_goal_can_be_voiced(mode: Mode) -> None:
    replies = ["Noted.", "Which date?", "Shall I book it?", "Bạn muốn đi đâu?", "ok"]
    for path in GOAL_FILES:
        goal = Goal.model_validate(_load(path))
        for persona in _personas():
            turns = play(ScriptedSimulator(persona, goal, mode, 3), replies, max_turns=6)
            assert turns[0].text
            if mode is Mode.FULL:
                assert set(turns[0].disclosed) == {f.id for f in goal.facts}


def test_fast_strip_matches_strip_diacritics_on_every_domain_phrasing() -> None:
    from simlab.core import strip_diacritics
    from simlab.simulators._reading import fold
    from simlab.simulators._voice import fast_strip

    origin = shipped_domain("travel").slot("origin")
    assert origin is not None
    texts = [v.said("vi") for v in origin.values]  # the city names as a vi user says them
    texts += ["\u0110à Nẵng ĐẶT VÉ", "Ha\u0300 No\u0302\u0323i"]
    for path in sorted((ROOT / "domains").glob("*/*.yaml")):
        texts += path.read_text("utf-8").splitlines()
    for text in texts:
        assert fast_strip(text) == strip_diacritics(text), text
        assert fold(text) == strip_diacritics(text).lower(), text


def test_a_message_stripped_sentence_by_sentence_is_the_message_stripped() -> None:
    # the scripted user strips each sentence (remembered) and joins them after
    from itertools import pairwise

    from simlab.simulators._voice import fast_strip, stripped_sentence

    lines = [
        line
        for path in sorted((ROOT / "domains").glob("*/*.yaml"))
        for line in path.read_text("utf-8").splitlines()
        if not line.isascii()
    ]
    assert len(lines) > 100
    for a, b in pairwise(lines):
        sentences = [a, "\u0110à Nẵng", b, "Ha\u0300 No\u0302\u0323i"]
        joined = " ".join(sentences)
        assert " ".join(stripped_sentence(s) for s in sentences) == fast_strip(joined)
        assert stripped_sentence(a) == fast_strip(a)  # remembered, not changed
