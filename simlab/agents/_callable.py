"""Plug a Python callable or class in as a target agent (``module:attr``).

A *function* ``fn(messages, ctx)`` — sync or async — receives the history as
OpenAI-style dicts (``{"role": ..., "content": ...}``) and returns a string, an
``AgentReply`` or a dict with ``text`` and optional ``tool_calls``. A *class*
is instantiated once per session with no arguments and must implement
``TargetAgent``.

Either declares the counterfactual knobs it honours (``ctx.knobs``, which
``simlab diagnose`` replays with) in a ``capabilities`` attribute holding an
``AgentCapabilities``: a class attribute, or one set on the function
(``reply.capabilities = AgentCapabilities(context_window=True)``). Without
one, a target honours none.

Their code runs beside the engine (``simlab.agents._isolation``), so a target
that blocks, spins or ignores cancellation is recorded at its turn timeout and
never holds up the run or the process.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from simlab.agents._isolation import IsolatedCalls, TargetSlots
from simlab.contracts import TargetAgent
from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext


class TargetLoadError(Exception):
    """A ``module:attr`` target cannot be imported; the message says how to fix it."""


def import_ref(ref: str, search: Sequence[Path] = ()) -> Any:
    """The object named by ``module:attr`` (``attr`` may be dotted).

    Args:
        ref: ``module:attr``.
        search: Folders to look in first, in order (a suite's folder, then the
            current one), so a user's ``my_agent.py`` beside the suite is found
            without ``PYTHONPATH``. A folder the module was found in stays on
            ``sys.path``, as a script's folder does, so the module's own later
            imports of its neighbours work too.
    """
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise TargetLoadError(f"target {ref!r} must look like 'package.module:name'")
    added = [str(d) for d in dict.fromkeys(p.resolve() for p in search)]
    added = [d for d in added if d not in sys.path]
    sys.path[:0] = added
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as e:
        looked = "".join(f"{d}, " for d in added)
        raise TargetLoadError(
            f"cannot import module {module_name!r} for target {ref!r}: {e}; "
            f"looked in {looked}then sys.path: is it installed, or on PYTHONPATH?"
        ) from None
    finally:
        module_file = getattr(sys.modules.get(module_name.partition(".")[0]), "__file__", None)
        for d in added:  # keep only the folder the module came from
            if module_file is None or not Path(module_file).resolve().is_relative_to(d):
                sys.path.remove(d)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n))]
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
            raise TargetLoadError(
                f"module {module_name!r} has no attribute {attr!r}{hint}; "
                f"its callables: {shown or 'none'}"
            ) from None
    return obj


class TargetReplyError(TypeError):
    """What a target callable returned is not a reply; the message says what is wrong
    (each field, what was given) and the shape to return."""


_REPLY_SHAPE = (
    '{"text": str, "tool_calls": [{"name": str, "args": {...}, "result": ..., "error": None}]}'
)


def _reply_problems(e: ValidationError) -> str:
    """Each field of a returned dict that is not a reply's, on one line."""
    said = []
    for err in e.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "the reply"
        got = err.get("input")
        shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
        said.append(f"{where}: {err['msg']} (got {shown})")
    more = f"; and {e.error_count() - 3} more" if e.error_count() > 3 else ""
    return "; ".join(said) + more


def to_reply(value: Any) -> AgentReply:
    """Coerce what a callable returned into an ``AgentReply``.

    Raises:
        TargetReplyError: ``value`` is not a str, an ``AgentReply`` or a dict of one.
    """
    if isinstance(value, AgentReply):
        return value
    if isinstance(value, str):
        return AgentReply(text=value)
    if isinstance(value, dict):
        try:
            return AgentReply.model_validate(value)
        except ValidationError as e:  # one line: the report shows an error's first line
            raise TargetReplyError(
                f"the target returned a dict that is not a reply: {_reply_problems(e)}; "
                f"return {_REPLY_SHAPE}"
            ) from None
    raise TargetReplyError(
        f"a target callable must return str, dict or AgentReply, not {type(value).__name__}"
    )


