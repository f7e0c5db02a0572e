"""``parley tools list`` reads the settings as plain JSON when it can vouch for the file (app/cli/
listing_settings.py). What it accepts the model accepts too, and lists the same rows; what it declines goes through
the model, so a bad file gives the same warning as before; and its defaults, field names and ranges are the
model's."""

from __future__ import annotations

import argparse
import copy
import hashlib
import inspect
import json
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.cli import listing_settings as plain
from app.cli.listing_settings import ListingSettings, read_listing_settings
from app.cli.tools_command import listing_rows, rows_from_the_model, tool_rows
from app.paths import resolve_paths
from app.runs.tool_catalogue import configured_without_workspace
from app.runs.tool_setup import configured_tools
from app.settings import ProviderSettings, SearchSettings, Settings, ToolSettings, UiSettings, load_settings
from app.settings import model as settings_model
from app.settings.model import ChatDefaults
from app.settings.store import MAX_SETTINGS_BYTES, save_settings
from tests.app.cli_helpers import run_cli

# ---- the plain reader's copy of the schema is the model's ----


def test_default_sections_are_the_models_defaults_with_their_json_types() -> None:
    defaults = Settings().model_dump(mode="json")
    for name, value in plain.DEFAULT_SECTIONS.items():
        assert plain._same(value, defaults[name]), f"update DEFAULT_SECTIONS[{name!r}] to {defaults[name]!r}"


def test_field_names_choices_and_ranges_are_the_models() -> None:
    update = "the settings model changed: update app/cli/listing_settings.py to match"
    assert set(Settings.model_fields) == plain.SETTINGS_FIELDS, update
    assert set(SearchSettings.model_fields) == plain.SEARCH_FIELDS, update
    assert set(ToolSettings.model_fields) == plain.TOOL_FIELDS, update
    assert set(UiSettings.model_fields) == plain.UI_FIELDS, update
    assert set(ChatDefaults.model_fields) == plain.CHAT_FIELDS, update
    assert set(ProviderSettings.model_fields) == plain.PROVIDER_FIELDS, update
    assert {n for n, f in ProviderSettings.model_fields.items() if f.is_required()} == plain.PROVIDER_REQUIRED, update
    assert plain.SEARCH_BACKENDS == settings_model.SEARCH_BACKENDS == get_args(settings_model.SearchBackend)
    assert get_args(settings_model.ApprovalPolicy) == plain.APPROVAL_POLICIES
    assert get_args(UiSettings.model_fields["theme"].annotation) == plain.THEMES
    assert get_args(SearchSettings.model_fields["safe_search"].annotation) == plain.SAFE_SEARCH
    assert plain.MAX_SEARCH_RESULTS == settings_model.MAX_SEARCH_RESULTS
    assert plain.FONT_SIZES == (settings_model.MIN_FONT_SIZE, settings_model.MAX_FONT_SIZE)
    assert plain.MAX_SYSTEM_PROMPT_CHARS == settings_model.MAX_SYSTEM_PROMPT_CHARS
    assert f"^{plain.PROVIDER_ID.pattern}$" == settings_model.PROVIDER_ID_PATTERN
    assert plain.MAX_SETTINGS_BYTES == MAX_SETTINGS_BYTES
    # Every section is read in full: either checked field by field or compared with its default.
    checked = {"version", "providers", "default_provider", "search", "tools", "ui", "chat", "allow_local_addresses"}
    assert checked | set(plain.DEFAULT_SECTIONS) == plain.SETTINGS_FIELDS


# What the plain read copies from the model: the JSON schema of the sections it checks field by field and the
# source of the model's validators. A change there (a new constraint, a validator's rule) needs a look at
# app/cli/listing_settings.py, then a new fingerprint here (the failure prints it).
SCHEMA_FINGERPRINT = "17c25e569be35470"


