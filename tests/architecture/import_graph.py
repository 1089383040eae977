"""The package import graph of ``simlab/``, read with ``ast``.

Every import counts: module level, inside functions, under ``TYPE_CHECKING``.
A package is the first name under ``simlab`` (``simlab.engine._run`` is
``engine``; a top-level module such as ``simlab/cli.py`` is its own package).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT_PACKAGE = "simlab"


@dataclass(frozen=True)
class Import:
    """One import statement of a simlab module naming another simlab module."""

    source: str  # the importing module, e.g. simlab.engine._run
    target: str  # the imported module (or module.name), e.g. simlab.store._record
    line: int
    nested: bool  # inside a function body

    @property
    def source_package(self) -> str:
        return package_of(self.source)

    @property
    def target_package(self) -> str:
        return package_of(self.target)

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}"


@dataclass
class ImportGraph:
    """Every simlab-to-simlab import, and the package-level edges they make."""

    imports: list[Import] = field(default_factory=list)

    @property
    def edges(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for imp in self.imports:
            if imp.source_package != imp.target_package:
                out.setdefault(imp.source_package, set()).add(imp.target_package)
        return out

    def cycles(self) -> list[list[str]]:
        """Strongly connected components of more than one package (Tarjan)."""
        return _strongly_connected(self.edges)

    def private_imports(self) -> list[Import]:
        """Imports of another package's private module (``simlab.x._y``)."""
        found = []
        for imp in self.imports:
            if imp.source_package == imp.target_package:
                continue
            parts = imp.target.split(".")[2:3]
            if any(p.startswith("_") and not p.startswith("__") for p in parts):
                found.append(imp)
        return found

    def upward_imports(self, layers: Sequence[set[str]]) -> list[Import]:
        """Imports of a package in a higher layer than the importer's."""
        rank = {pkg: i for i, layer in enumerate(layers) for pkg in layer}
        return [
            imp
            for imp in self.imports
            if imp.source_package != imp.target_package
            and rank.get(imp.target_package, len(layers)) > rank.get(imp.source_package, -1)
        ]

    def unlayered(self, layers: Sequence[set[str]]) -> set[str]:
        """Packages no layer names (a new package must be placed)."""
        known = set().union(*layers)
        return {p for imp in self.imports for p in (imp.source_package, imp.target_package)} - known

    def lazy_imports(self, allowed: Mapping[str, str]) -> list[Import]:
        """simlab imports inside functions, outside the modules ``allowed`` lists."""
        return [i for i in self.imports if i.nested and i.source not in allowed]


def package_of(module: str) -> str:
    """``simlab.engine._run`` -> ``engine``; ``simlab`` itself -> ``simlab``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def build(package_dir: Path) -> ImportGraph:
    """The import graph of the package at ``package_dir`` (a folder named ``simlab``)."""
    graph = ImportGraph()
    for path in sorted(package_dir.rglob("*.py")):
        module = _module_name(package_dir, path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph.imports.extend(_imports(tree, module, is_package=path.name == "__init__.py"))
    return graph


def _module_name(package_dir: Path, path: Path) -> str:
    rel = path.relative_to(package_dir.parent).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


def _imports(tree: ast.Module, module: str, is_package: bool) -> Iterator[Import]:
    nested_lines = {
        n.lineno
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for n in ast.walk(fn)
        if isinstance(n, ast.Import | ast.ImportFrom)
    }
    here = module.split(".")
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = here[: len(here) - node.level + (1 if is_package else 0)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # `from simlab import x` may name a module: count both forms
            targets = [stem, *(f"{stem}.{a.name}" for a in node.names)]
        for target in targets:
            if target == ROOT_PACKAGE or target.startswith(ROOT_PACKAGE + "."):
                yield Import(module, target, node.lineno, node.lineno in nested_lines)


def _strongly_connected(edges: Mapping[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found
