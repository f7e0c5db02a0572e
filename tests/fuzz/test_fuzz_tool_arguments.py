"""Fuzzing tool arguments as a model sends them: any argument text, for any tool, becomes a result the model can
read (ok or a clear error), never an exception out of the tool turn, and no tool fails with a raw exception."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from orchestration.events import EventFactory, ToolResult
from orchestration.limits import LoopLimits
from orchestration.messages import ToolCallPart
from orchestration.tool_api import ToolArgumentsError
from orchestration.tool_turn import ApprovalRequest, ToolTurn
from tests.fuzz.strategies import encode_json, hostile_text, json_values, mutated
from tools import WorkspaceSettings, default_registry
from tools.registry import ToolRegistry

# Arguments that work, one per tool that runs without the network; the fuzzer changes them.
VALID = {
    "calculate": {"expression": "(3.5 + 2) * 4**2 / sqrt(2)"},
    "get_current_time": {"timezone": "Europe/Paris"},
    "list_directory": {"path": "."},
    "read_file": {"path": "notes/a.txt", "start_line": 1, "end_line": 2},
    "search_files": {"query": "egg", "path": ".", "glob": "*.txt", "regex": False},
}
OFFLINE_TOOLS = sorted(VALID)
NETWORK_TOOLS = ["web_search", "web_fetch"]  # validated only: running them would leave loopback
# A raw exception from a handler shows up as "<tool> failed: SomeError: ..." (tool_turn._run_one).
RAW_EXCEPTION = re.compile(r"^\w+ failed: \w+: ")


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> ToolRegistry:
    workspace = tmp_path_factory.mktemp("workspace")
    (workspace / "notes").mkdir()
    (workspace / "notes" / "a.txt").write_text("one egg\ntwo eggs\n")
    (workspace / "bin.dat").write_bytes(b"\x00\xff\xfe egg")
    (workspace / "latin.txt").write_bytes("œuf égal".encode("latin-1", "replace"))
    return default_registry(workspace=WorkspaceSettings(folders=[Path(workspace)]))


async def _allow_all(requests: list[ApprovalRequest]) -> dict[str, str]:
    return {r.call_id: "allow" for r in requests}


def _run_turn(registry: ToolRegistry, calls: list[ToolCallPart]) -> list[ToolResult]:
    emitted: list = []
    turn = ToolTurn(registry, LoopLimits(), EventFactory("fuzz"), emitted.append, _allow_all, "fuzz", None)
    results = asyncio.run(turn.execute(calls, OFFLINE_TOOLS))
    assert [r.call_id for r in results] == [c.id for c in calls]
    return [e for e in emitted if isinstance(e, ToolResult)]


def argument_texts(name: str) -> st.SearchStrategy[str]:
    return st.one_of(
        mutated(VALID[name], None).map(encode_json),
        mutated(VALID[name]).map(encode_json),
        json_values.map(encode_json),
        st.text(max_size=60),
        st.builds(lambda valid, cut: valid[:cut], st.just(json.dumps(VALID[name])), st.integers(0, 60)),
    )


calls = st.sampled_from(OFFLINE_TOOLS).flatmap(
    lambda name: st.tuples(st.just(name), argument_texts(name)))


@given(st.lists(calls, min_size=1, max_size=3))
@example([("calculate", '{"expression": "1e308*10"}')])
@example([("read_file", '{"path": "\\ud800"}')])
@example([("search_files", '{"query": "\\u0000", "path": "bin.dat"}')])
@example([("list_directory", '{"path": "\\u0000"}')])
@example([("get_current_time", '{"timezone": "../../etc/passwd"}')])
@example([("calculate", '{"expression": "9**9**9**9"}')])
def test_any_arguments_become_a_readable_result(registry, calls) -> None:
    parts = [ToolCallPart(id=f"c{i}", name=name, arguments=text) for i, (name, text) in enumerate(calls)]
    results = _run_turn(registry, parts)
    assert {r.id for r in results} == {p.id for p in parts}
    for result in results:
        assert result.status in ("ok", "error")
        event(f"{result.name}: {result.status}")
        assert not RAW_EXCEPTION.match(result.result), result.result


@given(st.sampled_from(OFFLINE_TOOLS + NETWORK_TOOLS), st.dictionaries(hostile_text, json_values, max_size=4))
def test_validation_only_raises_its_typed_error(registry, name, arguments) -> None:
    tool = registry.get(name)
    assert tool is not None
    try:
        tool.validate(arguments)
    except ToolArgumentsError as exc:
        assert str(exc)