def _schema_fingerprint() -> str:
    schemas = {model.__name__: model.model_json_schema()
               for model in (ProviderSettings, SearchSettings, ToolSettings, UiSettings, ChatDefaults)}
    top = Settings.model_json_schema()["properties"]
    schemas["Settings"] = {name: top[name] for name in ("version", "default_provider", "allow_local_addresses")}
    validators = [settings_model._check_http_url, ProviderSettings._url, ProviderSettings._no_credential_headers,
                  ProviderSettings._known_capabilities, SearchSettings._urls, Settings._mcp_headers_not_secret,
                  Settings._consistent]
    text = json.dumps(schemas, sort_keys=True) + "".join(inspect.getsource(getattr(v, "__func__", v))
                                                         for v in validators)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_the_checked_sections_and_validators_are_the_ones_the_plain_read_was_written_for() -> None:
    fingerprint = _schema_fingerprint()
    assert fingerprint == SCHEMA_FINGERPRINT, (
        "the settings model's checked sections or validators changed: review app/cli/listing_settings.py, then set "
        f"SCHEMA_FINGERPRINT = {fingerprint!r} in this test")


# ---- what the plain read accepts lists exactly as the model does ----


def _model_rows(settings: Settings) -> list[dict[str, Any]]:
    tools = list(configured_tools(settings, lambda name: None))
    return tool_rows(settings.tools.approval, bool(settings.workspace_folders), tools)


def _plain_rows(listing: ListingSettings) -> list[dict[str, Any]]:
    return tool_rows(listing.approval, False, configured_without_workspace(listing.search_backend))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _typical() -> Settings:
    settings = Settings(
        providers=[ProviderSettings(id="local", base_url="http://127.0.0.1:11434/v1", default_model="qwen"),
                   ProviderSettings(id="openai", preset="openai", base_url="https://api.openai.com/v1",
                                    reasoning_effort="low", think_tags=False)],
        default_provider="openai", search=SearchSettings(backend="brave", result_count=8, safe_search="strict"),
        ui=UiSettings(theme="dark", font_size=13), chat=ChatDefaults(system_prompt="Be brief."),
        allow_local_addresses=True)
    settings.tools.approval.update({"web_fetch": "deny", "calculate": "ask", "mcp_tool": "allow"})
    settings.tools.enabled.update({"web_search": False})
    settings.search.base_urls["searxng"] = "http://localhost:8888"
    return settings


ACCEPTED = {
    "an empty object": "{}",
    "the defaults as saved": Settings().model_dump_json(indent=2),
    "typical settings as saved": _typical().model_dump_json(indent=2),
    "hand-written approvals": json.dumps({"version": 1, "tools": {"approval": {"read_file": "allow",
                                                                               "web_search": "deny"}}}),
    "a search backend only": json.dumps({"search": {"backend": "searxng"}}),
}


@pytest.mark.parametrize("text", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_common_valid_files_are_read_plainly_and_list_as_through_the_model(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path / "settings.json", text)
    listing = read_listing_settings(path)
    assert listing is not None, "the plain read declined a file it should vouch for"
    assert _plain_rows(listing) == _model_rows(Settings.model_validate_json(text))


@pytest.mark.parametrize("text", [None, *ACCEPTED.values()], ids=["no file", *ACCEPTED.keys()])
def test_the_commands_two_paths_give_the_same_rows(text: str | None) -> None:
    if text is not None:
        _write(resolve_paths().settings, text)
    args = argparse.Namespace(data_dir=None)
    assert read_listing_settings(resolve_paths().settings) is not None  # listing_rows takes the plain path
    assert listing_rows(args) == rows_from_the_model(args)


def test_no_file_is_the_defaults(tmp_path: Path) -> None:
    listing = read_listing_settings(tmp_path / "missing.json")
    assert listing == ListingSettings()
    assert _plain_rows(listing) == _model_rows(Settings())


DECLINED_VALID = {  # valid for the model, left to it by the plain read
    "a workspace folder": json.dumps({"workspace_folders": ["/tmp"]}),
    "a repeated key": '{"tools": {"approval": {"calculate": "ask", "calculate": "deny"}}}',
    "a changed loop limit": json.dumps({"limits": {"max_iterations": 12}}),
    "an integer written as a float": json.dumps({"ui": {"font_size": 12.0}}),
    "a provider header": json.dumps({"providers": [{"id": "a", "base_url": "http://a", "headers": {"X-A": "1"}}]}),
}


@pytest.mark.parametrize("text", DECLINED_VALID.values(), ids=DECLINED_VALID.keys())
def test_files_the_plain_read_cannot_vouch_for_are_left_to_the_model(tmp_path: Path, text: str) -> None:
    assert read_listing_settings(_write(tmp_path / "settings.json", text)) is None
    Settings.model_validate_json(text)  # and the model takes them


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 25), st.floats(allow_nan=True), st.text(max_size=4),
                   st.sampled_from(["ask", "allow", "deny", "dark", "brave", "http://x", "\ud800", "openai", "1"]),
                   st.lists(st.integers(0, 2), max_size=2), st.dictionaries(st.text(max_size=3), st.none(),
                                                                            max_size=2))
