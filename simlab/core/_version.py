"""The installed simlab's version, from its package metadata (one source: pyproject.toml)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def simlab_version() -> str:
    """``simlab``'s installed version; ``0+unknown`` when run from a tree never installed."""
    try:
        return version("simlab")
    except PackageNotFoundError:
        return "0+unknown"
