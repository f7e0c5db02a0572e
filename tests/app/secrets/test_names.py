"""Keyring entry names."""

from __future__ import annotations

import pytest

from app.secrets import EntryNameError, normalize_entry_name, provider_entry, search_entry


def test_entry_names():
    assert provider_entry("openai") == "provider:openai"
    assert search_entry("tavily") == "search:tavily"
    assert normalize_entry_name("openai") == "provider:openai"
    assert normalize_entry_name(" provider:my-local.1 ") == "provider:my-local.1"
    assert normalize_entry_name("search:brave") == "search:brave"


@pytest.mark.parametrize("name", ["search:altavista", "has space", "provider:", "", "../etc"])
def test_bad_names_are_refused(name):
    with pytest.raises(EntryNameError):
        normalize_entry_name(name)
