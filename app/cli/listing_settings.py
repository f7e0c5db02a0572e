"""The settings ``parley tools list`` needs, read from settings.json as plain JSON when that is safe, so that the
listing starts without pydantic and the settings models (issue 17: about half of the listing's start-up limit).

The fast read only vouches for a file it can check completely: every key it meets is one of the settings
model's (app/settings/model.py), every value it needs has exactly the JSON type and range the model accepts, and
every section it does not need is either checked the same way or equal to the model's default. Anything else (a
wrong type, an unknown key, a repeated key, a workspace folder or MCP server, a provider with headers or
capability overrides, a changed loop limit, engine or usage section) returns None, and the caller loads the file
through the full model (``app.settings.load_settings``), which accepts it or reports the problem exactly as
before. So the fast read may decline a valid file, never accept an invalid one; tests/app/cli/
test_listing_settings.py checks both paths agree on valid files, that the defaults, field names, choices and
ranges here are the model's, and (by a fingerprint of the checked sections' JSON schema and the model's
validators' source) that a changed constraint or validator is reviewed here before that test passes again.

Limits named here: the same 1 MiB size limit as the settings store (app/settings/store.py, MAX_SETTINGS_BYTES).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from orchestration.reasoning_effort import REASONING_EFFORTS

MAX_SETTINGS_BYTES = 1024 * 1024  # app/settings/store.py

# Sections the listing does not read and the fast path accepts only at their defaults: Settings().model_dump(
# mode="json") of each, with JSON's types (floats stay floats).
DEFAULT_SECTIONS: dict[str, Any] = {
    "limits": {"max_iterations": 10, "max_tool_only_iterations": 3, "max_calls_per_turn": 6,
               "turn_output_chars": 60000, "tool_output_chars": 20000, "tool_timeout": 30.0,
               "model_call_timeout": 600.0, "max_parallel_tools": 4},
    "workspace_folders": [],
    "workspace_writable": [],
    "mcp_servers": [],
    "engine": {"enabled": True, "context_size": 4096, "threads": None, "gpu_layers": 0, "idle_stop_minutes": 10.0,
               "models": [], "default_model": None},
    "usage": {"prices": {}, "monthly_budget_usd": None},
}

# The model's field names and the literal choices and ranges of the fields checked here (app/settings/model.py).
SETTINGS_FIELDS = frozenset({"version", "providers", "default_provider", "search", "limits", "tools", "ui", "chat",
                             "workspace_folders", "workspace_writable", "allow_local_addresses", "mcp_servers",
                             "engine", "usage"})
SEARCH_FIELDS = frozenset({"backend", "result_count", "safe_search", "base_urls"})
SEARCH_BACKENDS = ("tavily", "brave", "exa", "searxng")
SAFE_SEARCH = ("off", "moderate", "strict")
MAX_SEARCH_RESULTS = 20
TOOL_FIELDS = frozenset({"enabled", "approval"})
APPROVAL_POLICIES = ("ask", "allow", "deny")
UI_FIELDS = frozenset({"theme", "font_size"})
THEMES = ("system", "light", "dark")
FONT_SIZES = (6, 48)
CHAT_FIELDS = frozenset({"system_prompt"})
MAX_SYSTEM_PROMPT_CHARS = 100_000
PROVIDER_FIELDS = frozenset({"id", "kind", "preset", "base_url", "default_model", "headers", "capabilities",
                             "think_tags", "reasoning_effort"})
PROVIDER_REQUIRED = frozenset({"id", "base_url"})
PROVIDER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # PROVIDER_ID_PATTERN, matched whole


class ListingSettings(NamedTuple):  # not a dataclass: no dataclasses/inspect import for the listing
    """What the listing reads: each tool's approval policy and the search backend (None: the default)."""

    approval: Mapping[str, str] = MappingProxyType({})
    search_backend: str | None = None


class _Declined(Exception):
    """The fast read cannot vouch for the file; the full model decides."""


