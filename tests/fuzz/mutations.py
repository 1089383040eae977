"""Hypothesis strategies for hostile inputs, built by mutating the shipped valid files.

A document starts as one of the project's own valid files (a persona, a goal,
a suite, a perturbation, an agent; a log in each import format), loaded as
data. Tree mutations then delete fields, swap a value for one of another type
(huge numbers, unicode and control characters, deep nesting, OTLP value shapes)
or add fields; the data is written back (YAML or JSON) and text mutations add
what only text can hold: tags, aliases and alias bombs, recursive aliases,
control characters, truncation, invalid UTF-8, a hundred thousand keys.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "replay" / "data"

# ----------------------------------------------------------------- the valid files


def _yaml_data(paths: list[Path]) -> list[Any]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in paths]


_EXTRA_SUITE = {
    "name": "llm everywhere",
    "seed": 7,
    "personas": ["chatty_en", "terse_*"],
    "goals": ["one_way"],
    "modes": ["sharded"],
    "reps": 2,
    "target": {"kind": "llm", "agent": "agent.yaml", "llm": {"backend": "openai", "model": "m"}},
    "simulator": {"kind": "llm", "llm": {"backend": "anthropic", "temperature": 0.5}},
    "judge": {"kind": "llm", "max_attempts": 2},
    "llm": {"backend": "replay", "record_dir": "rec"},
    "pricing": {"m": {"input": 1.0, "output": 2.0}},
    "budget_usd": 3.5,
    "experiments": ["diagnosis"],
    "buckets": ["1-3", {"name": "long", "min": 4}],
}


def spec_bases() -> dict[str, list[Any]]:
    """Per spec kind, the shipped valid documents mutations start from."""
    return {
        "persona": _yaml_data(sorted((ROOT / "personas").glob("*.yaml"))),
        "goal": _yaml_data(sorted((ROOT / "goals").glob("*.yaml"))),
        "suite": [*_yaml_data([ROOT / "simlab.yaml"]), _EXTRA_SUITE],
        "perturbation": _yaml_data(sorted((ROOT / "perturbations").glob("*.yaml"))),
        "agent": _yaml_data(sorted((ROOT / "domains").glob("*/agents/*.yaml"))),
        "domain": [_whole_domain(folder) for folder in sorted((ROOT / "domains").iterdir())],
    }


def _whole_domain(folder: Path) -> dict[str, Any]:
    """A shipped domain's files as one ``domain.yaml`` (its files hold disjoint keys)."""
    whole: dict[str, Any] = {}
    for part in _yaml_data(sorted(folder.glob("*.yaml"))):
        whole.update(part)
    return whole


def _json_lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def log_bases() -> dict[str, list[Any]]:
    """Per import format, the valid records of the project's test logs."""
    return {
        "openai": [
            *_json_lines(LOGS / "openai_trials.jsonl"),
            *_json_lines(LOGS / "prefix_log.jsonl"),
        ],
        "anthropic": _json_lines(LOGS / "anthropic.jsonl"),
        "otel": _json_lines(LOGS / "otel_genai.jsonl"),
    }


# ----------------------------------------------------------------- hostile values

PLACEHOLDER = "RAWFRAGMENT{}"
"""A plain scalar the writer keeps as is; the raw text fragment replaces it afterwards."""


def _bomb_yaml(levels: int) -> str:
    parts = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    parts += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


YAML_FRAGMENTS: list[str] = [
    "!!float abc",
    "!!int abc",
    "!!timestamp abc",
    "!!bool maybe",
    "!!binary '@@@'",
    "!!set [a]",
    "!!omap {a: 1}",
    "!!pairs x",
    "!!null x",
    "!!str {a: 1}",
    "!!python/object/apply:os.system [echo]",
    "!custom x",
    "2026-13-45",
    "2026-02-30T25:61:00Z",
    "1" + "0" * 5000,
    "0x" + "f" * 5000,
    "1" + "0" * 400,
    str(2**63),
    "-" + str(2**64),
    "1e400",
    ".nan",
    "-.inf",
    "&r [*r]",
    "&r {k: *r}",
    "*nowhere",
    "[" * 3000 + "]" * 3000,
    "{a: " * 200 + "1" + "}" * 200,
    "[" * 99 + "]" * 99,
    _bomb_yaml(4),
    _bomb_yaml(9),
    "{? [a, b]: 1}",
    "{? {a: 1}: 1}",
    '"\\ud800"',
    '"\\x00\\x1b[31mred"',
    '"\\u202eevil"',
    "<<: {a: 1}",
    "{<<: *nowhere}",
    "{<<: [1, 2]}",
]

