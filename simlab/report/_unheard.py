"""Failed sessions whose simulated user did not understand the agent, so a report can say
the failure may be the domain's missing cues rather than the agent's doing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from simlab.store import UNHEARD_META, RunSummary, SessionRecord

CUES_DOC = "docs/domains.md#when-the-scripted-user-does-not-understand-your-agent"
"""Where the report sends a reader to add cues."""

_MAX_EXAMPLES = 3
_SHOWN_CHARS = 120


def _unheard(record: SessionRecord) -> dict[str, Any] | None:
    found = record.meta.get(UNHEARD_META)
    if isinstance(found, dict) and isinstance(found.get("count"), int) and found["count"] > 0:
        return found
    return None


def unheard_section(records: Iterable[SessionRecord]) -> dict[str, Any]:
    """Graded sessions, failed and passed, and how many of each had agent turns the
    simulated user answered without understanding (``meta["unheard"]``).

    ``questions`` lists the commonest first such questions of the failed sessions
    (ties in the order of the sessions' keys), each with how many sessions it opened;
    ``sessions`` names a few of those sessions.
    """
    failed = failed_with = passed = passed_with = turns = 0
    firsts: dict[str, int] = {}
    sessions: list[str] = []
    for r in sorted(records, key=lambda r: r.key.id):
        if r.status != "ok" or r.passed is None:
            continue
        found = _unheard(r)
        if r.passed:
            passed += 1
            passed_with += found is not None
            continue
        failed += 1
        if found is None:
            continue
        failed_with += 1
        turns += found["count"]
        text = str(found.get("first_text", ""))
        firsts[text] = firsts.get(text, 0) + 1
        sessions.append(r.key.id)
    commonest = sorted(firsts.items(), key=lambda kv: -kv[1])[:_MAX_EXAMPLES]
    return {
        "failed": failed,
        "failed_unheard": failed_with,
        "failed_unheard_turns": turns,
        "passed": passed,
        "passed_unheard": passed_with,
        "questions": [{"text": text, "sessions": n} for text, n in commonest],
        "sessions": sessions[:_MAX_EXAMPLES],
    }


def session_note(record: SessionRecord) -> str | None:
    """What a failed session's own entry (a JUnit failure) adds: the agent turns its
    simulated user did not understand, and the first; None when there were none."""
    found = _unheard(record)
    if found is None:
        return None
    n = found["count"]
    return (
        f"the scripted user did not understand {n} agent turn{'' if n == 1 else 's'} "
        f"(first, turn {found.get('first_turn')}: '{_shown(str(found.get('first_text', '')))}'); "
        f"add cues for them in your domain ({CUES_DOC})"
    )


def _shown(text: str) -> str:
    """One line of at most ``_SHOWN_CHARS`` characters (renderers escape the rest)."""
    line = " ".join(text.split())
    return line if len(line) <= _SHOWN_CHARS else line[:_SHOWN_CHARS] + "…"


def unheard_line(summary: RunSummary) -> str | None:
    """The report's line on failed sessions with agent turns the simulated user did not
    understand; None when no failed session had any (or the summary predates the count)."""
    u = summary.unheard
    if u is None or not u.failed_unheard or not u.questions:
        return None
    first = u.questions[0]
    turns = u.failed_unheard_turns
    passed = (
        f"; {u.passed_unheard} of {u.passed} passed sessions had such turns too" if u.passed else ""
    )
    return (
        f"{u.failed_unheard} of {u.failed} failed sessions had agent turns the scripted "
        f"user did not understand ({turns} turn{'' if turns == 1 else 's'}; first: "
        f"'{_shown(first.text)}' in {first.sessions} of them{passed}): no cue of the "
        "domain names these questions, so the user could not answer them and these failures "
        f"may be the domain's, not the agent's; add cues for them in your domain ({CUES_DOC})."
    )
