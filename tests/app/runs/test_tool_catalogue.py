"""The tool catalogue says exactly what the real tools say: every field of every built-in, web and file tool, for
every search backend, in the order a run offers them. A change to a tool fails here until app/runs/
tool_catalogue.py is updated to match (the listing reads the catalogue instead of importing the tools)."""

from __future__ import annotations

from typing import Any

import pytest

from app.runs import tool_catalogue
from app.runs.tool_catalogue import DescribedTool
from app.runs.tool_setup import configured_tools
from app.settings import SearchSettings, Settings
from tools.files import READ_TOOLS, WRITE_TOOLS, WorkspaceSettings, described_workspace_tools

UPDATE = "the tools changed: update app/runs/tool_catalogue.py to read"


def _fields(tool: DescribedTool) -> dict[str, Any]:
    return {"name": tool.name, "category": tool.category, "visibility": tool.visibility,
            "needs_approval": tool.needs_approval, "parallel_safe": tool.parallel_safe,
            "description": tool.description}


def _no_key(name: str) -> str | None:
    raise AssertionError(f"building the tools for a listing asked the keyring for {name}")


@pytest.mark.parametrize("backend", [None, "tavily", "brave", "exa", "searxng"])
def test_the_configured_tools_match_the_catalogue_for_every_search_backend(backend: str | None) -> None:
    settings = Settings(search=SearchSettings(backend=backend))  # type: ignore[arg-type]
    real = [_fields(tool) for tool in configured_tools(settings, _no_key)]
    listed = [entry._asdict() for entry in tool_catalogue.configured_without_workspace(backend)]
    assert listed == real, f"{UPDATE}:\n{real}"


def test_every_search_backend_has_a_label_and_the_default_is_the_web_tools_default() -> None:
    from typing import get_args

    from tools.web.settings import SearchBackendId
    from tools.web.settings import SearchSettings as WebSearchSettings

    assert set(tool_catalogue.SEARCH_LABELS) == set(get_args(SearchBackendId))
    assert WebSearchSettings().backend == tool_catalogue.DEFAULT_SEARCH_BACKEND


def test_the_file_tools_match_the_catalogue_as_described_with_no_folder() -> None:
    real = [_fields(tool) for tool in described_workspace_tools(WorkspaceSettings())]
    assert [entry._asdict() for entry in tool_catalogue.FILE_TOOLS] == real, f"{UPDATE}:\n{real}"
    assert tool_catalogue.WRITE_TOOLS == WRITE_TOOLS
    assert [entry.name for entry in tool_catalogue.FILE_TOOLS] == [*READ_TOOLS, *WRITE_TOOLS]


def test_a_changed_tool_is_caught_with_the_update_message(monkeypatch: pytest.MonkeyPatch) -> None:
    changed = tool_catalogue.WEB_FETCH._replace(parallel_safe=False)
    monkeypatch.setattr(tool_catalogue, "WEB_FETCH", changed)
    with pytest.raises(AssertionError, match=r"update app/runs/tool_catalogue\.py"):
        test_the_configured_tools_match_the_catalogue_for_every_search_backend(None)
