"""No travel word lives in simlab/: domains are data (issue 10, item 2).

Every ``*.py``, ``*.yaml``, ``*.md`` and ``*.txt`` file under ``simlab/`` (its
path and its text) is scanned for the travel words below, as whole words:
``strip`` or ``welfare`` are no hits, ``book_flight`` and ``Flights`` are. The
allowlist names the paths still being rewritten; it may only shrink: an entry
whose path is gone or holds no travel word any more fails the test, so it is
removed as soon as its owner is done.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "simlab"
SUFFIXES = (".py", ".yaml", ".md", ".txt")

TRAVEL_WORDS = re.compile(
    r"(?<![a-z])(?:flights?|bookings?|hotels?|baggage|passengers?|airports?|trips?|fares?"
    r"|hà nội|ha noi|hanoi|da nang|đà nẵng|saigon)(?![a-z])",
    re.IGNORECASE,
)
"""The words of issue 10's grep, as whole words (a letter on neither side; ``_`` splits)."""

ALLOWED: dict[str, str] = {}
"""Paths (a folder ends in ``/``) the scan skips, each until its owner's stage is done;
empty since the reference agent's former travel desk left the package (issue 10, stage 3)."""


def _allowed(rel: str) -> bool:
    return any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in ALLOWED)


def travel_words(root: Path, base: Path = ROOT) -> list[str]:
    """``path:line: word`` for every travel word in ``root``'s scanned files (or their names)."""
    hits: list[str] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if path.suffix not in SUFFIXES or not path.is_file() or _allowed(rel):
            continue
        named = TRAVEL_WORDS.search(rel)
        if named:
            hits.append(f"{rel}: file name: {named.group(0)}")
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            hits.extend(f"{rel}:{n}: {m.group(0)}" for m in TRAVEL_WORDS.finditer(line))
    return hits


def test_no_travel_word_in_simlab() -> None:
    hits = travel_words(PACKAGE)
    assert not hits, (
        "travel words in simlab/ (domain words belong in a domain's YAML, domains/NAME/; "
        "reword code and text generically: request, action, record, reference):\n"
        + "\n".join(hits[:40])
    )


def test_every_allowlist_entry_is_still_needed() -> None:
    stale = []
    for entry in ALLOWED:
        path = ROOT / entry
        files = [p for p in path.rglob("*") if p.suffix in SUFFIXES] if path.is_dir() else [path]
        if not any(p.is_file() and TRAVEL_WORDS.search(p.read_text("utf-8")) for p in files):
            stale.append(entry)
    assert not stale, f"remove these allowlist entries, they hold no travel word: {stale}"


def test_the_scan_finds_an_added_travel_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ALLOWED, "simlab/agents/reference/", "a folder entry, for this test")
    pkg = tmp_path / "simlab"
    (pkg / "simulators").mkdir(parents=True)
    (pkg / "simulators" / "ok.py").write_text("text = value.strip()  # welfare, tripod\n")
    (pkg / "simulators" / "bad.md").write_text("Hello.\nYour Flight to Đà Nẵng is held.\n")
    (pkg / "simulators" / "tool.yaml").write_text("final_tool: cancel_booking\n")
    (pkg / "agents" / "reference").mkdir(parents=True)
    (pkg / "agents" / "reference" / "x.py").write_text("flight = 1\n")  # allowlisted
    (pkg / "agents" / "other.py").write_text("# no trips\n")
    (pkg / "hotel_rules.txt").write_text("nothing\n")
    assert travel_words(pkg, tmp_path) == [
        "simlab/agents/other.py:1: trips",
        "simlab/hotel_rules.txt: file name: hotel",
        "simlab/simulators/bad.md:2: Flight",
        "simlab/simulators/bad.md:2: Đà Nẵng",
        "simlab/simulators/tool.yaml:1: booking",
    ]
