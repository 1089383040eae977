"""The server keeps no API key: not in its state, not in its logs."""

import gc
import logging
import secrets
import types
from collections.abc import Iterator

import httpx
import pytest
from anthropic import AsyncAnthropic

from simlab.testing import FakeProvider, FakeProviderConfig

pytestmark = pytest.mark.anyio

_OPAQUE = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.CodeType,
    types.FrameType,
    types.BuiltinFunctionType,
    types.MethodWrapperType,
)


def _strings_reachable_from(root: object) -> Iterator[str]:
    """Every str/bytes reachable from ``root`` through its data (not code or modules)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen.add(id(obj))
        if isinstance(obj, str):
            yield obj
        elif isinstance(obj, bytes | bytearray):
            yield bytes(obj).decode("latin-1")
        else:
            stack.extend(gc.get_referents(obj))


async def test_no_api_key_in_state_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    key = "sk-ant-" + secrets.token_hex(16)
    marker = "user-" + secrets.token_hex(8)
    caplog.set_level(logging.DEBUG)
    fake = FakeProvider(FakeProviderConfig(require_api_key=True, fault_sequence=("rate_limit",)))
    async with fake.serve() as base_url:
        client = AsyncAnthropic(base_url=base_url, api_key=key, max_retries=0)
        with pytest.raises(Exception, match="rate limit"):
            await client.messages.create(
                model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
            )
        await client.messages.create(
            model="m",
            max_tokens=50,
            metadata={"user_id": marker},
            messages=[{"role": "user", "content": "hi"}],
        )
        await client.close()
        async with httpx.AsyncClient(base_url=base_url) as http:
            body = {"model": "g", "messages": [{"role": "user", "content": "hi"}]}
            headers = {"Authorization": f"Bearer {key}"}
            assert (
                await http.post("/v1/chat/completions", json=body, headers=headers)
            ).status_code == 200
            stats_text = (await http.get("/stats")).text
    kept = list(_strings_reachable_from(fake))
    # The walk does reach what the server legitimately keeps (the request history) ...
    assert any(marker in s for s in kept)
    # ... and the key is nowhere in it, nor in the logs or /stats.
    assert not any(key in s for s in kept)
    assert key not in caplog.text and key not in stats_text
    assert fake.stats().succeeded == 2
