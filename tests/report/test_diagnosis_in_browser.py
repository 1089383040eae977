"""A user's own agent, diagnosed: the cause counts are on report.html as Chromium shows it."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.report.test_diagnosis_in_reports import diagnosed_run
from tests.report.test_html_browser import CHROMIUM, chromium_page

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium"),
]


async def _shown_text(path: Path) -> str:
    async with anyio.create_task_group() as tg:
        async with chromium_page(tg) as page:
            for domain in ("Runtime", "Page"):
                await page.send(f"{domain}.enable")
            await page.send("Page.navigate", url=path.as_uri())
            await page.wait_for_event("Page.loadEventFired")
            text: str = await page.evaluate("document.body.innerText")
        tg.cancel_scope.cancel()
    return text


def test_the_diagnosed_causes_of_a_users_agent_show_in_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, failed = diagnosed_run(tmp_path, monkeypatch)
    text = anyio.run(_shown_text, run_dir / "report.html")
    assert f"Diagnosed causes of {failed} failed sessions" in text
    assert "Share of failures [95% CI]" in text and "Share verified [95% CI]" in text
