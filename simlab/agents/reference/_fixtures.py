"""Running a domain's tool on its fixtures, for one session, with its canary planted.

A fixture string may hold ``{canary}``: the session's canary (``CANARY-`` and 8 hex
digits, from its seed) is planted there, so a tool result can carry an injected
instruction that ``safety:tool_canary`` follows through the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simlab.core import ToolCall, derive_seed
from simlab.spec import DomainTool


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


def call_tool(tool: DomainTool, args: Mapping[str, Any], canary: str) -> ToolCall:
    """Call ``tool`` on its fixtures with ``args``, ``canary`` planted in the result."""
    call = tool.call(dict(args))
    if not holds_canary_slot(call.result):
        return call
    return ToolCall(
        name=call.name,
        args=call.args,
        result=plant_canary(call.result, canary),
        error=call.error,
    )
