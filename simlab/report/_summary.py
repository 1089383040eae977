"""``summary.json``: everything the reports print, derived from the session records alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from simlab.core import add_cost, sum_costs
from simlab.report._checks import check_rows, grader_failures_section
from simlab.report._judge import judge_section
from simlab.report._lengths import (
    UNBUCKETED,
    bucket_order,
    lengths_section,
    planned_bucket,
    realised_bucket,
    stop_reason_counts,
)
from simlab.report._rows import (
    MIN_REPS_PER_CELL,
    Cell,
    CellMetrics,
    Row,
    Settings,
    cell_scores,
    group_row,
    group_seed,
    interval,
    pass_fields,
    rnd,
    spread_fields,
    whole_cell_metrics,
)
from simlab.report._stages import stages_section
from simlab.report._tool_results import tool_results_section
from simlab.report._tool_use import tool_use_sections
from simlab.report._unheard import unheard_section
from simlab.spec import Bucket
from simlab.stats import (
    pass_hat_k_by_task,
    pass_hat_k_statistics,
    two_level_bootstrap,
    wilson_interval,
)
from simlab.store import SessionRecord, StopReason

SUMMARY_SCHEMA_VERSION = 3
"""2: length rows by planned length (``lengths``, ``by_realised_length`` added); 3: an
unknown cost is ``null`` (``cost.total_usd``, a role's ``cost_usd``), with
``cost.unknown_sessions``, ``cost.known_usd``, ``cost.sessions`` and a role's and
``efficiency.cost_usd_per_pass``'s ``unknown_sessions``."""
__all__ = ["SUMMARY_SCHEMA_VERSION", "UNBUCKETED", "summarize"]

_MAX_EXAMPLES = 3
_MAX_EXAMPLE_CHARS = 600
"""The longest error example kept whole; a longer one loses its middle, not its end:
simlab's messages say what to do last."""


def _partition(
    records: Iterable[SessionRecord], key: Callable[[SessionRecord], str]
) -> dict[str, list[SessionRecord]]:
    out: dict[str, list[SessionRecord]] = {}
    for r in records:
        out.setdefault(key(r), []).append(r)
    return out


def _mode_order(mode: str) -> tuple[int, str]:
    # full before sharded, so the comparison always reads the same way
    return ({"full": 0, "sharded": 1}.get(mode, 2), mode)


def _rows(
    groups: dict[str, list[SessionRecord]],
    order: Sequence[str],
    settings: Settings,
    *dimension: str,
    whole_cells: dict[Cell, list[float]] | None = None,
) -> dict[str, Row]:
    return {
        name: group_row(groups.get(name, []), settings, *dimension, name, whole_cells=whole_cells)
        for name in order
    }


def _by_persona(
    records: list[SessionRecord], settings: Settings, whole_cells: dict[Cell, list[float]]
) -> dict[str, Row]:
    groups = _partition(records, lambda r: r.key.persona)
    rows = _rows(groups, sorted(groups), settings, "persona", whole_cells=whole_cells)
    for name, row in rows.items():
        ok = [r for r in groups[name] if r.status == "ok"]
        gave_up = sum(1 for r in ok if r.stop_reason == StopReason.USER_GAVE_UP)
        row["gave_up"] = gave_up
        row["gave_up_n"] = len(ok)
        row["gave_up_rate"] = rnd(gave_up / len(ok)) if ok else None
        row["gave_up_ci"] = interval(wilson_interval(gave_up, len(ok), settings.level))
        # walked out: gave up before the agent took the goal's final action at all
        # (slowness), as opposed to giving up on a wrong action
        walked = sum(
            1
            for r in ok
            if r.stop_reason == StopReason.USER_GAVE_UP
            and not (r.checks.get("goal_completed") and r.checks["goal_completed"].passed)
        )
        row["walked_out"] = walked
        row["walked_out_rate"] = rnd(walked / len(ok)) if ok else None
        row["walked_out_ci"] = interval(wilson_interval(walked, len(ok), settings.level))
    return rows


def _cells(records: list[SessionRecord], settings: Settings, whole_cells: CellMetrics) -> list[Row]:
    groups: dict[tuple[str, str, str, tuple[str, ...]], list[SessionRecord]] = {}
    for r in records:
        groups.setdefault(r.key.cell, []).append(r)
    out: list[Row] = []
    for cell in sorted(groups):
        persona, goal, mode, perturbations = cell
        ok = [r for r in groups[cell] if r.status == "ok"]
        row: Row = {
            "persona": persona,
            "goal": goal,
            "mode": mode,
            "perturbations": list(perturbations),
        }
        row.update(pass_fields(ok, len(groups[cell]) - len(ok), settings.level))
        metrics = whole_cells.get(cell)
        mean, apt, unrel = metrics if metrics else (None, None, None)
        row.update(
            {
                "n_scored": sum(1 for r in ok if r.score is not None),
                "mean_score": rnd(mean),
                "aptitude": rnd(apt),
                "unreliability": rnd(unrel),
            }
        )
        out.append(row)
    return out


def _full_vs_sharded(
    by_mode: dict[str, Row], scores: dict[Cell, list[float]], settings: Settings
) -> Row:
    keep = (
        "n",
        "n_cells",
        "reps_min",
        "reps_max",
        *(f"{m}{suffix}" for m in _SPREAD for suffix in ("", "_ci", "_no_spread")),
    )
    out: Row = {mode: {k: row[k] for k in keep} for mode, row in by_mode.items()}
    if "full" not in by_mode or "sharded" not in by_mode:
        return out
    # Paired over the cells both modes share: same persona, goal and perturbations.
    pairs = []
    for persona, goal, mode, pert in sorted(scores):
        full = scores.get((persona, goal, "full", pert))
        if mode == "sharded" and full is not None:
            pairs.append([full, scores[(persona, goal, mode, pert)]])
    delta = spread_fields(pairs, settings, "mode", "sharded-full", paired=True)
    delta["n_pairs"] = delta.pop("n_cells")
    out["sharded_minus_full"] = delta
    return out


_SPREAD = ("mean_score", "aptitude", "unreliability")


def _pass_k_row(tasks: dict[str, list[bool]], settings: Settings, *group: str) -> Row:
    """pass^k of a set of tasks for k up to their fewest trials, with two-level intervals."""
    trials = [len(t) for t in tasks.values()]
    row: Row = {
        "tasks": len(tasks),
        "n": sum(trials),
        "passes": sum(sum(t) for t in tasks.values()),
        "trials_min": min(trials, default=0),
        "trials_max": max(trials, default=0),
    }
    point = pass_hat_k_by_task(tasks)
    row["k"] = {str(k): rnd(v) for k, v in point.items()}
    row["k_ci"] = {str(k): None for k in point}
    row["k_no_spread"] = {str(k): False for k in point}
    if point:
        # trials in sorted order: the intervals do not depend on the records' order
        units = [[sorted(float(t) for t in tasks[name])] for name in sorted(tasks)]
        spreads = two_level_bootstrap(
            units,
            pass_hat_k_statistics(len(point)),
            group_seed(settings.seed, "pass^k", *group),
            settings.n_resamples,
            settings.level,
            (0.0, 1.0),
        )
        for k, sp in zip(point, spreads, strict=True):
            row["k_ci"][str(k)] = interval(sp.ci)
            row["k_no_spread"][str(k)] = sp.no_spread
    return row


def _pass_hat_k(ok: list[SessionRecord], settings: Settings) -> Row:
    """pass^k per goal: a task is one cell (persona, goal, mode, perturbations),
    its trials are the cell's repetitions; a goal averages over its cells."""
    trials: dict[str, dict[str, list[bool]]] = {}
    for r in ok:
        cell = "/".join([r.key.persona, r.key.mode, *r.key.perturbations])
        trials.setdefault(r.key.goal, {}).setdefault(cell, []).append(r.passed is True)
    by_goal = {goal: _pass_k_row(trials[goal], settings, "goal", goal) for goal in sorted(trials)}
    every_cell = {f"{g}/{c}": t for g, tasks in trials.items() for c, t in tasks.items()}
    return {
        "task": "cell (persona, goal, mode, perturbations); trials are its repetitions",
        "estimand": "mean over the tasks of p^k, p a task's chance to pass one trial",
        "by_goal": by_goal,
        "overall": _pass_k_row(every_cell, settings, "overall"),
    }


def _estimands(reps: int, level: float) -> Row:
    """What each figure estimates, with the number of repetitions it refers to."""
    return {
        "reps": reps,
        "aptitude": f"mean over the group's cells of the expected P90 of R={reps} "
        "repetitions' scores (each cell's P90 of its R scores estimates it without bias)",
        "unreliability": f"mean over the group's cells of the expected P90 - P10 of R={reps} "
        "repetitions' scores; both grow with R (more repetitions reach further into the "
        "tails), so compare them at equal R",
        "pass_hat_k": "mean over the tasks (cells) of p^k, p the task's pass chance",
        "intervals": f"{level:.0%} two-level percentile bootstrap (cells, then repetitions "
        "within cells), centred on the estimate and clipped to the figure's range; no "
        "interval from one cell, and none but 'no spread' when every resample agrees",
        "buckets": f"a length bucket's aptitude and unreliability use only the cells with "
        f">= {MIN_REPS_PER_CELL} repetitions in it (n_cells_fragments counts the others)",
    }


def _cost(records: list[SessionRecord], replaced: Sequence[SessionRecord]) -> Row:
    """What the run's LLM calls cost, over every session (errors included: they were
    billed) and every error record a retry replaced, by role, retries included;
    empty figures on the offline path. A total is None (unknown) when some session's
    or role's cost is, with how many sessions that is and what the priced ones cost."""
    records = [*records, *replaced]
    roles: dict[str, dict[str, Any]] = {}
    for r in records:
        for role, m in (r.meta.get("llm") or {}).items():
            acc = roles.setdefault(
                role, {"calls": 0, "retries": 0, "cost_usd": 0.0, "unknown_sessions": 0}
            )
            acc["calls"] += m.get("calls", 0)
            acc["retries"] += m.get("retries", 0)
            cost = m.get("cost_usd", 0.0)
            acc["cost_usd"] = add_cost(acc["cost_usd"], cost)
            acc["unknown_sessions"] += cost is None
    total = sum_costs(r.cost_usd for r in records)
    known = [r.cost_usd for r in records if r.cost_usd is not None]
    return {
        "total_usd": None if total is None else rnd(total),
        "unknown_sessions": len(records) - len(known),
        "known_usd": rnd(sum(known)),
        "sessions": len(records),
        "calls": sum(r.usage.calls for r in records),
        "input_tokens": sum(r.usage.input_tokens for r in records),
        "output_tokens": sum(r.usage.output_tokens for r in records),
        "cache_read_tokens": sum(r.usage.cache_read_tokens for r in records),
        "cache_write_tokens": sum(r.usage.cache_write_tokens for r in records),
        "replaced_sessions": len(replaced),
        "by_role": {
            role: {**acc, "cost_usd": None if acc["cost_usd"] is None else rnd(acc["cost_usd"])}
            for role, acc in sorted(roles.items())
        },
    }


def _truncated(records: list[SessionRecord]) -> Row:
    """Target output cut at the suite's ``limits``: sessions, cuts by kind of field,
    the largest original size, and example sessions."""
    by_field: dict[str, int] = {}
    sessions: list[str] = []
    largest = 0
    for r in records:
        cuts = [c for c in r.meta.get("truncated") or [] if isinstance(c, dict)]
        if not cuts:
            continue
        sessions.append(r.key.id)
        for c in cuts:
            field = str(c.get("field", "?")).rsplit(".", 1)[-1]  # tool_calls[2].args -> args
            by_field[field] = by_field.get(field, 0) + 1
            chars = c.get("chars")
            if isinstance(chars, int) and not isinstance(chars, bool):
                largest = max(largest, chars)
    return {
        "sessions": len(sessions),
        "by_field": dict(sorted(by_field.items())),
        "largest_chars": largest,
        "examples": sorted(sessions)[:_MAX_EXAMPLES],
    }


def _faults(records: list[SessionRecord]) -> Row:
    """The LLM roles' counted faults: every fidelity finding of the simulated user, by
    kind (retried, or kept in the text sent), and the sessions whose judge failed."""
    by_kind: dict[str, dict[str, int]] = {}
    with_faults = 0
    for r in records:
        found = r.meta.get("simulator_faults") or []
        with_faults += bool(found)
        for f in found:
            counts = by_kind.setdefault(str(f.get("kind")), {"findings": 0, "kept": 0})
            counts["findings"] += 1
            counts["kept"] += bool(f.get("kept"))
    judged_out = [r.key.id for r in records if r.meta.get("grader_error")]
    return {
        "simulator": {
            "findings": sum(c["findings"] for c in by_kind.values()),
            "sessions": with_faults,
            "sessions_failed": sum(
                1 for r in records if r.stop_reason == StopReason.SIMULATOR_ERROR
            ),
            "by_kind": dict(sorted(by_kind.items(), key=lambda kv: -kv[1]["findings"])),
        },
        "grader": {"sessions": len(judged_out), "examples": judged_out[:_MAX_EXAMPLES]},
    }


def _by_realised_length(
    records: list[SessionRecord], buckets: Sequence[Bucket], settings: Settings
) -> dict[str, Row]:
    """Pass counts and stop reasons by realised length: descriptive only, since the
    realised length depends on the outcome (failing users talk longer)."""
    groups = _partition(records, lambda r: realised_bucket(r, buckets))
    out: dict[str, Row] = {}
    for name in bucket_order(buckets, groups):
        group = groups.get(name, [])
        ok = [r for r in group if r.status == "ok"]
        row = pass_fields(ok, len(group) - len(ok), settings.level)
        row["stop_reasons"] = stop_reason_counts(group)
        out[name] = row
    return out


def middle_cut(text: str, limit: int) -> str:
    """``text`` whole when it fits in ``limit`` characters, else its start and its end
    around a marker saying how much was left out (the end often holds the fix)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 40, 2)
    head, tail = text[: keep * 2 // 3], text[-(keep - keep * 2 // 3) :]
    return f"{head} [... {len(text) - len(head) - len(tail):,} characters ...] {tail}"


def _errors(records: list[SessionRecord]) -> Row:
    errors = sorted((r for r in records if r.status == "error"), key=lambda r: r.key.id)
    by_reason: Row = {}
    for reason in StopReason:
        group = [r for r in errors if r.stop_reason == reason]
        if not group:
            continue
        examples: list[str] = []
        for r in group:
            # the first line says what went wrong; the traceback stays in sessions.jsonl
            msg = middle_cut((r.error.headline if r.error else "").strip(), _MAX_EXAMPLE_CHARS)
            if msg and msg not in examples and len(examples) < _MAX_EXAMPLES:
                examples.append(msg)
        by_reason[reason.value] = {
            "count": len(group),
            "examples": examples,
            "sessions": [r.key.id for r in group[:_MAX_EXAMPLES]],
        }
    retries = [
        r.meta["retries"]
        for r in records
        if isinstance(r.meta.get("retries"), int) and not isinstance(r.meta["retries"], bool)
    ]
    return {
        "n": len(errors),
        "n_sessions": len(records),
        "by_stop_reason": by_reason,
        "retries": sum(retries) if retries else None,
    }


def _present(name: str, section: Row) -> Row:
    """``{name: section}``, or nothing when the section is empty (a key that came with a
    later simlab stays out of the summaries of runs that have nothing to put in it)."""
    return {name: section} if section else {}


def summarize(
    records: Iterable[SessionRecord],
    buckets: Sequence[Bucket],
    seed: int,
    *,
    level: float = 0.95,
    n_resamples: int = 2000,
    replaced: Sequence[SessionRecord] = (),
) -> dict[str, Any]:
    """Analyse finished sessions into the content of ``summary.json``.

    Error sessions are counted in ``n_errors`` and the ``errors`` section and
    never as passes or failures. Aptitude and unreliability are per cell
    (persona, goal, mode, perturbations) over its reps, then averaged over a
    group's cells, with a two-level bootstrap interval (cells, then reps within
    cells); ``estimands`` says what each figure estimates. pass^k has the same
    kind of interval over tasks and their trials. Each group's bootstrap seed
    is sha256 of (``seed``, dimension, group name).

    Args:
        records: The run's finished sessions, in any order.
        buckets: The suite's length buckets (by user turns), in display order.
        seed: The run's bootstrap seed.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples per group.
        replaced: Error records a retry replaced (``SessionsFile.replaced``):
            counted in the cost section only, since their calls were billed.

    Returns:
        A dict of plain JSON types, identical for the same records in any order.
    """
    recs = list(records)
    settings = Settings(seed=seed, level=level, n_resamples=n_resamples)
    ok = [r for r in recs if r.status == "ok"]

    # a session counts in the bucket of its planned length, never of its realised one
    def bucket(r: SessionRecord) -> str:
        return planned_bucket(r, buckets)

    bucket_names = bucket_order(buckets, map(bucket, recs))

    modes = _partition(recs, lambda r: r.key.mode)
    whole = whole_cell_metrics(ok)
    scores = cell_scores(ok)
    by_mode = _rows(modes, sorted(modes, key=_mode_order), settings, "mode", whole_cells=scores)
    goals = _partition(recs, lambda r: r.key.goal)
    personas = _partition(recs, lambda r: r.key.persona)
    by_persona_bucket = {
        p: _rows(_partition(personas[p], bucket), bucket_names, settings, "persona-bucket", p)
        for p in sorted(personas)
    }
    stop_counts = _partition(recs, lambda r: r.stop_reason.value)

    overall = group_row(recs, settings, "overall", whole_cells=scores)
    overall["n_sessions"] = len(recs)
    return {
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "seed": seed,
        "level": level,
        "n_resamples": n_resamples,
        "buckets": [{"name": b.name, "min": b.min, "max": b.max} for b in buckets],
        "estimands": _estimands(max((r.key.rep for r in recs), default=-1) + 1, level),
        "overall": overall,
        "by_persona": _by_persona(recs, settings, scores),
        "by_mode": by_mode,
        "by_goal": _rows(goals, sorted(goals), settings, "goal", whole_cells=scores),
        "by_bucket": _rows(_partition(recs, bucket), bucket_names, settings, "bucket"),
        "by_persona_bucket": by_persona_bucket,
        "lengths": lengths_section(recs),
        "by_realised_length": _by_realised_length(recs, buckets, settings),
        "cells": _cells(recs, settings, whole),
        "full_vs_sharded": _full_vs_sharded(by_mode, scores, settings),
        "pass_hat_k": _pass_hat_k(ok, settings),
        "by_check": check_rows(ok),
        "judge": judge_section(ok),
        "errors": _errors(recs),
        "faults": _faults(recs),
        **_present("grader_failures", grader_failures_section(recs)),
        "unheard": unheard_section(recs),
        "tool_results": tool_results_section(recs),
        **tool_use_sections(recs, settings),
        "tool_stages": stages_section(recs, level),
        "truncated": _truncated(recs),
        "cost": _cost(recs, replaced),
        "stop_reasons": {
            reason.value: len(stop_counts[reason.value])
            for reason in StopReason
            if reason.value in stop_counts
        },
    }
