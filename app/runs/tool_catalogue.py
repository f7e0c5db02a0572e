"""The built-in tools as a listing shows them (name, category, visibility, default approval, parallel safety,
description), written out as data so that ``parley tools list`` can describe them without importing the tool
modules, their argument models and pydantic (issue 17: the listing's start-up limit, bench/RESULTS.md).

The tools themselves stay the single source of truth: tests/app/runs/test_tool_catalogue.py builds the real
tools (``tools.default_registry``, ``tools.files.described_workspace_tools``) for every search backend and
compares every field with this catalogue, so a change to a tool's wording or metadata fails that test until the
catalogue says the same. Descriptions that depend on settings are covered only for the settings the fast listing
accepts (app/cli/listing_settings.py): the default web fetch limits, any search backend, no workspace folder.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol


class DescribedTool(Protocol):
    """What a listing reads from a tool: a real ``tools.registry.Tool`` or a ``CatalogueEntry``."""

    @property
    def name(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def visibility(self) -> str: ...
    @property
    def needs_approval(self) -> bool: ...
    @property
    def parallel_safe(self) -> bool: ...
    @property
    def description(self) -> str: ...


class CatalogueEntry(NamedTuple):  # not a dataclass: no dataclasses/inspect import for the listing
    name: str
    category: str
    visibility: str
    needs_approval: bool
    parallel_safe: bool
    description: str


BUILTIN = (
    CatalogueEntry(
        "get_current_time", "utility", "hidden", False, True,
        "Get the current date and time (ISO 8601, weekday, UTC offset), in the user's local time zone or in a given "
        "IANA time zone."),
    CatalogueEntry(
        "calculate", "utility", "hidden", False, True,
        "Evaluate an arithmetic expression exactly (integers) or in floating point. Use it instead of doing "
        "arithmetic yourself. Supports + - * / // % ** and parentheses; functions abs, acos, asin, atan, atan2, "
        "ceil, cos, degrees, exp, factorial, floor, hypot, log, log10, log2, max, min, radians, round, sin, sqrt, "
        "tan; constants e, pi, tau."),
)

# web_search names its backend in its description (tools/web/backends: each backend's ``label``).
SEARCH_LABELS = {"duckduckgo": "DuckDuckGo", "tavily": "Tavily", "brave": "Brave Search", "exa": "Exa",
                 "searxng": "SearXNG"}
DEFAULT_SEARCH_BACKEND = "duckduckgo"  # tools/web/settings.py: the backend when the settings choose none

WEB_FETCH = CatalogueEntry(
    "web_fetch", "search", "primary", False, True,
    "Read a web page (http or https) and return its main text as Markdown with its title, final URL and links. "
    "Long pages are cut at 20,000 characters. Reads HTML, plain text, Markdown and JSON; local and private network "
    "addresses are refused.")

# The file tools as they are described with no workspace folder chosen (tools/files: the order they are offered).
FILE_TOOLS = (
    CatalogueEntry(
        "list_directory", "file", "secondary", True, True,
        "List the folders and files (with sizes) in a folder of the user's workspace (no folder chosen). Paths are "
        "relative to the workspace."),
    CatalogueEntry(
        "read_file", "file", "secondary", True, True,
        "Read a text file in the user's workspace, with line numbers. Give start_line and end_line to read part of "
        "a long file; one call returns at most 2,000 lines."),
    CatalogueEntry(
        "search_files", "file", "secondary", True, True,
        "Find lines containing a text (or matching a regular expression) in the text files of the user's "
        "workspace. Returns path:line: text, at most 100 matches."),
    CatalogueEntry(
        "write_file", "file", "secondary", True, False,
        "Create a text file in a read-write folder of the user's workspace (no read-write folder chosen), or "
        "replace one with overwrite=true. Give the complete text; for a small change to an existing file use "
        "edit_file. At most 1.0 MiB."),
    CatalogueEntry(
        "edit_file", "file", "secondary", True, False,
        "Change a text file in a read-write folder of the user's workspace (no read-write folder chosen) by "
        "replacing one exact snippet (old_text, which must occur exactly once) with new_text. Read the file first "
        "to quote it exactly."),
)
WRITE_TOOLS = ("write_file", "edit_file")  # tools.files.WRITE_TOOLS


def web_search(backend: str | None) -> CatalogueEntry:
    """``web_search`` as built for a search backend id (None: the default backend)."""
    label = SEARCH_LABELS[backend or DEFAULT_SEARCH_BACKEND]
    return CatalogueEntry(
        "web_search", "search", "primary", False, True,
        f"Search the web ({label}). Returns numbered results with title, URL and a snippet; read a page in full "
        "with web_fetch. Use for current events and facts you are unsure of; cite the URLs you use.")


def configured_without_workspace(backend: str | None) -> list[CatalogueEntry]:
    """What ``app.runs.tool_setup.configured_tools`` builds with no workspace folder and no MCP server, in its
    order: the built-in tools, then the web tools."""
    return [*BUILTIN, web_search(backend), WEB_FETCH]
