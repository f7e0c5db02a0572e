"""Tool names, argument checks and server settings, without a server."""

from __future__ import annotations

import pytest
from mcp import types
from pydantic import ValidationError

from orchestration.tool_api import ToolArgumentsError
from tools.mcp import McpManager, McpServerSettings, McpTool, exposed_name


def test_names_are_prefixed_and_cleaned():
    assert exposed_name("time", "get_current_time") == "time__get_current_time"
    assert exposed_name("git", "log.show/all") == "git__log_show_all"
    assert len(exposed_name("s", "x" * 100)) == 64


def test_arguments_checked_for_required_names_and_json_types():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "tag": {"type": ["string", "null"]}},
              "required": ["n"]}
    server = McpServerSettings(name="s", command="true")
    tool = McpTool(name="s__t", connection=McpManager([server])._connections["s"],
                   remote=types.Tool(name="t", input_schema=schema))
    assert tool.validate({"n": 3, "tag": None}) == {"n": 3, "tag": None}
    with pytest.raises(ToolArgumentsError, match="missing required argument"):
        tool.validate({})
    with pytest.raises(ToolArgumentsError, match="n: expected integer, got bool"):
        tool.validate({"n": True})
    assert tool.spec().description == "t (MCP server s)"


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": "a b", "command": "x"}, "string should match pattern"),
    ({"name": "s"}, "a stdio server needs a command"),
    ({"name": "s", "transport": "http", "url": "ftp://x"}, "needs a URL"),
    ({"name": "s", "command": "x", "env": {"K": "1"}, "secret_env": ["K"]}, "both a plain and a secret value"),
])
def test_bad_server_settings_are_refused(fields, message):
    with pytest.raises(ValidationError, match=f"(?i){message}"):
        McpServerSettings.model_validate(fields)
