"""Fixtures for the fake provider's tests: asyncio is the backend aiohttp needs."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
