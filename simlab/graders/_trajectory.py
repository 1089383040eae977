"""How the agent's tool calls compare with the goal's expected tools.

Recall is the LCS of the expected and the called tool names over the expected ones.
Precision counts as right the LCS and, for each repeat of the final action the user
asked for by changing their request after it (``simlab.graders._redo``), the calls of
that repeat that redo the expected trajectory: acting again after "make it the 21st"
is not waste, acting twice with nothing new said is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from simlab.core import Check, ToolCall, Transcript
from simlab.graders._redo import RedoWindow, redo_windows
from simlab.graders._shared import new_check, own
from simlab.spec import Goal

TRAJECTORY = "trajectory"


@dataclass(frozen=True, slots=True)
class TrajectoryMetrics:
    """Expected versus actual tool-name sequences.

    Attributes:
        exact: ``expected`` in order and every call right: the sequences are equal,
            but for the repeats the user asked for.
        in_order: ``expected`` is a subsequence of ``actual`` (extra calls allowed).
        any_order: Every expected tool appears in ``actual`` at least as often
            as in ``expected`` (multiset inclusion).
        lcs: Length of the longest common subsequence.
        lcs_precision: ``(lcs + repeats) / len(actual)``; 1.0 when ``actual`` is
            empty (nothing wrong was called).
        lcs_recall: ``lcs / len(expected)``; 1.0 when ``expected`` is empty.
        lcs_f1: Harmonic mean of precision and recall; 0.0 when both are 0.
        repeats: Calls right beyond the LCS because they redo the expected
            trajectory for a repeat of the final action the user asked for.
    """

    exact: bool
    in_order: bool
    any_order: bool
    lcs: int
    lcs_precision: float
    lcs_recall: float
    lcs_f1: float
    repeats: int = 0


def trajectory_metrics(
    expected: Sequence[str], actual: Sequence[str], redos: Sequence[RedoWindow] = ()
) -> TrajectoryMetrics:
    """Compare the expected tool sequence with the one the agent called.

    Each redo window (``redo_windows``: a repeat of the final action the user asked
    for) is matched against ``expected`` on its own and the other calls together; the
    matches beyond the plain LCS are ``repeats``, right calls for precision. Recall
    keeps the plain LCS: a repeat is allowed, never required.

    Empty sequences have defined results:

    * both empty: ``exact``, ``in_order``, ``any_order`` true; precision 1, recall 1.
    * ``expected`` empty, ``actual`` not: ``exact`` false, ``in_order`` and
      ``any_order`` true; precision 0 (every call was unexpected), recall 1.
    * ``actual`` empty, ``expected`` not: every boolean false; precision 1
      (nothing wrong was called), recall 0.

    Args:
        expected: Tool names the goal expects, in order.
        actual: Tool names the agent called, in order.
        redos: Positions ``[start, end)`` in ``actual`` of the asked-for repeats.

    Returns:
        The metrics.
    """
    return _metrics(tuple(expected), tuple(actual), tuple(redos))


def session_trajectory(
    goal: Goal, transcript: Transcript, calls: Sequence[tuple[int, ToolCall]] | None = None
) -> tuple[list[str], TrajectoryMetrics]:
    """A session's called tool names and their metrics against ``goal.expected_tools``,
    its asked-for repeats of the final action counted right: what the ``trajectory``
    check and the record's tool use (hence the reports and ``compare``) all read.

    Args:
        goal: The goal with ``expected_tools`` and ``final_tool``.
        transcript: A finished session.
        calls: ``transcript.tool_calls()``, when the caller has it already.
    """
    calls = transcript.tool_calls() if calls is None else calls
    actual = [call.name for _, call in calls]
    # one final call at most (nearly every session): nothing to redo, no scan of the turns
    redos = redo_windows(goal, transcript, calls) if actual.count(goal.final_tool) > 1 else ()
    return actual, trajectory_metrics(goal.expected_tools, actual, redos)


@lru_cache(maxsize=4096)
def _metrics(
    expected: tuple[str, ...], actual: tuple[str, ...], redos: tuple[RedoWindow, ...]
) -> TrajectoryMetrics:
    """``trajectory_metrics``, cached by value: sessions make the same few sequences of calls,
    and each is graded twice (the check and the record's tool use)."""
    lcs = _lcs_length(expected, actual)
    right = _right_calls(expected, actual, redos) if redos else lcs
    precision = right / len(actual) if actual else 1.0
    recall = lcs / len(expected) if expected else 1.0
    total = precision + recall
    # an LCS as long as `expected` is exactly `expected` being a subsequence
    in_order = lcs == len(expected)
    return TrajectoryMetrics(
        exact=in_order and len(actual) == right,
        in_order=in_order,
        # in order implies present; only count when it is not
        any_order=in_order or not Counter(expected) - Counter(actual),
        lcs=lcs,
        lcs_precision=precision,
        lcs_recall=recall,
        lcs_f1=2 * precision * recall / total if total else 0.0,
        repeats=right - lcs,
    )


def _right_calls(
    expected: tuple[str, ...], actual: tuple[str, ...], redos: tuple[RedoWindow, ...]
) -> int:
    """Each repeat's calls matched against ``expected`` alone, the rest together.

    Never below the plain LCS: a common subsequence of the whole splits into ones of
    the parts.
    """
    inside = {i for start, end in redos for i in range(start, end)}
    rest = [name for i, name in enumerate(actual) if i not in inside]
    right = _lcs_length(expected, rest)
    for start, end in redos:
        right += _lcs_length(expected, actual[start:end])
    return right


def trajectory_check(goal: Goal, transcript: Transcript) -> Check:
    """The ``trajectory`` check: every tool call in the transcript versus ``goal.expected_tools``.

    ``passed`` is the metric named by ``goal.trajectory_match``; the detail
    carries all the metrics. Failed calls count: they are calls the agent made;
    a repeat of the final action the user asked for (``session_trajectory``) is right.

    Args:
        goal: The goal with ``expected_tools`` and ``trajectory_match``.
        transcript: A finished session.

    Returns:
        The check, with no ``turn`` (an order mismatch has no single turn).
    """
    actual, metrics = session_trajectory(goal, transcript)
    return own(judge_trajectory(goal, actual, metrics))


def judge_trajectory(
    goal: Goal, actual: Sequence[str], metrics: TrajectoryMetrics, score: float | None = None
) -> Check:
    """``trajectory_check`` from already-computed metrics, with ``score`` when given."""
    passed, detail = _verdict(
        goal.trajectory_match, tuple(goal.expected_tools), tuple(actual), metrics
    )
    return new_check(TRAJECTORY, passed, detail, None, score)


@lru_cache(maxsize=4096)
def _verdict(
    mode: str, expected: tuple[str, ...], actual: tuple[str, ...], metrics: TrajectoryMetrics
) -> tuple[bool, str]:
    """The check's verdict and detail, cached by value: sessions make the same few sequences
    of calls (as ``_metrics``), and the detail's formatting costs more than its lookup."""
    if mode == "exact":
        passed = metrics.exact
    elif mode == "in_order":
        passed = metrics.in_order
    else:
        passed = metrics.any_order
    detail = (
        f"{mode} {'met' if passed else 'not met'}: expected [{', '.join(expected)}],"
        f" called [{', '.join(actual)}]; LCS {metrics.lcs}, precision"
        f" {metrics.lcs_precision:.2f}, recall {metrics.lcs_recall:.2f}, F1 {metrics.lcs_f1:.2f}"
    )
    if metrics.repeats:
        detail += (
            f"; {metrics.repeats} call(s) redoing the final action after the user changed"
            " their request count as right"
        )
    return passed, detail


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    # one rolling row: O(len(a) * len(b)) time, O(len(b)) memory
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        left = 0
        for j, y in enumerate(b):
            if x == y:
                left = prev[j] + 1
            elif prev[j + 1] > left:
                left = prev[j + 1]
            cur[j + 1] = left
        prev = cur
    return prev[-1]