NAMES = st.sampled_from(["calculate", "web_fetch", "read_file", "mcp_x", "", "ünï"])
DEFAULTS = Settings().model_dump(mode="json")

# Plausible settings: every field of the right shape, with values near the edges of what the model takes (an id
# with a space, a count of 21, a default provider not configured); then, half the time, one value anywhere
# replaced by an arbitrary one.
# Plausible settings: every field valid on its own (a default provider may still name no configured one); then,
# in half the examples, one value anywhere replaced by an arbitrary one or by a near miss (an id with a space, a
# count of 21, a prompt one character too long, a policy that is not one).
PROVIDER = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "local-1.x"]), "base_url": st.sampled_from(["http://x", "https://y/", " http://w"])},
    optional={"kind": st.sampled_from(["openai", "anthropic"]), "preset": st.just("custom"),
              "default_model": st.sampled_from([None, "m"]), "headers": st.just({}), "capabilities": st.just({}),
              "think_tags": st.sampled_from([None, True, False]),
              "reasoning_effort": st.sampled_from([None, "low", "minimal"])})
PLAUSIBLE = st.fixed_dictionaries({}, optional={
    "version": st.just(1),
    "providers": st.lists(PROVIDER, max_size=3),
    "default_provider": st.sampled_from([None, "a"]),
    "search": st.fixed_dictionaries({}, optional={
        "backend": st.sampled_from([None, *plain.SEARCH_BACKENDS]), "result_count": st.sampled_from([1, 5, 20]),
        "safe_search": st.sampled_from(plain.SAFE_SEARCH),
        "base_urls": st.dictionaries(st.sampled_from(["searxng", "brave"]),
                                     st.sampled_from(["http://s", "https://t/", " http://u "]), max_size=2)}),
    "limits": st.just(DEFAULTS["limits"]),
    "tools": st.fixed_dictionaries({}, optional={
        "enabled": st.dictionaries(NAMES, st.booleans(), max_size=3),
        "approval": st.dictionaries(NAMES, st.sampled_from(["ask", "allow", "deny"]), max_size=3)}),
    "ui": st.fixed_dictionaries({}, optional={"theme": st.sampled_from(plain.THEMES),
                                              "font_size": st.sampled_from([6, 11, 48])}),
    "chat": st.fixed_dictionaries({}, optional={"system_prompt": st.sampled_from(["", "hi", "x" * 100_000])}),
    "workspace_folders": st.just([]),
    "workspace_writable": st.just([]),
    "allow_local_addresses": st.booleans(),
    "mcp_servers": st.just([]),
    "engine": st.just(DEFAULTS["engine"]),
    "usage": st.just(DEFAULTS["usage"]),
})
NEAR_MISSES = st.sampled_from([
    1.0, True, 2, 0, 5, 21, 49, 5.0, "bad id", "", "a\n", "x" * 65, "ftp://z", "zzz", "duckduckgo", "google",
    "high", "blue", "never", "extreme", "x" * 100_001, {}, [], ["/tmp"], [{"name": "m", "command": "x"}],
    {"X-A": "1"}, {"Authorization": "k"}, {"vision": True}, {"nope": 1}, {**DEFAULTS["limits"], "max_iterations": 11},
    {**DEFAULTS["limits"], "tool_timeout": 30}, {**DEFAULTS["engine"], "threads": 2}, {"monthly_budget_usd": -1}])


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*at, index))
    return found


