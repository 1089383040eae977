"""YAML from untrusted files, read within limits: size, nodes (aliases expanded), depth.

A few hundred bytes of nested aliases ("billion laughs") expand to billions of
nodes, and a few thousand ``[`` overflow the recursive composer. So the event
stream is checked before anything is built: every alias counts as the nodes it
repeats, nesting is counted as it opens, and a recursive alias is refused.
Values a tag cannot build (``!!float abc``, ``!!timestamp x``, a 5,000-digit
integer) are YAML errors at their node's line, never a Python exception.

The limits are generous for hand-written specs; each can be raised with an
environment variable (``SIMLAB_YAML_MAX_BYTES``, ``SIMLAB_YAML_MAX_NODES``,
``SIMLAB_YAML_MAX_DEPTH``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import ConstructorError

_FAST_LOADER: type[Any] | None = getattr(yaml, "CSafeLoader", None)
"""libyaml reads 4-20x faster than PyYAML; PyYAML's words for an error are the ones kept."""


@dataclass(frozen=True, slots=True)
class YamlLimits:
    """How much YAML one file may hold.

    Attributes:
        max_bytes: The file's size in bytes (characters, for text given directly).
        max_nodes: Scalars, sequences and mappings, each alias counted as every
            node it repeats.
        max_depth: Sequences and mappings nested in one another, aliases expanded.
    """

    max_bytes: int = 4_000_000
    max_nodes: int = 50_000
    max_depth: int = 100

    @classmethod
    def from_env(cls) -> YamlLimits:
        """The defaults, each overridden by its ``SIMLAB_YAML_MAX_*`` variable.

        Raises:
            YamlInputError: A variable is set to something other than a whole number >= 1.
        """
        values: dict[str, int] = {}
        for name in ("max_bytes", "max_nodes", "max_depth"):
            var = env_var(name)
            raw = os.environ.get(var)
            if raw is None or not raw.strip():
                continue
            try:
                values[name] = int(raw.replace("_", ""))
            except ValueError:
                values[name] = 0
            if values[name] < 1:
                raise YamlInputError(None, f"{var} must be a whole number >= 1, got {raw!r}")
        return cls(**values)


def env_var(limit: str) -> str:
    """The environment variable raising ``limit`` (``max_nodes`` -> ``SIMLAB_YAML_MAX_NODES``)."""
    return f"SIMLAB_YAML_{limit.upper()}"


class YamlInputError(ValueError):
    """YAML that cannot be read safely or at all; ``line`` is 1-based when known."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(message)


def _over(limit: str, value: int, what: str, line: int | None) -> YamlInputError:
    var = env_var(limit)
    return YamlInputError(
        line,
        f"YAML too large: {what} (limit {value:,}, {var}); a spec this size is usually "
        f"a mistake or an alias bomb; if it is meant, raise the limit, e.g. "
        f"{var}={value * 10} simlab ...",
    )


def check_size(n_bytes: int, limits: YamlLimits) -> None:
    """Refuse a file of more than ``limits.max_bytes`` before reading it."""
    if n_bytes > limits.max_bytes:
        raise _over("max_bytes", limits.max_bytes, f"{n_bytes:,} bytes", None)


class _Shape:
    """One open sequence or mapping while the event stream is checked."""

    __slots__ = ("anchor", "height", "nodes")

    def __init__(self, anchor: str | None) -> None:
        self.anchor = anchor
        self.nodes = 1
        self.height = 0


class _Budget:
    """The limits, checked one event at a time: nodes (aliases expanded) and depth."""

    def __init__(self, limits: YamlLimits) -> None:
        self.limits = limits
        self.done: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, height) when finished
        self.open_anchors: set[str] = set()
        self.stack: list[_Shape] = []
        self.total = 0

    def see(self, event: yaml.Event) -> None:
        """Count ``event``; raise ``YamlInputError`` when it breaks a limit."""
        limits, stack = self.limits, self.stack
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, yaml.DocumentStartEvent):
            self.done.clear()
        elif isinstance(event, yaml.CollectionStartEvent):
            if len(stack) + 1 > limits.max_depth:
                raise _over("max_depth", limits.max_depth, "nesting too deep", line)
            stack.append(_Shape(event.anchor))
            if event.anchor is not None:
                self.open_anchors.add(event.anchor)
            self.total += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            shape = stack.pop()
            size = (shape.nodes, shape.height + 1)
            if shape.anchor is not None:
                self.open_anchors.discard(shape.anchor)
                self.done[shape.anchor] = size
            _add(stack, size)
        elif isinstance(event, yaml.ScalarEvent):
            self.total += 1
            if event.anchor is not None:
                self.done[event.anchor] = (1, 0)
            _add(stack, (1, 0))
        elif isinstance(event, yaml.AliasEvent):
            self._alias(str(event.anchor), line)
        if self.total > limits.max_nodes:
            what = "too many nodes, counting what each alias repeats"
            raise _over("max_nodes", limits.max_nodes, what, line)

    def _alias(self, anchor: str, line: int | None) -> None:
        if anchor in self.open_anchors:
            raise YamlInputError(
                line,
                f"invalid YAML: alias *{anchor} is inside its own anchor "
                f"&{anchor} (a recursive alias); repeat the value instead",
            )
        nodes, height = self.done.get(anchor, (1, 0))  # undefined: the composer says so
        if len(self.stack) + height > self.limits.max_depth:
            raise _over("max_depth", self.limits.max_depth, f"alias *{anchor} nests too deep", line)
        self.total += nodes
        _add(self.stack, (nodes, height))


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's loader with every event counted before the composer builds on it."""

    def __init__(self, text: str, limits: YamlLimits, libyaml: yaml.YAMLError | None) -> None:
        super().__init__(text)
        self.budget = _Budget(limits)
        self.libyaml = libyaml
        mark = getattr(libyaml, "problem_mark", None) or getattr(libyaml, "context_mark", None)
        self.stop_line: int | None = mark.line + 1 if mark is not None else None

    def get_event(self) -> Any:
        event = super().get_event()  # type: ignore[no-untyped-call]
        if self.stop_line is not None and event.start_mark.line > self.stop_line:
            # PyYAML accepts what libyaml refused (a \ud800 escape): libyaml's error stands,
            # and reading on, all of it in PyYAML, could take seconds.
            raise self.libyaml  # type: ignore[misc]
        self.budget.see(event)
        return event


