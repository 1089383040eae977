"""The HTML report's transcript viewer: one filterable row per session, turns on demand.

Rows are rendered on the server (escaped); transcripts travel as one JSON blob
in a ``<script type="application/json">`` element that the page's script reads
when a session is opened, so a run of thousands of sessions stays one file of
reasonable size and opens fast.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from simlab.report._lengths import bucket_order, planned_bucket
from simlab.report._tables import escape_controls
from simlab.spec import Bucket
from simlab.store import SessionRecord

SESSIONS_BLOB_ID = "simlab-sessions"
FILTERS = ("persona", "goal", "bucket", "status")

# Inside <script>, "</script" or "<!--" would end or confuse the element; U+2028/2029
# end JavaScript lines in older engines. As \\u escapes they stay the same JSON strings.
_SCRIPT_SAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def json_for_script(data: Any) -> str:
    """JSON text that cannot break out of a ``<script>`` element.

    The characters that could end the element or start markup only occur inside
    JSON strings, where their ``\\u`` escapes mean the same characters.
    """
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


def session_anchor(record: SessionRecord) -> str:
    """The element id of a session in the report: ``session-`` and its key, ``/`` as ``-``
    (control characters shown as escapes, as everywhere in the report)."""
    return "session-" + escape_controls(record.key.id).replace("/", "-")


def _shown(text: str) -> str:
    """Record text for HTML: control and bidi characters as visible escapes, then escaped."""
    return escape(escape_controls(text))


def _inert(value: Any) -> Any:
    """``value`` with every string (keys too) shown with ``escape_controls``: the viewer
    puts them in the page as text, where an ESC or a bidi override would act."""
    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, dict):
        return {escape_controls(str(k)): _inert(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_inert(v) for v in value]
    return value


def outcome(record: SessionRecord) -> str:
    """``passed``, ``failed`` or ``error``: the status filter's values."""
    if record.status == "error":
        return "error"
    return "passed" if record.passed else "failed"


def first_failing_turn(record: SessionRecord) -> int | None:
    """The turn where the session went wrong, for the viewer to highlight.

    A constraint check names the turn the constraint was *stated*; it was broken
    where the final action was taken, so that turn counts for it. Other failing
    checks count at their own turn. A session that never took its final action
    failed at its last agent turn. None for a passed or ungraded session.
    """
    if record.status != "ok" or record.passed:
        return None
    completed = record.checks.get("goal_completed")
    action_turn = completed.turn if completed is not None and completed.passed else None
    turns = []
    for name, check in record.checks.items():
        if check.passed:
            continue
        turn = action_turn if name.startswith("constraint:") and action_turn else check.turn
        if turn is not None:
            turns.append(turn)
    if not turns:
        agent_turns = [t.index for t in record.transcript.turns if t.agent is not None]
        return agent_turns[-1] if agent_turns else None
    return min(turns)


def _error(record: SessionRecord, tracebacks: bool) -> str | None:
    """The session's error as published: its first line (type and message), and the
    traceback (local paths and code) only when asked for."""
    if record.error is None:
        return None
    headline = record.error.headline
    if tracebacks and record.error.traceback:
        return f"{headline}\n{record.error.traceback}"
    return headline


def _session_data(record: SessionRecord, tracebacks: bool = False) -> dict[str, Any]:
    """What the viewer shows on expand, with short keys: the blob is most of the file."""
    turns: list[dict[str, Any]] = []
    for turn in record.transcript.turns:
        t: dict[str, Any] = {"i": turn.index, "u": turn.user.text, "a": None}
        if turn.user.stop is not None:
            t["s"] = turn.user.stop.value
        if turn.user.disclosed:
            t["d"] = _plain(turn.user.disclosed)
        if turn.user.perturbations:
            t["p"] = list(turn.user.perturbations)
        if turn.agent is not None:
            t["a"] = turn.agent.text
            t["c"] = [
                {"n": c.name, "a": _plain(c.args), "r": _plain(c.result), "e": c.error}
                for c in turn.agent.tool_calls
            ]
        turns.append(t)
    failing = [[name, c.detail, c.turn] for name, c in record.checks.items() if not c.passed]
    err = _error(record, tracebacks)
    data: dict[str, Any] = _inert(
        {"ff": first_failing_turn(record), "f": failing, "err": err, "t": turns}
    )
    return data


