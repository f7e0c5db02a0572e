"""An MCP tool result turned into text the model can read.

Text is passed through; images and audio are noted with their type and size (the model is told something was
returned rather than it being dropped); embedded resources give their URI and text, or a note for binary
data; resource links give name and URI. Structured content is used when a server sends no content blocks.
"""

from __future__ import annotations

from typing import Any

from mcp import types

from orchestration.bounded_json import JSONLimitError, dumps_bounded
from orchestration.tool_api import ToolOutput

MAX_RESULT_CHARS = 1_000_000  # of one tool result's text; larger is refused as too large, not passed on or cut


def _decoded_size(base64_data: str) -> str:
    size = len(base64_data) * 3 // 4 - base64_data[-2:].count("=")
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} bytes"


def block_text(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image returned: {block.mime_type}, {_decoded_size(block.data)}; images are not shown to the model]"
    if isinstance(block, types.AudioContent):
        return f"[audio returned: {block.mime_type}, {_decoded_size(block.data)}; audio is not passed to the model]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        mime = resource.mime_type or "binary data"
        return f"[resource {resource.uri}: {mime}, {_decoded_size(resource.blob)}; binary content not shown]"
    if isinstance(block, types.ResourceLink):
        about = f": {block.description}" if block.description else ""
        return f"[resource link {block.name} <{block.uri}>{about}]"
    return f"[{getattr(block, 'type', type(block).__name__)} content not shown]"


def result_output(result: types.CallToolResult, server: str, tool: str) -> ToolOutput:
    parts = [block_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        try:
            parts.append(dumps_bounded(result.structured_content, what="the structured content",
                                       ensure_ascii=False, indent=2))
        except JSONLimitError as exc:
            parts.append(f"[structured content not shown: {exc}]")
    text = "\n\n".join(parts) if parts else "(the tool returned no content)"
    data: dict[str, Any] = {"kind": "mcp", "server": server, "tool": tool, "blocks": [b.type for b in result.content]}
    if len(text) > MAX_RESULT_CHARS:
        data["too_large"] = len(text)
        return ToolOutput(text=f"MCP server {server!r} returned a result of {len(text):,} characters for tool "
                          f"{tool!r}; results over {MAX_RESULT_CHARS:,} characters (MAX_RESULT_CHARS) are refused "
                          "as too large. Ask for less (a narrower query, a page or a range).", data=data,
                          is_error=True)
    return ToolOutput(text=text, data=data, is_error=bool(result.is_error))