JSON_FRAGMENTS: list[str] = [
    "[" * 3000 + "]" * 3000,
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 3000 + "1" + "}" * 3000,
    "1" + "0" * 400,
    "-" + "9" * 400,
    "1" + "0" * 5000,
    str(2**63),
    str(2**64),
    "-1",
    "1e400",
    "-1e400",
    "1e-400",
    "NaN",
    "Infinity",
    "-Infinity",
    '"\\ud800"',
    '"task\\udc00id"',
    '"\\u0000"',
    '"\\u202e\\u001b[2J"',
    '{"a": 1, "a": [2]}',
    '{"intValue": "abc"}',
    '{"intValue": "1e5"}',
    '{"intValue": ' + "9" * 400 + "}",
    '{"intValue": null}',
    '{"intValue": [1]}',
    '{"doubleValue": "x"}',
    '{"doubleValue": {}}',
    '{"boolValue": "false"}',
    '{"arrayValue": "x"}',
    '{"arrayValue": {"values": 5}}',
    '{"arrayValue": {"values": [{"arrayValue": "x"}]}}',
    '{"kvlistValue": []}',
    '{"kvlistValue": {"values": [{"key": [1]}]}}',
    '{"kvlistValue": {"values": "x"}}',
    '{"bytesValue": "AAAA"}',
    '[{"key": [1], "value": {}}]',
    '[{"key": {"a": 1}, "value": {"stringValue": "x"}}]',
    '[{"key": "gen_ai.input.messages", "value": {"stringValue": "[1, {\\"parts\\": 5}]"}}]',
    '[{"key": "gen_ai.input.messages", "value": {"stringValue": "{\\"role\\": 1}"}}]',
    '[{"key": "gen_ai.output.messages", "value": {"arrayValue": {"values": [{"intValue": "1"}]}}}]',
    '[{"key": "gen_ai.prompt.0.tool_calls.x", "value": {"stringValue": "1"}}]',
    '[{"key": "gen_ai.prompt.99999999999999999999.role", "value": {"stringValue": "user"}}]',
    '[{"key": "gen_ai.completion.0.tool_calls.0.name", "value": {"intValue": "3"}}]',
    *(
        json.dumps([{"name": name, "attributes": [{"key": key, "value": value}]}])
        for name, key, value in [
            ("gen_ai.choice", "message", {"stringValue": '{"tool_calls": [{"function": 5}]}'}),
            ("gen_ai.user.message", "gen_ai.event.content", {"stringValue": "[1]"}),
            ("gen_ai.tool.message", "id", {"arrayValue": {"values": []}}),
            (
                "gen_ai.content.prompt",
                "gen_ai.prompt",
                {"stringValue": '[{"message": {"role": [1]}}]'},
            ),
        ]
    ),
    '{"type": "tool_call_response", "response": {"a": [1, {"b": 2}]}}',
    '{"type": "tool_call", "id": [1], "name": {}, "arguments": "{"}',
    '{"type": "text", "content": {"a": 1}}',
    '{"role": "tool", "content": "[1, [2, {}]]", "tool_call_id": [1]}',
    '{"role": "tool", "content": "{\\"a\\": [1]}", "tool_call_id": {"x": 1}}',
    json.dumps(
        {
            "role": "assistant",
            "tool_calls": [{"id": {"a": 1}, "function": {"name": "f", "arguments": "[1]"}}],
        }
    ),
    '{"type": "tool_use", "id": [1], "name": "f", "input": {}}',
    '{"type": "tool_result", "tool_use_id": {"a": 1}, "content": [{"type": "text", "text": 5}]}',
]


def _python_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([0, -1, 2**63, 2**64 + 1, -(2**63) - 1, 10**400]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
        st.sampled_from(
            [
                "",
                " ",
                "*",
                "\ud800",
                "a\udc00b",
                "\u202e\u2066bidi",
                "\x1b[31mred",
                "\x00nul",
                "line\nbreak",
                "x" * 100_000,
                "user",
                "assistant",
                "tool",
                "system",
                "full",
                "sharded",
                "reference:v9",
                "http://127.0.0.1:1",
                "os:system",
                "2-4",
                "10+",
                "4-2",
            ]
        ),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.text(max_size=8), inner, max_size=4),
        ),
        max_leaves=12,
    )


