"""ToolRegistry and Tool: unique names, selection strings, schemas the model sees, validation messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from orchestration.tool_api import (
    EmptyToolSet,
    RunnableTool,
    ToolArgumentsError,
    ToolContext,
    ToolOutput,
    ToolSet,
    ToolSpec,
)
from tools import SearchSettings, WorkspaceSettings, default_registry
from tools.registry import DuplicateToolError, Tool, ToolRegistry, UnknownToolError


class Inner(BaseModel):
    unit: str = Field(description="unit of measure")


class EchoArguments(BaseModel):
    text: str = Field(description="what to echo")
    times: int = Field(1, ge=1, le=5)
    inner: Inner | None = None


async def echo(arguments: EchoArguments, context: ToolContext) -> ToolOutput:
    return ToolOutput(text=arguments.text * arguments.times, data={"call": context.call_id})


def make_tool(name: str = "echo", **options: Any) -> Tool:
    return Tool(name=name, description=f"{name} tool", arguments=EchoArguments, handler=echo, **options)


def context() -> ToolContext:
    return ToolContext(run_id="run-1", call_id="call-1")


def registry_of(*names: str) -> ToolRegistry:
    return ToolRegistry(make_tool(n) for n in names)


def keys_named(value: Any, key: str) -> list[Any]:
    """Every value stored under ``key`` anywhere in a JSON-like structure."""
    found: list[Any] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                found.append(v)
            found.extend(keys_named(v, key))
    elif isinstance(value, list):
        for v in value:
            found.extend(keys_named(v, key))
    return found


# --- Tool -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "has space", "dot.ted", "x" * 65, "semi;colon"])
def test_tool_names_must_be_short_identifiers(name: str) -> None:
    with pytest.raises(ValueError, match="must be 1-64 letters"):
        make_tool(name)


@pytest.mark.parametrize("name", ["a", "get_time", "web-search", "x" * 64, "tool2"])
def test_tool_names_accepted(name: str) -> None:
    assert make_tool(name).name == name


def test_handler_must_be_async() -> None:
    def sync_handler(arguments: Any, context: ToolContext) -> str:
        return "no"

    with pytest.raises(TypeError, match="async"):
        Tool(name="sync", description="d", arguments=EchoArguments, handler=sync_handler)  # type: ignore[arg-type]


def test_tool_defaults_and_protocol() -> None:
    tool = make_tool()
    assert isinstance(tool, RunnableTool)
    assert (tool.category, tool.visibility, tool.parallel_safe, tool.needs_approval) == (
        "other", "primary", True, False)
    assert tool.timeout is None and tool.max_output_chars is None


def test_spec_is_the_argument_schema_without_titles() -> None:
    spec = make_tool().spec()
    assert isinstance(spec, ToolSpec)
    assert spec.name == "echo" and spec.description == "echo tool"
    parameters = spec.parameters
    assert parameters["type"] == "object"
    assert parameters["required"] == ["text"]
    assert set(parameters["properties"]) == {"text", "times", "inner"}
    assert parameters["properties"]["text"] == {"type": "string", "description": "what to echo"}
    assert parameters["properties"]["times"] == {"type": "integer", "default": 1, "minimum": 1, "maximum": 5}
    # nested models keep their structure ($defs) but lose their titles too
    assert parameters["$defs"]["Inner"]["properties"]["unit"]["description"] == "unit of measure"
    assert keys_named(parameters, "title") == []


def test_spec_of_a_model_without_fields_still_has_properties() -> None:
    class NoArguments(BaseModel):
        pass

    tool = Tool(name="noop", description="d", arguments=NoArguments, handler=echo)
    assert tool.spec().parameters == {"type": "object", "properties": {}}


def test_a_property_named_title_survives_cleaning() -> None:
    class Note(BaseModel):
        title: str

    tool = Tool(name="note", description="d", arguments=Note, handler=echo)
    parameters = tool.spec().parameters
    assert parameters["properties"] == {"title": {"type": "string"}}
    assert parameters["required"] == ["title"]


def test_validate_returns_the_model() -> None:
    arguments = make_tool().validate({"text": "hi", "times": 2})
    assert isinstance(arguments, EchoArguments)
    assert (arguments.text, arguments.times) == ("hi", 2)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({}, "text: Field required"),
        ({"text": 5}, "text: Input should be a valid string"),
        ({"text": "x", "times": "many"}, "times: Input should be a valid integer"),
        ({"text": "x", "times": 9}, "times: Input should be less than or equal to 5"),
        ({"text": "x", "inner": {}}, "inner.unit: Field required"),
    ],
)
def test_validation_errors_name_the_field_and_the_problem(raw: dict[str, Any], expected: str) -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        make_tool().validate(raw)
    assert expected in str(caught.value)
    assert caught.value.__cause__ is None  # no pydantic traceback chained behind the model-facing message


def test_validation_reports_every_problem() -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        make_tool().validate({"times": 0})
    message = str(caught.value)
    assert "text: Field required" in message
    assert "times: Input should be greater than or equal to 1" in message
    assert message.count(";") == 1


async def test_invoke_runs_the_handler_with_the_context() -> None:
    tool = make_tool()
    output = await tool.invoke(tool.validate({"text": "ab", "times": 3}), context())
    assert output == ToolOutput(text="ababab", data={"call": "call-1"})


# --- ToolRegistry -----------------------------------------------------------------------------------------


def test_duplicate_names_are_refused_not_overridden() -> None:
    first = make_tool("echo")
    registry = ToolRegistry([first])
    with pytest.raises(DuplicateToolError, match="'echo' is already registered"):
        registry.register(make_tool("echo"))
    assert registry.get("echo") is first
    with pytest.raises(DuplicateToolError):
        ToolRegistry([make_tool("a"), make_tool("a")])


def test_register_get_unregister() -> None:
    registry = ToolRegistry()
    assert len(registry) == 0 and registry.names() == []
    tool = make_tool("a")
    assert registry.register(tool) is tool
    registry.register(make_tool("b"))
    assert registry.get("a") is tool
    assert registry.get("missing") is None
    assert registry.names() == ["a", "b"]
    assert [t.name for t in registry] == ["a", "b"]
    registry.unregister("a")
    registry.unregister("never-there")  # no error
    assert registry.names() == ["b"]
    registry.register(make_tool("a"))  # the name is free again
    assert registry.names() == ["b", "a"]


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ("all", ["a", "b", "c"]),
        ("none", []),
        (None, []),
        ("", []),
        ("a", ["a"]),
        ("c,a", ["c", "a"]),
        (" b , a ,", ["b", "a"]),
        ("a,a,b,a", ["a", "b"]),
        (["b", "c"], ["b", "c"]),
        (("c", " a "), ["c", "a"]),
        ([], []),
    ],
)
def test_resolve_selections(selection: Any, expected: list[str]) -> None:
    assert registry_of("a", "b", "c").resolve(selection) == expected


@pytest.mark.parametrize("selection", ["a,zzz", ["zzz"], "All", "a,,b,yyy"])
def test_resolve_unknown_names_lists_what_is_available(selection: Any) -> None:
    with pytest.raises(UnknownToolError) as caught:
        registry_of("a", "b").resolve(selection)
    message = str(caught.value)
    assert message.startswith("unknown tool(s): ")
    assert "Available: a, b" in message
    assert "'" not in message  # KeyError's repr quoting is not what users see


def test_resolve_on_an_empty_registry() -> None:
    registry = ToolRegistry()
    assert registry.resolve("all") == []
    with pytest.raises(UnknownToolError, match=r"Available: $"):
        registry.resolve("a")


def test_specs_all_or_chosen_in_the_order_asked() -> None:
    registry = registry_of("a", "b", "c")
    assert [s.name for s in registry.specs()] == ["a", "b", "c"]
    assert [s.name for s in registry.specs(["c", "a"])] == ["c", "a"]
    assert [s.name for s in registry.specs(["missing", "b"])] == ["b"]
    assert registry.specs([]) == []


def test_the_registry_is_a_tool_set() -> None:
    def names_of(tools: ToolSet) -> list[str]:
        return tools.names()

    assert names_of(registry_of("x")) == ["x"]
    assert names_of(EmptyToolSet()) == []


# --- the default registry ----------------------------------------------------------------------------------


def test_default_registry_holds_the_builtins_and_web_tools() -> None:
    registry = default_registry()
    assert registry.names() == ["get_current_time", "calculate", "web_search", "web_fetch"]
    for tool in registry:
        assert isinstance(tool, RunnableTool)
        assert tool.parallel_safe is True
        assert tool.needs_approval is False
        assert keys_named(tool.spec().parameters, "title") == []
    assert [(t.category, t.visibility) for t in registry] == [("utility", "hidden"), ("utility", "hidden"),
                                                             ("search", "primary"), ("search", "primary")]


def test_default_registry_adds_file_tools_only_with_a_workspace(tmp_path: Path) -> None:
    registry = default_registry(search=SearchSettings(backend="brave"), workspace=WorkspaceSettings(folders=[tmp_path]),
                                secret_lookup=lambda entry: None)
    assert registry.names()[-3:] == ["list_directory", "read_file", "search_files"]
    assert "Brave Search" in registry.get("web_search").description  # type: ignore[union-attr]
    assert all(registry.get(n).needs_approval for n in registry.names()[-3:])  # type: ignore[union-attr]
    assert "list_directory" not in default_registry(workspace=WorkspaceSettings()).names()


def test_default_registries_are_independent() -> None:
    first, second = default_registry(), default_registry()
    first.register(make_tool("extra"))
    first.unregister("calculate")
    assert second.names() == ["get_current_time", "calculate", "web_search", "web_fetch"]
    assert first.get("get_current_time") is not second.get("get_current_time")
