"""How an import reads its records: the format, field names and outcome threshold."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ImportFormat = Literal["openai", "anthropic", "otel"]
"""The log formats simlab imports."""

FORMATS: tuple[ImportFormat, ...] = ("openai", "anthropic", "otel")

_MISSING = object()

# Where each field is looked for when the user names none, first match wins.
# The OpenAI defaults cover tau-bench's result files (``traj``, ``task_id``, ``trial``, ``reward``).
DEFAULT_FIELDS: dict[str, tuple[str, ...]] = {
    "messages": ("messages", "traj", "conversation", "request.messages"),
    "task_id": ("task_id", "metadata.task_id", "task.id", "gen_ai.task.id", "eval.task_id"),
    "trial": ("trial", "metadata.trial", "trial_index", "eval.trial"),
    "reward": ("reward", "metadata.reward", "eval.reward"),
    "label": ("passed", "label", "outcome", "metadata.label", "metadata.outcome", "eval.label"),
    "failing_turn": ("failing_turn", "metadata.failing_turn", "eval.failing_turn"),
}


class ImportOptions(BaseModel):
    """Where an import finds each field of a record.

    Field names are dotted paths into a record (``metadata.task_id``,
    ``info.reward``, ``0`` indexes a list); for OpenTelemetry they name span or
    resource attributes, whose keys contain dots themselves and are matched
    whole first. ``None`` looks in the ``DEFAULT_FIELDS`` for that field.

    Attributes:
        messages_field: The record's list of messages.
        task_id_field: The task id; trials of one task share it.
        trial_field: The trial index; missing, trials are numbered in file order per task.
        reward_field: A numeric reward; passed when ``reward >= threshold``.
        label_field: A pass/fail label (bool, or pass/fail/success/... strings), used
            when there is no reward.
        failing_turn_field: The 1-based user turn whose agent reply failed.
        threshold: The reward at or above which a trial passes.
        group_by: OpenTelemetry only: spans form a conversation by
            ``gen_ai.conversation.id`` (trace id when absent), or by trace id alone.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages_field: str | None = None
    task_id_field: str | None = None
    trial_field: str | None = None
    reward_field: str | None = None
    label_field: str | None = None
    failing_turn_field: str | None = None
    threshold: float = 1.0
    group_by: Literal["conversation", "trace"] = "conversation"
    max_reward: Annotated[float, Field(gt=0)] = 1.0
    """The reward that scores 100 (score = 100 * reward / max_reward, clipped to 0-100)."""

    def paths(self, name: str) -> tuple[str, ...]:
        """The paths to try for field ``name`` (a key of ``DEFAULT_FIELDS``)."""
        given: str | None = getattr(self, f"{name}_field")
        return (given,) if given is not None else DEFAULT_FIELDS[name]

    def explicit(self, name: str) -> bool:
        """Whether the user named field ``name`` (a miss is then a problem)."""
        return getattr(self, f"{name}_field") is not None


def lookup(data: Any, path: str) -> Any:
    """The value at dotted ``path`` in ``data``, or ``MISSING``.

    A mapping key equal to the whole remaining path wins over splitting it, so
    attribute names with dots (``gen_ai.conversation.id``) resolve as keys.
    """
    if isinstance(data, dict):
        if path in data:
            return data[path]
        parts = path.split(".")
        for i in range(1, len(parts)):
            head = ".".join(parts[:i])
            if head in data:
                found = lookup(data[head], ".".join(parts[i:]))
                if found is not MISSING:
                    return found
        return MISSING
    if isinstance(data, list):
        head, _, rest = path.partition(".")
        if head.isdigit() and int(head) < len(data):
            return data[int(head)] if not rest else lookup(data[int(head)], rest)
    return MISSING


def first_of(data: Any, paths: tuple[str, ...]) -> tuple[str, Any]:
    """The first of ``paths`` present in ``data``: ``(path, value)``, or ``("", MISSING)``."""
    for path in paths:
        value = lookup(data, path)
        if value is not MISSING:
            return path, value
    return "", MISSING


MISSING: Any = _MISSING
"""What ``lookup`` returns for a path that is not there."""
