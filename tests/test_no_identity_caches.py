"""No cache in simlab is keyed by object identity or leans on an interpreter trick.

Data is frozen (docs/architecture.md): a cache is keyed by value, bounded, and owned by
something with a lifetime. This scans every module of the package for the names of the
identity caches and tricks that were removed (read-only marks, per-object registries,
pydantic's validator called directly, the C JSON encoder, ``_random``, the collector's
tuning) and, by its syntax tree, for any ``id(...)`` used as a mapping key.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "simlab"

EXCLUDED: tuple[Path, ...] = ()
"""Folders not scanned (none: every module of simlab)."""

FORBIDDEN = re.compile(
    r"mark_read_only|remembered|PerObject|PerDomain|__pydantic_validator__|c_make_encoder"
    r"|_random\b|gc\.(freeze|set_threshold|disable)"
)


def _modules() -> Iterator[Path]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if not any(path.is_relative_to(root) for root in EXCLUDED):
            yield path


def _is_id_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "id"
        and len(node.args) == 1
    )


def _maps_id(node: ast.AST) -> bool:
    """``map(id, xs)``: the ids of many objects (the makings of a key)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "map"
        and bool(node.args)
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "id"
    )


def _holds_id_call(node: ast.AST) -> bool:
    """``id(x)`` itself, or a tuple with an ``id(...)`` in it (``(id(a), id(b))``,
    ``tuple(map(id, xs))``)."""
    if _is_id_call(node) or _maps_id(node):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return node.func.id == "tuple" and _holds_id_call(node.args[0])
    return isinstance(node, ast.Tuple) and any(_holds_id_call(e) for e in node.elts)


_KEYED_METHODS = frozenset({"get", "pop", "setdefault", "__getitem__", "__contains__"})


def identity_keys(source: str) -> list[int]:
    """The lines where ``id(...)`` is used as a mapping key: ``d[id(x)]``, ``d.get(id(x))``
    (``pop``, ``setdefault`` too), ``id(x) in d``, a ``{id(x): ...}`` literal, and any
    ``map(id, ...)`` (the ids of many objects have no other use than a key)."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Subscript) and _holds_id_call(node.slice)) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _KEYED_METHODS
            and node.args
            and _holds_id_call(node.args[0])
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, ast.In | ast.NotIn) for op in node.ops
        ):
            if _holds_id_call(node.left):
                lines.append(node.lineno)
        elif (
            (
                isinstance(node, ast.Dict)
                and any(k is not None and _holds_id_call(k) for k in node.keys)
            )
            or (isinstance(node, ast.DictComp) and _holds_id_call(node.key))
            or _maps_id(node)
        ):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_scan_sees_the_package() -> None:
    assert len(list(_modules())) > 100


def test_no_module_names_a_removed_identity_cache_or_trick() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{i}: {line.strip()}"
        for path in _modules()
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert not found, "\n".join(found)


def test_no_mapping_is_keyed_by_object_identity() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in _modules()
        for line in identity_keys(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        "memo[id(x)] = 1",
        "memo.get(id(x))",
        "memo.get((id(a), id(b)))",
        "memo.setdefault(id(x), [])",
        "memo.pop(id(x), None)",
        "if id(x) in memo: pass",
        "seen = {id(c): c for c in calls}",
        "seen = {id(c): 1}",
        "key = (tuple(map(id, objects)), values)",
        "memo.pop((tuple(map(id, objects)), values), None)",
    ],
)
def test_the_identity_check_finds_each_way_of_keying_by_id(source: str) -> None:
    assert identity_keys(source) == [1]


def test_the_identity_check_lets_other_uses_of_id_pass() -> None:
    assert identity_keys("key.id\nprint(id(x))\nmemo[key.id] = 1\nname = setup.key.id") == []
