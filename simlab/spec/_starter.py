"""The starter project ``simlab init DIR`` writes: a domain, personas, goals, a suite, an agent.

The project lives in the repository as ``examples/starter/`` (a working project:
``simlab run examples/starter/simlab.yaml``), and a wheel carries a copy in
``simlab/_shipped/examples/starter/`` (``setup.py``'s build step), so an
installed simlab writes it from any folder. Its YAML files' ``$schema`` lines
point to the shipped ``schemas/``; the written copies point to the project's own
``schemas/`` folder, which ``write_starter`` fills with the editor schemas.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from simlab.spec._shipped import shipped_root

STARTER = Path("examples") / "starter"
"""The starter project's folder, relative to the shipped root (checkout or wheel)."""

SCHEMA_LINE = "# yaml-language-server: $schema="

_NOT_PROJECT = shutil.ignore_patterns("__pycache__", "*.pyc", "results", ".*")


def starter_dir() -> Path:
    """The folder holding the starter project (the checkout's or the wheel's copy)."""
    return shipped_root() / STARTER


def write_starter(dest: Path) -> list[Path]:
    """Write the starter project into ``dest`` (created; files already there are replaced).

    Args:
        dest: The project folder; the caller decides whether a non-empty one may be used.

    Returns:
        The files written, relative to ``dest``, sorted.
    """
    dest.mkdir(parents=True, exist_ok=True)
    copied: list[Path] = []

    def copy(src: str, dst: str) -> object:
        copied.append(Path(dst))
        return shutil.copy2(src, dst)

    # only the starter's own files are written or touched: a --force into a folder
    # with the user's files leaves theirs as they were
    shutil.copytree(
        starter_dir(), dest, ignore=_NOT_PROJECT, dirs_exist_ok=True, copy_function=copy
    )
    schemas = dest / "schemas"
    schemas.mkdir(exist_ok=True)
    for schema in sorted((shipped_root() / "schemas").glob("*.schema.json")):
        shutil.copy2(schema, schemas / schema.name)
    for path in copied:
        if path.suffix == ".yaml":
            _point_schema_line(path, schemas)
    return sorted(p.relative_to(dest) for p in copied)


def _point_schema_line(path: Path, schemas: Path) -> None:
    """Point a YAML file's editor ``$schema`` line at the project's own ``schemas/``."""
    text = path.read_text(encoding="utf-8")
    first, sep, rest = text.partition("\n")
    if not first.startswith(SCHEMA_LINE):
        return
    name = Path(first.removeprefix(SCHEMA_LINE)).name
    relative = Path(os.path.relpath(schemas / name, path.parent)).as_posix()
    path.write_text(f"{SCHEMA_LINE}{relative}{sep}{rest}", encoding="utf-8")
