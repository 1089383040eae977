"""Which length bucket a session counts in: its planned length, never its realised one.

A session's realised number of user turns depends on how it went (a user whose
request went wrong keeps talking until it is fixed or they give up), so pass
rates by realised length show "long conversations fail" by construction. The
length rows of every report use the *planned* length instead: the user turns
the session's plan needs (``SessionRecord.planned_turns``), fixed before it
ran, the same for a key in every run and with every agent. Realised length is
kept as a descriptive table, labelled as depending on the outcome.

Sessions without a plan (imported logs, records written before simlab recorded
plans) count in an ``unplanned`` row of the planned tables; their lengths show
only in the realised-length table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from simlab.spec import Bucket
from simlab.stats import bucket_of
from simlab.store import SessionRecord, StopReason

UNBUCKETED = "other"
"""Bucket name of sessions no configured bucket holds (e.g. one user turn)."""
UNPLANNED = "unplanned"
"""Bucket name of sessions with no plan (imported logs, older records)."""

PLANNED_NOTE = (
    "planned length: the user turns the session's plan needs (its facts, mind changes "
    "and perturbations, then the closing turn), fixed before it runs: the same key has "
    "the same bucket in every run and with every agent"
)
REALISED_NOTE = "realised length — depends on the outcome (failing users talk longer); not a cause"
IMPORTED_NOTE = (
    "imported sessions have no plan: they count as 'unplanned' in the planned-length "
    "rows; their lengths are in the realised-length table, which depends on the outcome"
)
UNPLANNED_NOTE = (
    "sessions recorded without a plan (written before simlab recorded planned lengths) "
    "count as 'unplanned' in the planned-length rows"
)


def planned_bucket(record: SessionRecord, buckets: Sequence[Bucket]) -> str:
    """The bucket a session counts in: that of its planned length.

    Args:
        record: The session.
        buckets: The suite's length buckets.

    Returns:
        The bucket's name; ``other`` when no bucket holds the planned length;
        ``unplanned`` when the record has no planned length.
    """
    if record.planned_turns is None:
        return UNPLANNED
    return bucket_of(record.planned_turns, buckets) or UNBUCKETED


def realised_bucket(record: SessionRecord, buckets: Sequence[Bucket]) -> str:
    """The bucket of a session's realised length (descriptive only: it depends on the outcome)."""
    return bucket_of(record.n_user_turns, buckets) or UNBUCKETED


def bucket_order(buckets: Sequence[Bucket], used: Iterable[str]) -> list[str]:
    """The suite's bucket names, then ``other`` and ``unplanned`` when some session is in them."""
    seen = set(used)
    return [b.name for b in buckets] + [n for n in (UNBUCKETED, UNPLANNED) if n in seen]


def lengths_section(records: Sequence[SessionRecord]) -> dict[str, Any]:
    """What the length rows mean, how many sessions each planned length holds (errors
    included), and how many sessions had no plan (and why)."""
    unplanned = [r for r in records if r.planned_turns is None]
    planned = sorted(r.planned_turns for r in records if r.planned_turns is not None)
    imported = sum(1 for r in unplanned if r.meta.get("imported"))
    notes = []
    if imported:
        notes.append(IMPORTED_NOTE)
    if len(unplanned) > imported:
        notes.append(UNPLANNED_NOTE)
    return {
        "bucket_by": "planned_turns",
        "planned": PLANNED_NOTE,
        "realised": REALISED_NOTE,
        "sessions_by_planned_turns": {str(t): planned.count(t) for t in sorted(set(planned))},
        "unplanned": len(unplanned),
        "unplanned_imported": imported,
        "notes": notes,
    }


def stop_reason_counts(records: Iterable[SessionRecord]) -> dict[str, int]:
    """How many of ``records`` ended for each reason, in ``StopReason`` order."""
    counts = {reason.value: 0 for reason in StopReason}
    for r in records:
        counts[r.stop_reason.value] += 1
    return {k: v for k, v in counts.items() if v}
