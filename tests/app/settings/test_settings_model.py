"""The settings schema: defaults, validation by field, and no place for a key."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import ProviderSettings, Settings
from orchestration.limits import LoopLimits


def test_defaults_are_sensible():
    settings = Settings()
    assert settings.providers == [] and settings.default_provider is None
    assert settings.limits == LoopLimits()
    assert settings.search.backend is None and settings.search.result_count == 5
    assert settings.ui.theme == "system"
    assert settings.workspace_folders == [] and settings.allow_local_addresses is False


def test_no_field_can_hold_a_key():
    names = set(Settings.model_fields) | set(ProviderSettings.model_fields)
    assert not {n for n in names if "key" in n or "secret" in n or "token" in n or "password" in n}
    with pytest.raises(ValidationError, match="extra"):
        ProviderSettings(id="p", base_url="http://127.0.0.1:1/v1", api_key="test-key-not-real")


@pytest.mark.parametrize("header", ["Authorization", "x-api-key", "API-Key", "x-goog-api-key"])
def test_credential_headers_are_refused(header):
    with pytest.raises(ValidationError, match="parley keys set"):
        ProviderSettings(id="p", base_url="http://127.0.0.1:1/v1", headers={header: "test-key-not-real"})


def test_provider_fields_are_checked():
    ok = ProviderSettings(id="local.llama_3-8b", base_url="http://127.0.0.1:8080/v1/", headers={"X-Title": "P"},
                          capabilities={"parallel_tool_calls": False}, think_tags=True)
    assert ok.base_url == "http://127.0.0.1:8080/v1"
    with pytest.raises(ValidationError, match="http"):
        ProviderSettings(id="p", base_url="ftp://x")
    with pytest.raises(ValidationError, match="id"):
        ProviderSettings(id="has space", base_url="http://x")
    with pytest.raises(ValidationError, match="unknown capabilities"):
        ProviderSettings(id="p", base_url="http://x", capabilities={"teleport": True})
    with pytest.raises(ValidationError):
        ProviderSettings(id="p", base_url="http://x", capabilities={"max_tools": "many"})


def test_default_provider_must_exist_and_ids_be_unique():
    provider = {"id": "a", "base_url": "http://x"}
    with pytest.raises(ValidationError, match="default_provider 'b'"):
        Settings.model_validate({"providers": [provider], "default_provider": "b"})
    with pytest.raises(ValidationError, match="repeated: a"):
        Settings.model_validate({"providers": [provider, provider]})


def test_sections_validate_their_values():
    with pytest.raises(ValidationError, match="max_iterations"):
        Settings.model_validate({"limits": {"max_iterations": 0}})
    with pytest.raises(ValidationError, match="approval"):
        Settings.model_validate({"tools": {"approval": {"calculate": "sometimes"}}})
    with pytest.raises(ValidationError, match="backend"):
        Settings.model_validate({"search": {"backend": "altavista"}})
    settings = Settings.model_validate({"search": {"backend": "searxng", "base_urls": {"searxng": "http://s.lan/"}},
                                       "tools": {"enabled": {"calculate": False}, "approval": {"fetch": "ask"}},
                                       "ui": {"theme": "dark", "font_size": 14}})
    assert settings.search.base_urls == {"searxng": "http://s.lan"}
    assert settings.tools.enabled == {"calculate": False}


def test_a_writable_folder_must_be_a_workspace_folder():
    settings = Settings(workspace_folders=["/srv/notes", "/srv/code"], workspace_writable=["/srv/code/"])
    assert settings.workspace_writable == ["/srv/code/"]  # kept as written; compared normalized
    assert Settings().workspace_writable == []
    with pytest.raises(ValidationError, match=r"workspace_writable may name only workspace folders.*/srv/other"):
        Settings(workspace_folders=["/srv/notes"], workspace_writable=["/srv/other"])
    with pytest.raises(ValidationError, match="not in workspace_folders"):
        Settings(workspace_writable=["/srv/notes"])