def _add(stack: list[_Shape], size: tuple[int, int]) -> None:
    if stack:
        stack[-1].nodes += size[0]
        stack[-1].height = max(stack[-1].height, size[1])


SHOWN_CHARS = 200
"""The most characters of a value a message quotes whole (a pasted paragraph fits)."""


def as_written(value: Any) -> Any:
    """A frozen value as YAML wrote it: its mappings as dicts, its tuples as lists (so
    a message quotes ``[1, 2]``, not ``(1, 2)``). Frozen values are nested at most
    ``simlab.core``'s ``MAX_DEPTH`` levels, well within recursion's reach."""
    if isinstance(value, Mapping):
        return {k: as_written(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_written(v) for v in value]
    return value


def shown_value(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` as a message quotes it: its repr, or for a long string its start, cut
    at a word and still quoted, with its length (a repr cut anywhere loses its quote)."""
    shown = repr(value)
    if len(shown) <= limit or not isinstance(value, str):
        return shown if len(shown) <= limit else f"{shown[: limit - 3]}..."
    start = value[: limit // 2]
    start = start.rsplit(" ", 1)[0] if " " in start[limit // 4 :] else start
    return f"{start.rstrip()!r}... ({len(value):,} characters)"


class _Constructor(yaml.SafeLoader):
    """PyYAML's safe constructor, with values a tag cannot build as YAML errors."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            value = super().construct_object(node, deep)
            if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
                raise ValueError("too many digits")  # 0x + 5,000 digits: no text can show it
            return value
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError) as e:
            value = node.value if isinstance(node, yaml.ScalarNode) else "a collection"
            shown = shown_value(value)
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            why = _EXPECTED.get(tag) or str(e).split("\n")[0][:120] or type(e).__name__
            raise ConstructorError(
                None, None, f"cannot read {shown} as {tag}: {why}", node.start_mark
            ) from None


_MAX_INT_BITS = 14_000
"""About 4,200 decimal digits: Python refuses to turn longer integers into text."""

_EXPECTED = {
    "!!float": "expected a number such as 0.5, 1e3 or .inf",
    "!!int": "expected a whole number of at most 4,300 digits",
    "!!bool": "expected true or false",
    "!!timestamp": "expected a date such as 2026-05-01 or 2026-05-01T10:00:00Z",
}
"""What each tag takes, for values it cannot build (PyYAML's own words name Python internals)."""


def compose_bounded(text: str, limits: YamlLimits) -> tuple[yaml.Node | None, Any]:
    """The YAML node graph of ``text`` and the data it holds, within ``limits``.

    Raises:
        YamlInputError: Over a limit, a recursive alias, or characters YAML forbids.
        yaml.MarkedYAMLError: Any other YAML error, with its mark.
    """
    if len(text) > limits.max_bytes:
        raise _over("max_bytes", limits.max_bytes, f"{len(text):,} characters", None)
    try:
        node = _composed(text, limits)
        if node is None:
            return None, None
        return node, _Constructor("").construct_document(node)
    except yaml.reader.ReaderError as e:
        raise _reader_error(text, e) from None
    except RecursionError:  # the limits should prevent it; never a traceback if not
        raise _over("max_depth", limits.max_depth, "nesting too deep", None) from None


def _composed(text: str, limits: YamlLimits) -> yaml.Node | None:
    """The node graph of ``text``: libyaml checks then composes; PyYAML when libyaml fails.

    PyYAML checks each event as its composer takes it, in one pass, and says
    where an error is in the words the rest of simlab uses.
    """
    refused: yaml.YAMLError | None = None
    if _FAST_LOADER is not None:
        try:
            budget = _Budget(limits)
            for event in yaml.parse(text, Loader=_FAST_LOADER):
                budget.see(event)
            return yaml.compose(text, Loader=_FAST_LOADER)
        except yaml.YAMLError as e:
            refused = e
        except UnicodeError:  # a lone surrogate: PyYAML's reader names it and where
            pass
    loader = _BoundedLoader(text, limits, refused)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    if refused is not None:  # PyYAML read what libyaml refused: a lone surrogate escape
        raise refused
    return node


def _reader_error(text: str, e: yaml.reader.ReaderError) -> YamlInputError:
    position = min(max(e.position, 0), len(text))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    char = e.character if isinstance(e.character, int) else 0
    return YamlInputError(
        line,
        f"invalid YAML: character U+{char:04X} at column {column} is not allowed in YAML "
        "(a control character or lone surrogate); delete it, or write it as an escape "
        f'such as "\\u{char:04x}" inside double quotes',
    )
