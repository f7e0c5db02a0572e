"""Fuzzing what an MCP server sends: any tool listing the SDK accepts becomes a tool with a usable schema whose
argument check raises only ToolArgumentsError, and any call result becomes text for the model."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from mcp import types
from pydantic import ValidationError

from orchestration.tool_api import ToolArgumentsError, ToolOutput
from tests.fuzz.strategies import encode_json, hostile_text, json_values, mutated
from tools.mcp.content import result_output
from tools.mcp.tool import McpTool

TOOL = {"name": "get_time", "title": "Time", "description": "The time in a zone.",
        "inputSchema": {"type": "object", "title": "Args",
                        "properties": {"zone": {"type": "string"}, "hours": {"type": ["integer", "null"]},
                                       "flags": {"type": "array", "items": {"type": "boolean"}}},
                        "required": ["zone"]}}
RESULT = {"content": [
    {"type": "text", "text": "12:00"},
    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "body", "mimeType": "text/plain"}},
    {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAEC"}},
    {"type": "resource_link", "name": "log", "uri": "file:///log", "description": "the log"},
], "structuredContent": {"time": "12:00"}, "isError": False}
CONNECTION: Any = SimpleNamespace(name="clock", settings=SimpleNamespace(call_timeout=30.0))


def _sdk_accepts(model: type[types.Tool] | type[types.CallToolResult], data: Any) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError:
        return None  # the SDK refuses it before Parley sees it


@given(mutated(TOOL), st.dictionaries(hostile_text, json_values, max_size=4))
@example({**TOOL, "inputSchema": {"type": "object", "properties": 5, "required": 7}}, {"zone": "x"})
@example({**TOOL, "inputSchema": {"type": "object", "properties": [], "required": [None, {}]}}, {})
@example({**TOOL, "inputSchema": {"type": "object", "properties": {"zone": {"type": 5}}}}, {"zone": "x"})
@example({**TOOL, "inputSchema": {"type": "object", "properties": {"zone": {"type": [[]]}}}}, {"zone": "x"})
def test_any_listed_tool_has_a_usable_schema_and_a_typed_argument_check(listing, arguments) -> None:
    remote = _sdk_accepts(types.Tool, listing)
    if remote is None:
        return
    tool = McpTool(name="clock__get_time", connection=CONNECTION, remote=remote)
    parameters = tool.spec().parameters
    assert parameters["type"] == "object" and isinstance(parameters["properties"], dict)
    assert all(isinstance(name, str) for name in parameters.get("required", []))
    json.dumps(parameters)  # sent to the provider with every request
    try:
        assert tool.validate(arguments) == arguments
    except ToolArgumentsError as exc:
        assert str(exc)


@given(st.one_of(mutated(RESULT), mutated(RESULT, None),
                 json_values.map(lambda v: {"content": [], "structuredContent": v})))
@example({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
@example({"content": [], "structuredContent": {"a": float("nan")}})
def test_any_call_result_becomes_text_for_the_model(result) -> None:
    parsed = _sdk_accepts(types.CallToolResult, json.loads(encode_json(result)) if _finite(result) else result)
    if parsed is None:
        return
    output = result_output(parsed, "clock", "get_time")
    assert isinstance(output, ToolOutput) and output.text
    json.dumps(output.data)


def _finite(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True