def declared_capabilities(obj: Any, name: str) -> AgentCapabilities:
    """The knobs a target function or class says it honours: its ``capabilities``.

    Args:
        obj: The function or class.
        name: What to call it in an error (``module:attr``).

    Raises:
        TargetLoadError: ``capabilities`` is set but is not an ``AgentCapabilities``.
    """
    caps = getattr(obj, "capabilities", None)
    if isinstance(caps, AgentCapabilities):
        return caps
    if caps is None or isinstance(caps, property):  # none declared, or each instance's own
        return AgentCapabilities()
    raise TargetLoadError(
        f"{name}.capabilities is a {type(caps).__name__}, not the knobs the target honours: "
        "set it to simlab.AgentCapabilities(context_window=True, instruction_reminder=True) "
        "(the knobs your agent reads from ctx.knobs)"
    )


class CallableTarget:
    """Adapts a plain function to ``TargetAgent``; its ``capabilities`` are the
    function's own (``declared_capabilities``), else none."""

    def __init__(self, fn: Callable[..., Any], calls: IsolatedCalls | None = None) -> None:
        self._fn = fn
        self.capabilities = declared_capabilities(fn, repr(fn))
        self._is_async = inspect.iscoroutinefunction(fn)
        self._calls = calls or IsolatedCalls(TargetSlots(1))

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Call the function with the history as role/content dicts."""
        messages = [{"role": m.role, "content": m.text} for m in history]
        if self._is_async:
            return to_reply(await self._calls.call_async(lambda: self._fn(messages, ctx)))
        return to_reply(await self._calls.call_sync(self._fn, messages, ctx))


class _IsolatedAgent:
    """A ``TargetAgent`` instance whose ``reply`` runs on the target's own loop."""

    def __init__(self, agent: TargetAgent, calls: IsolatedCalls) -> None:
        self._agent = agent
        self._calls = calls
        self.capabilities = getattr(agent, "capabilities", AgentCapabilities())

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """The wrapped agent's reply: an ``AgentReply``, or a str or dict as a function's."""
        reply: object = await self._calls.call_async(lambda: self._agent.reply(history, ctx))
        return to_reply(reply)


def callable_target_factory(
    ref: str, concurrency: int, search: Sequence[Path] = ()
) -> Callable[[int], TargetAgent]:
    """A per-session target factory for ``module:attr`` (``search``: see ``import_ref``)."""
    return object_target_factory(import_ref(ref, search), concurrency, ref)


def object_target_factory(
    obj: Any, concurrency: int, name: str | None = None
) -> Callable[[int], TargetAgent]:
    """A per-session target factory for a function (sync or async) or a class.

    A class is instantiated once per session with no arguments and must define
    ``async def reply(history, ctx)``; a function is adapted (``CallableTarget``).
    At most ``concurrency`` of its calls run at once (one that never returns keeps
    its slot).

    Raises:
        TargetLoadError: ``obj`` is neither, or its ``capabilities`` is not an
            ``AgentCapabilities``.
    """
    name = name or repr(obj)
    declared_capabilities(obj, name)  # a wrong one is said now, not mid-diagnosis
    calls = IsolatedCalls(TargetSlots(concurrency))
    if inspect.isclass(obj):
        if not callable(getattr(obj, "reply", None)):
            raise TargetLoadError(f"class {name!r} must define `async def reply(history, ctx)`")
        needed = _required_init_args(obj)
        if needed:
            raise TargetLoadError(
                f"class {name!r} is made with no arguments, one instance per session, but "
                f"its __init__ requires {', '.join(needed)}; give them defaults (or a "
                "function target that builds the instance)"
            )
        cls = cast("type[TargetAgent]", obj)
        return lambda seed: _IsolatedAgent(cls(), calls)
    if not callable(obj):
        raise TargetLoadError(f"target {name!r} is a {type(obj).__name__}, not a callable")
    return lambda seed: CallableTarget(obj, calls)


def _required_init_args(cls: type) -> list[str]:
    """The parameters a class's constructor cannot be called without (none readable: [])."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # a builtin or C type: nothing to read
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)  # fmt: skip
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind in kinds and p.default is inspect.Parameter.empty
    ]
