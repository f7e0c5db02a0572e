"""Mapping an MCP tool result to text: structured content past the JSON depth limit becomes a note."""

from __future__ import annotations

from typing import Any

from mcp import types

from tools.mcp.content import result_output


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def test_structured_content_is_shown_as_json() -> None:
    out = result_output(types.CallToolResult(content=[], structuredContent={"temp": 21}), "s", "t")
    assert out.text == '{\n  "temp": 21\n}' and not out.is_error


def test_structured_content_nested_too_deep_is_a_note() -> None:
    out = result_output(types.CallToolResult(content=[], structuredContent=nested(1_100)), "s", "t")
    assert out.text == ("[structured content not shown: the structured content is nested more than 100 levels "
                        "deep, over the limit of 100 for JSON.]")