def _deep_list(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


# ----------------------------------------------------------------- tree mutations


def _slots(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in ``data``, breadth first, capped for speed."""
    slots: list[tuple[Any, Any]] = []
    queue = [data]
    while queue and len(slots) < 400:
        node = queue.pop(0)
        keys = list(node) if isinstance(node, dict) else range(len(node))
        for key in keys:
            slots.append((node, key))
            if isinstance(node[key], dict | list):
                queue.append(node[key])
    return slots


@st.composite
def _mutated_tree(
    draw: st.DrawFn, bases: list[Any], fragments: list[str]
) -> tuple[Any, dict[str, str]]:
    data = copy.deepcopy(draw(st.sampled_from(bases)))
    raws: dict[str, str] = {}
    for _ in range(draw(st.integers(0, 4))):
        slots = _slots(data)
        if not slots:
            break
        parent, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(["delete", "replace", "replace", "raw", "add", "wrap", "deep"]))
        if op == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif op == "replace":
            parent[key] = draw(_python_values())
        elif op == "raw":
            name = PLACEHOLDER.format(len(raws))
            raws[name] = draw(st.sampled_from(fragments))
            parent[key] = name
        elif op == "add":
            target = parent if isinstance(parent, dict) else data
            if isinstance(target, dict):
                target[draw(st.text(max_size=12))] = draw(_python_values())
            elif isinstance(target, list):
                target.append(draw(_python_values()))
        elif op == "wrap":
            parent[key] = draw(st.sampled_from([[parent[key]], {"value": parent[key]}]))
        else:
            parent[key] = _deep_list(draw(st.sampled_from([50, 99, 150])))
    return data, raws


def _with_raws(text: str, raws: dict[str, str]) -> str:
    for name in sorted(raws, key=len, reverse=True):  # RAWFRAGMENT10 before RAWFRAGMENT1
        text = text.replace(name, raws[name])
    return text


# ----------------------------------------------------------------- text mutations

_ODD_CHARS = ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\ufeff", "\u2028", "\ud800", "\t", "\r"]


@st.composite
def _text_mutation(draw: st.DrawFn, text: str, kind: str) -> str | bytes:
    op = draw(
        st.sampled_from(
            ["none", "none", "char", "truncate", "dupline", "anchor", "keys", "multi", "bytes"]
        )
    )
    lines = text.split("\n")
    if op == "char":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from(_ODD_CHARS)) + text[at:]
    if op == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if op == "dupline":
        i = draw(st.integers(0, len(lines) - 1))
        return "\n".join([*lines[: i + 1], *lines[i:]])
    if op == "anchor" and kind == "yaml":
        keyed = [i for i, line in enumerate(lines) if ": " in line and not line.endswith(": ")]
        if keyed:
            i = draw(st.sampled_from(keyed))
            key, _, value = lines[i].partition(": ")
            lines[i] = f"{key}: &anc {value}"
            lines.append(draw(st.sampled_from(["extra: *anc", "extra: [*anc, *anc, *anc]"])))
            return "\n".join(lines)
    if op == "keys":
        n = draw(st.sampled_from([1000, 20_000, 120_000] if kind == "yaml" else [1000, 20_000]))
        if kind == "yaml":
            return text + "\n" + "".join(f"k{i}: v\n" for i in range(n))
        return text.rstrip("\n") + "\n" + "{}\n" * n
    if op == "multi":
        return (text + "\n---\nb: 1\n") if kind == "yaml" else "[" + text.replace("\n", ",") + "]"
    if op == "bytes":
        raw = text.encode("utf-8", "surrogatepass")
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:]
    return text


@st.composite
def spec_documents(draw: st.DrawFn, bases: list[Any]) -> str | bytes:
    """A YAML spec document: a mutated shipped file, as text (or bytes when not UTF-8)."""
    data, raws = draw(_mutated_tree(bases, YAML_FRAGMENTS))
    dumped = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1_000_000)
    text = _with_raws(dumped, raws)
    return draw(_text_mutation(text, "yaml"))


@st.composite
def log_files(draw: st.DrawFn, bases: list[Any]) -> str | bytes:
    """A JSONL log of 1-3 records, each a mutated valid record of the format."""
    records = []
    for _ in range(draw(st.integers(1, 3))):
        data, raws = draw(_mutated_tree(bases, JSON_FRAGMENTS))
        records.append(_with_raws(json.dumps(data, ensure_ascii=draw(st.booleans())), raws))
    return draw(_text_mutation("\n".join(records) + "\n", "json"))
