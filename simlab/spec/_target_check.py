"""A suite's Python target, found without running it.

``target: my_agent:reply`` is imported only when a run starts; a misspelled module
or function then stops the run with no file or line. ``simlab validate`` looks for
the module where a run looks (the suite's folder, the current folder, then
``sys.path``) and reads its source for the name, without executing a line of it:
importing a team's agent may connect to their services.

A name the source may bind in ways a reading cannot follow (``from x import *``, a
module ``__getattr__``, a compiled module) is given the benefit of the doubt: the
run's import says the last word.
"""

from __future__ import annotations

import ast
import difflib
import sys
from importlib.machinery import PathFinder
from pathlib import Path

from simlab.spec._loader import Problem


def callable_target_problems(
    suite_file: Path, ref: str, line: int | None, field: str = "target"
) -> list[Problem]:
    """What keeps ``ref`` (``module:attr``) from loading for the suite at ``suite_file``.

    Args:
        suite_file: The suite's file (problems are said at it).
        ref: The target, ``package.module:name`` (``name`` may be dotted).
        line: The line of the suite's ``target`` field.
        field: The field's name as the problem says it.
    """
    module, _, attr = ref.partition(":")
    search = [suite_file.parent.resolve(), Path.cwd().resolve()]
    found = _source_of(module, search)
    shown = str(suite_file)
    if found is None:
        where = ", ".join(dict.fromkeys(str(d) for d in search))
        first = module.split(".")[0]
        return [
            Problem(
                shown,
                line,
                field,
                f"no module {module!r} in {where} or among the installed packages: put "
                f"{first}.py beside the suite, or install the package that holds it",
            )
        ]
    names = _bound_names(found)
    name = attr.split(".")[0]
    if names is None or name in names:
        return []
    close = difflib.get_close_matches(name, list(names), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    listed = ", ".join(n for n, kind in names.items() if kind == "def" and not n.startswith("_"))
    return [
        Problem(
            shown,
            line,
            field,
            f"{found} defines no {name!r}; {hint}its functions and classes: {listed or 'none'}",
        )
    ]


def _source_of(module: str, search: list[Path]) -> Path | None:
    """The file ``module`` would be imported from (a package's ``__init__.py``), found
    where ``simlab run`` looks, without importing it or its parents; None: not found."""
    locations: list[str] = [*(str(d) for d in search), *sys.path]
    spec = None
    for part in module.split("."):
        spec = PathFinder.find_spec(part, locations)
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations or [])
    if spec is None or spec.origin is None:  # a namespace package: nothing to read
        return Path(module)
    return Path(spec.origin)


def _bound_names(source: Path) -> dict[str, str] | None:
    """The names a module's top level binds (``def`` for functions and classes,
    ``name`` for the rest); None when they cannot all be read (a star import, a
    module ``__getattr__``, names made at run time, a compiled module)."""
    if source.suffix != ".py" or not source.is_file():
        return None
    try:
        text = source.read_text(encoding="utf-8")
        tree = ast.parse(text, str(source))
    except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
        return None  # the import will say what is wrong with it, where
    if "globals()" in text or "sys.modules[__name__]" in text:
        return None  # names made at run time
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):  # a function that binds a module name
            names.update(dict.fromkeys(node.names, "name"))
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = "def"  # its body is its own scope
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.setdefault(alias.asname or alias.name.split(".")[0], "name")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.setdefault(node.id, "name")
        elif isinstance(node, ast.MatchAs | ast.MatchStar | ast.MatchMapping):
            bound = node.rest if isinstance(node, ast.MatchMapping) else node.name
            if bound:
                names.setdefault(bound, "name")
            pending.extend(ast.iter_child_nodes(node))
        elif not isinstance(node, _OWN_SCOPES):
            # assignments, and names bound in any branch (which runs is the import's to say)
            pending.extend(ast.iter_child_nodes(node))
    if "__getattr__" in names:
        return None
    return names


_OWN_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
"""Expressions whose names are their own (a comprehension's variables do not leak)."""