@st.composite
def _one_changed(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(draw(PLAUSIBLE))  # the sampled values are shared between examples
    where = draw(st.sampled_from(_paths(data)))
    value = draw(st.one_of(VALUES, NEAR_MISSES))
    if not where:
        return {"colour": value} if draw(st.booleans()) else {**data, draw(st.text(max_size=3)): value}
    target: Any = data
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    return data


SETTINGS = st.one_of(PLAUSIBLE, _one_changed())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=SETTINGS)
def test_what_the_plain_read_accepts_the_model_accepts_and_lists_the_same(tmp_path: Path,
                                                                          data: dict[str, Any]) -> None:
    text = json.dumps(data)
    listing = read_listing_settings(_write(tmp_path / "settings.json", text))
    if listing is None:
        return
    try:
        model = Settings.model_validate_json(text)
    except ValidationError as exc:
        pytest.fail(f"the plain read vouched for an invalid file: {exc}")
    assert _plain_rows(listing) == _model_rows(model)


# ---- a bad file: the same warning as before, through the model ----

INVALID = {
    "not JSON": "{",
    "not an object": "[]",
    "an unknown policy": json.dumps({"tools": {"approval": {"calculate": "never"}}}),
    "a provider without an address": json.dumps({"providers": [{"id": "a"}]}),
    "a default provider not configured": json.dumps({"default_provider": "nobody"}),
    "an unknown key": json.dumps({"colour": "blue"}),
    "a lone surrogate in a tool name": '{"tools": {"approval": {"\\ud800": "ask"}}}',
    "not UTF-8": "\udcff",
    "a result count over the maximum": json.dumps({"search": {"result_count": 21}}),
    "a font size under the minimum": json.dumps({"ui": {"font_size": 5}}),
    "a system prompt one character too long": json.dumps({"chat": {"system_prompt": "x" * 100_001}}),
    "a provider id with a space": json.dumps({"providers": [{"id": "bad id", "base_url": "http://x"}]}),
    "a provider id ending in a newline": json.dumps({"providers": [{"id": "a\n", "base_url": "http://x"}]}),
    "a repeated provider id": json.dumps({"providers": [{"id": "a", "base_url": "http://x"}] * 2}),
    "a provider address that is not http": json.dumps({"providers": [{"id": "a", "base_url": "ftp://x"}]}),
    "a search address that is not http": json.dumps({"search": {"base_urls": {"searxng": "localhost:8888"}}}),
    "version 2": json.dumps({"version": 2}),
}


@pytest.mark.parametrize("text", INVALID.values(), ids=INVALID.keys())
def test_a_bad_file_gives_the_models_warning_and_the_default_listing(capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path, text: str) -> None:
    raw = text.encode("utf-8", "surrogateescape")
    copy = tmp_path / "copy" / "settings.json"
    copy.parent.mkdir()
    copy.write_bytes(raw)
    expected = load_settings(copy).problem
    assert expected is not None, "the model took the file: not a bad one"
    path = resolve_paths().settings
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    assert read_listing_settings(path) is None

    result = run_cli(capsys, monkeypatch, "tools", "list")
    assert result.code == 0
    said = expected.replace(str(copy), str(path)).split("; the file was moved to")[0]
    assert result.err.startswith(f"parley: warning: {said}; the file was moved to "), result.err
    assert not path.exists(), "the bad file was not moved aside"
    assert result.out == run_cli(capsys, monkeypatch, "tools", "list").out  # the defaults' listing


def test_a_file_past_the_size_limit_is_left_to_the_model(tmp_path: Path) -> None:
    text = "{}" + " " * MAX_SETTINGS_BYTES  # valid JSON, one byte and more past the limit
    assert read_listing_settings(_write(tmp_path / "settings.json", text)) is None


def test_saved_settings_round_trip_through_the_plain_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    save_settings(_typical(), path)
    listing = read_listing_settings(path)
    assert listing == ListingSettings(approval={"web_fetch": "deny", "calculate": "ask", "mcp_tool": "allow"},
                                      search_backend="brave")