def read_listing_settings(path: Path) -> ListingSettings | None:
    """The listing's settings from ``path`` (defaults when there is no file), or None when the file needs the full
    model: it is unreadable, too large, not JSON, or holds anything this reader does not check."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return ListingSettings()
    except OSError:  # the full load reports it
        return None
    if len(data) > MAX_SETTINGS_BYTES:
        return None
    try:
        raw = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
        return _vouched(raw)
    except (ValueError, RecursionError, _Declined):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Declined("a repeated key")
    return result


def _check(condition: bool) -> None:
    if not condition:
        raise _Declined


def _text(value: Any) -> str:
    _check(type(value) is str)
    try:
        value.encode("utf-8")  # a lone surrogate (a JSON escape) is not text the model takes
    except UnicodeEncodeError:
        raise _Declined from None
    return str(value)


def _whole(value: Any, low: int, high: int) -> int:
    _check(type(value) is int and low <= value <= high)
    return int(value)


def _section(value: Any, fields: frozenset[str]) -> dict[str, Any]:
    _check(type(value) is dict and set(value) <= fields)
    return dict(value)


def _same(value: Any, default: Any) -> bool:
    """Equal with the same JSON types all the way down (1 is not 1.0 or true here)."""
    if type(value) is not type(default):
        return False
    if isinstance(default, dict):
        return value.keys() == default.keys() and all(_same(value[k], default[k]) for k in default)
    if isinstance(default, list):
        return len(value) == len(default) and all(_same(v, d) for v, d in zip(value, default, strict=True))
    return bool(value == default)


def _http_url(value: Any) -> None:
    _check(_text(value).strip().rstrip("/").startswith(("http://", "https://")))


def _vouched(raw: Any) -> ListingSettings:
    settings = _section(raw, SETTINGS_FIELDS)
    if "version" in settings:
        _check(type(settings["version"]) is int and settings["version"] == 1)
    for name, default in DEFAULT_SECTIONS.items():
        if name in settings:
            _check(_same(settings[name], default))
    ids = [_provider_id(provider) for provider in _list(settings.get("providers", []))]
    _check(len(set(ids)) == len(ids))
    default_provider = settings.get("default_provider")
    _check(default_provider is None or default_provider in ids)
    if "allow_local_addresses" in settings:
        _check(type(settings["allow_local_addresses"]) is bool)
    _ui(settings.get("ui", {}))
    chat = _section(settings.get("chat", {}), CHAT_FIELDS)
    if "system_prompt" in chat:
        _check(len(_text(chat["system_prompt"])) <= MAX_SYSTEM_PROMPT_CHARS)
    return ListingSettings(approval=_approval(settings.get("tools", {})),
                           search_backend=_search_backend(settings.get("search", {})))


def _list(value: Any) -> list[Any]:
    _check(type(value) is list)
    return list(value)


def _provider_id(value: Any) -> str:
    provider = _section(value, PROVIDER_FIELDS)
    _check(set(provider) >= PROVIDER_REQUIRED)
    provider_id = _text(provider["id"])
    _check(PROVIDER_ID.fullmatch(provider_id) is not None)
    _http_url(provider["base_url"])
    for name in ("kind", "preset"):
        if name in provider:
            _check(len(_text(provider[name])) >= 1)
    if provider.get("default_model") is not None:
        _text(provider["default_model"])
    for name in ("headers", "capabilities"):  # headers are checked for credentials, capabilities by their model
        _check(_same(provider.get(name, {}), {}))
    _check(provider.get("think_tags") is None or type(provider["think_tags"]) is bool)
    _check(provider.get("reasoning_effort") is None or provider["reasoning_effort"] in REASONING_EFFORTS)
    return provider_id


def _ui(value: Any) -> None:
    ui = _section(value, UI_FIELDS)
    if "theme" in ui:
        _check(ui["theme"] in THEMES)
    if "font_size" in ui:
        _whole(ui["font_size"], *FONT_SIZES)


def _approval(value: Any) -> dict[str, str]:
    tools = _section(value, TOOL_FIELDS)
    enabled = tools.get("enabled", {})
    _check(type(enabled) is dict)
    for name, offered in enabled.items():
        _text(name)
        _check(type(offered) is bool)
    approval = tools.get("approval", {})
    _check(type(approval) is dict)
    for name, policy in approval.items():
        _text(name)
        _check(type(policy) is str and policy in APPROVAL_POLICIES)
    return dict(approval)


def _search_backend(value: Any) -> str | None:
    search = _section(value, SEARCH_FIELDS)
    backend = search.get("backend")
    _check(backend is None or (type(backend) is str and backend in SEARCH_BACKENDS))
    if "result_count" in search:
        _whole(search["result_count"], 1, MAX_SEARCH_RESULTS)
    if "safe_search" in search:
        _check(type(search["safe_search"]) is str and search["safe_search"] in SAFE_SEARCH)
    base_urls = search.get("base_urls", {})
    _check(type(base_urls) is dict)
    for name, url in base_urls.items():
        _check(name in SEARCH_BACKENDS)
        _http_url(url)
    return str(backend) if backend is not None else None
