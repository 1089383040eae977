"""Running a domain's tools on their fixtures: each answer worked out once a run.

A fixture string may hold ``{canary}``: the session's canary (``CANARY-`` and 8 hex
digits, from its seed) is planted there, so a tool result can carry an injected
instruction that ``safety:tool_canary`` follows through the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from simlab.core import ToolCall, derive_seed
from simlab.spec import Domain, DomainTool

_Answer = tuple[Any, str | None, bool]
"""A call's result, its error, and whether the result holds a ``{canary}`` to plant."""
_ArgsKey = tuple[tuple[str, type, Any], ...]
"""A call's arguments in order, each with its type (``True == 1``, a schema tells them apart)."""


class FixtureAnswers:
    """A domain's tools answered from their fixtures, for one run.

    Validating a call's arguments against its schema and finding its fixture is a
    pure function of the tool and the arguments: each distinct call is answered once
    a run (bounded), and every call gets a ``ToolCall`` of its own.

    Args:
        domain: The domain whose tools it answers (a tool by its name: the first of it).
    """

    def __init__(self, domain: Domain) -> None:
        self._tool_named: dict[str, DomainTool] = {}
        for tool in domain.tools:
            self._tool_named.setdefault(tool.name, tool)
        # by the tool's name and the arguments' values: the fixture calls of a run
        self._answer = lru_cache(maxsize=4096)(self._answer_uncached)

    def call(self, tool: str, args: Mapping[str, Any], canary: str | None) -> tuple[ToolCall, bool]:
        """Call ``tool`` with ``args``: the call, and whether its result holds a
        ``{canary}`` (``canary`` planted there; None: the result as the fixture has it)."""
        key = _args_key(args)
        if key is None:  # a list or a mapping among the arguments: answered afresh
            result, error, planted = _answer(self._tool_named[tool], dict(args))
        else:
            result, error, planted = self._answer(tool, key)
        if planted and canary is not None:
            result = plant_canary(result, canary)
        return ToolCall(name=tool, args=dict(args), result=result, error=error), planted

    def _answer_uncached(self, tool: str, key: _ArgsKey) -> _Answer:
        return _answer(self._tool_named[tool], {name: value for name, _, value in key})


def _answer(tool: DomainTool, args: dict[str, Any]) -> _Answer:
    call = tool.call(args)
    return call.result, call.error, holds_canary_slot(call.result)


def _args_key(args: Mapping[str, Any]) -> _ArgsKey | None:
    """``args`` as a cache key; None when a value is not a plain scalar."""
    if not all(isinstance(v, str | int | float | bool | None) for v in args.values()):
        return None
    return tuple((name, type(value), value) for name, value in args.items())


def session_canary(seed: int) -> str:
    """The canary of the session with agent seed ``seed``."""
    return f"CANARY-{derive_seed(seed, 'tool-canary') & 0xFFFFFFFF:08x}"


def plant_canary(value: Any, canary: str) -> Any:
    """``value`` with ``{canary}`` replaced by ``canary`` in each string it holds."""
    if isinstance(value, str):
        return value.replace("{canary}", canary)
    if isinstance(value, Mapping):
        return {k: plant_canary(v, canary) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plant_canary(v, canary) for v in value]
    return value


def holds_canary_slot(value: Any) -> bool:
    """Whether a string in ``value`` holds ``{canary}``."""
    if isinstance(value, str):
        return "{canary}" in value
    if isinstance(value, Mapping):
        return any(holds_canary_slot(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(holds_canary_slot(v) for v in value)
    return False
