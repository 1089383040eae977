"""``simlab memory-test``: table, exit codes, escaping, bad references."""

from __future__ import annotations

import sys
import types
from datetime import datetime

import pytest

from simlab.memory import Aspect, KeyedStore, MemoryItem, cli_main


def test_keyed_store_passes_with_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simlab.memory:KeyedStore", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for aspect in [*Aspect, "e2e:update"]:
        assert aspect in out
    assert "FAIL" not in out
    assert out.count("PASS") == 10
    assert "all 10 passed" in out


def test_append_only_store_fails_with_exit_1_and_evidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli_main(["simlab.memory:AppendOnlyStore", "--seed", "3", "--no-e2e"]) == 1
    out = capsys.readouterr().out
    assert "2 of 6 failed: update, deletion" in out
    assert "update failed:" in out and "deletion failed:" in out
    assert "stale value(s)" in out
    assert "e2e:" not in out


class _MarkupStore(KeyedStore):
    """Hands back a value that is rich markup, as an untrusted store might."""

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        return [MemoryItem("seat", topic, "[/red][bold]pwn[/]", at)]


def test_store_text_is_printed_escaped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = types.ModuleType("memfixture")
    module.MarkupStore = _MarkupStore  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memfixture", module)
    assert cli_main(["memfixture:MarkupStore", "--no-e2e"]) == 1
    # Unescaped, "[/red]" would raise a MarkupError and "[bold]" would vanish.
    assert "'[/red][bold]pwn[/]'" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("simlab.memory:NoSuchStore", "has no attribute 'NoSuchStore'"),
        ("no_such_module_xyz:Store", "cannot import module 'no_such_module_xyz'"),
        ("KeyedStore", "must look like 'package.module:name'"),
        ("simlab.memory:CATALOGUE", "is a tuple; it must be a class or function"),
        ("simlab.memory:SimClock", "is not a memory store: it has no save(), retrieve()"),
    ],
)
def test_bad_reference_exits_2_with_a_message_and_no_traceback(
    ref: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main([ref]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("simlab memory-test: ")
    assert message in captured.err
    assert "Traceback" not in captured.err + captured.out


def test_module_that_crashes_on_import_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "broken_store_mod.py").write_text("raise RuntimeError('bad config')\n")
    monkeypatch.syspath_prepend(str(root))
    assert cli_main(["broken_store_mod:Store"]) == 2
    err = capsys.readouterr().err
    assert "importing 'broken_store_mod:Store' raised RuntimeError: bad config" in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simlab.memory:KeyedStore", "--seed", "many"]) == 2
    assert "invalid int value" in capsys.readouterr().err