def _plain(value: Any) -> Any:
    """Tool data as JSON values: non-finite floats become null so JSON.parse accepts them."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | bool):
        return value
    return str(value)


def _bucket_names(records: Sequence[SessionRecord], buckets: Sequence[Bucket]) -> list[str]:
    return [planned_bucket(r, buckets) for r in records]


def _select(field: str, values: Sequence[str]) -> str:
    options = "".join(f'<option value="{_shown(v)}">{_shown(v)}</option>' for v in values)
    return (
        f'<label>{field.capitalize()}<select id="f-{field}">'
        f'<option value="">all</option>{options}</select></label>'
    )


_HEAD = (
    '<div class="srow head"><span>Session</span><span>Persona</span><span>Goal</span>'
    "<span>Mode</span><span>Planned length (realised)</span><span>Status</span><span>Score</span>"
    "<span>Stop reason</span></div>"
)


def _lengths(r: SessionRecord) -> str:
    planned = "no plan" if r.planned_turns is None else f"planned {r.planned_turns}"
    return f"{planned}, realised {r.n_user_turns}"


def _row(i: int, r: SessionRecord, bucket: str) -> str:
    status = outcome(r)
    score = "—" if r.score is None else f"{r.score:.0f}"
    attrs = {
        "id": session_anchor(r),
        "data-i": str(i),
        "data-persona": r.key.persona,
        "data-goal": r.key.goal,
        "data-bucket": bucket,
        "data-status": status,
    }
    attr_text = " ".join(f'{k}="{_shown(v)}"' for k, v in attrs.items())
    cells = [
        f'<span class="key">{_shown(r.key.id)}</span>',
        f"<span>{_shown(r.key.persona)}</span>",
        f"<span>{_shown(r.key.goal)}</span>",
        f"<span>{_shown(r.key.mode)}</span>",
        f"<span>{_shown(bucket)} ({_lengths(r)})</span>",
        f'<span class="st {status}">{status}</span>',
        f"<span>{score}</span>",
        f"<span>{_shown(r.stop_reason.value)}</span>",
    ]
    return (
        f'<details class="session" {attr_text}><summary class="srow">{"".join(cells)}</summary>'
        '<div class="body"></div></details>'
    )


def render_viewer(
    records: Sequence[SessionRecord], buckets: Sequence[Bucket], tracebacks: bool = False
) -> str:
    """The transcript viewer section: filters, one expandable row per session, the JSON blob.

    Args:
        records: The sessions, shown sorted by key.
        buckets: The length buckets sessions are filtered by (by planned length).
        tracebacks: Show error sessions' tracebacks (local paths and code), not
            only their error's type and message.

    Returns:
        HTML for the section; every piece of record text is escaped.
    """
    ordered = sorted(records, key=lambda r: r.key.id)
    names = _bucket_names(ordered, buckets)
    order = bucket_order(buckets, names)
    choices = {
        "persona": sorted({r.key.persona for r in ordered}),
        "goal": sorted({r.key.goal for r in ordered}),
        "bucket": [b for b in order if b in set(names)],
        "status": [
            s for s in ("passed", "failed", "error") if any(outcome(r) == s for r in ordered)
        ],
    }
    filters = "".join(_select(f, choices[f]) for f in FILTERS)
    rows = "\n".join(_row(i, r, b) for i, (r, b) in enumerate(zip(ordered, names, strict=True)))
    blob = json_for_script([_session_data(r, tracebacks) for r in ordered])
    return (
        f'<div class="filters">{filters}<span id="shown"></span></div>\n'
        f'<div class="sessions">{_HEAD}\n{rows}\n</div>\n'
        f'<script type="application/json" id="{SESSIONS_BLOB_ID}">{blob}</script>'
    )
