"""A user's own agent, diagnosed: the cause counts are on report.html as Chromium shows it."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

import simlab
from simlab import cli
from simlab.spec import starter_dir
from tests.report.test_diagnosis_in_reports import FORGETFUL
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
    project = tmp_path / "shop"
    shutil.copytree(starter_dir(), project)
    (project / "forgetful.py").write_text(FORGETFUL)
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    result = simlab.run("simlab.yaml", target="forgetful:reply", reps=2, progress=False)
    failed = sum(1 for r in result.records if r.status == "ok" and not r.passed)
    run_dir = result.paths.run_dir
    assert cli.main(["diagnose", str(run_dir)]) == 0
    assert cli.main(["report", str(run_dir)]) == 0
    text = anyio.run(_shown_text, (run_dir / "report.html").resolve())
    assert f"Diagnosed causes of {failed} failed sessions" in text
    assert "Share of failures [95% CI]" in text and "Share verified [95% CI]" in text
