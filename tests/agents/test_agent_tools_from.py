"""``tools_from``: a hosted agent takes its domain's tools instead of repeating them;
the run's config hash covers the files it reads (its prompt file, that domain)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simlab.engine._hashes import config_hash, referenced_files
from simlab.spec import SpecError, Suite, load_agent_spec, load_domains, validate_specs

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "starter" / "domains" / "shop"


def agent_file(folder: Path, text: str) -> Path:
    path = folder / "agents" / "shop_llm.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with its own shop domain under domains/, as ``simlab init`` writes it."""
    shutil.copytree(SHOP, tmp_path / "domains" / "shop")
    return tmp_path


def test_a_domain_folder_gives_its_tools_fixtures_and_all(project: Path) -> None:
    own_tool = (
        "tools:\n  - name: loyalty_points\n    description: Points on a card.\n"
        "    default: {result: {points: 0}}\n"
    )
    path = agent_file(
        project, f"name: shop_llm\nsystem_prompt: p\ntools_from: ../domains/shop\n{own_tool}"
    )
    spec = load_agent_spec(path)
    names = [t.name for t in spec.tools]
    assert names == ["check_stock", "place_order", "get_order", "start_return", "loyalty_points"]
    order = spec.tool("place_order")
    assert order is not None
    call = order.call({"item": "GREEN_TEA", "quantity": 3, "delivery_date": "2026-12-20"})
    assert call.result == {"order_id": "A2002", "total": 36} and call.error is None
    too_many = order.call({"item": "GREEN_TEA", "quantity": 25, "delivery_date": "2026-12-20"})
    assert too_many.error is not None and "maximum" in too_many.error  # the domain's schema


def test_a_shipped_domain_by_name_and_a_suites_domain_by_id(project: Path) -> None:
    bank = load_agent_spec(agent_file(project, "name: a\nsystem_prompt: p\ntools_from: bank\n"))
    assert "freeze_card" in [t.name for t in bank.tools]
    # "shop" is no folder beside the agent and no shipped domain: the suite's gives it
    path = agent_file(project, "name: a\nsystem_prompt: p\ntools_from: shop\n")
    with pytest.raises(SpecError, match=r"shop_llm.yaml:3: tools_from: 'shop' is no domain"):
        load_agent_spec(path)
    domains = load_domains(["domains/shop"], project)
    assert "start_return" in [t.name for t in load_agent_spec(path, domains).tools]


def test_a_tool_both_in_the_file_and_its_domain_is_said_at_its_line(project: Path) -> None:
    text = (
        "name: a\nsystem_prompt: p\ntools_from: ../domains/shop\ntools:\n"
        "  - name: get_order\n    description: mine\n"
    )
    with pytest.raises(SpecError) as info:
        load_agent_spec(agent_file(project, text))
    assert "shop_llm.yaml:3: tools_from: get_order is both in `tools` and in domain 'shop'" in str(
        info.value
    )


def test_validate_finds_the_domain_through_the_projects_suite(project: Path) -> None:
    (project / "simlab.yaml").write_text("domains: [domains/shop]\n", encoding="utf-8")
    good = agent_file(project, "name: a\nsystem_prompt: p\ntools_from: shop\n")
    assert validate_specs([good], kind="agent").problems == []
    good.write_text("name: a\nsystem_prompt: p\ntools_from: shoe\n", encoding="utf-8")
    (problem,) = validate_specs([good], kind="agent").problems
    assert (problem.line, problem.field) == (3, "tools_from")
    assert "'shoe' is no domain folder" in problem.message and "(shop)" in problem.message


def test_the_config_hash_covers_the_prompt_file_and_the_tools_domain(project: Path) -> None:
    (project / "agents").mkdir()
    (project / "agents" / "prompt.md").write_text("Be brief.", encoding="utf-8")
    agent_file(project, "name: a\nsystem_prompt_file: prompt.md\ntools_from: ../domains/shop\n")
    suite = Suite.model_validate({"target": {"kind": "llm", "agent": "agents/shop_llm.yaml"}})
    files = referenced_files(suite, project)
    assert {"agents/shop_llm.yaml", "agents/prompt.md", "domains/shop/domain.yaml"} <= set(files)
    before = config_hash(suite, {}, {}, files)
    (project / "agents" / "prompt.md").write_text("Be chatty.", encoding="utf-8")
    assert config_hash(suite, {}, {}, referenced_files(suite, project)) != before
