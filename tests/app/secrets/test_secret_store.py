"""Keys in the keyring or in memory for the session; never anywhere else."""

from __future__ import annotations

import pytest

from app.secrets import SERVICE, SecretStore, SecretStoreError

KEY = "test-key-not-real-0001"


def test_keys_round_trip_through_the_keyring(memory_keyring):
    store = SecretStore()
    store.store("provider:openai", f"  {KEY}\n")
    assert memory_keyring.entries == {(SERVICE, "provider:openai"): KEY}
    assert store.lookup("provider:openai") == KEY
    assert store.location("provider:openai") == "keyring"
    assert store.lookup("search:tavily") is None and store.location("search:tavily") is None
    assert SecretStore().lookup("provider:openai") == KEY  # another store (another process) sees it
    assert store.delete("provider:openai") == ["keyring"]
    assert store.lookup("provider:openai") is None and store.delete("provider:openai") == []


def test_lookup_is_a_secret_lookup_callable(memory_keyring):
    store = SecretStore()
    store.store("search:brave", KEY)
    lookup = store.lookup
    assert lookup("search:brave") == KEY and lookup("search:exa") is None


def test_no_keyring_refuses_to_store_and_offers_the_session(no_keyring, tmp_path, parley_home):
    store = SecretStore()
    with pytest.raises(SecretStoreError, match="was not saved") as caught:
        store.store("provider:openai", KEY)
    assert "No OS keyring" in str(caught.value) and "session only" in str(caught.value)
    assert store.lookup("provider:openai") is None
    store.store_for_session("provider:openai", KEY)
    assert store.lookup("provider:openai") == KEY and store.location("provider:openai") == "session"
    assert SecretStore().lookup("provider:openai") is None  # memory only
    assert store.delete("provider:openai") == ["session"]
    assert not parley_home.exists() or KEY not in "".join(p.read_text() for p in parley_home.rglob("*")
                                                          if p.is_file())


def test_locked_keyring_reading_says_so(locked_keyring):
    store = SecretStore()
    with pytest.raises(SecretStoreError, match="locked"):
        store.lookup("provider:openai")
    with pytest.raises(SecretStoreError, match=r"was not saved.*locked"):
        store.store("provider:openai", KEY)


def test_session_key_shadows_the_keyring(memory_keyring):
    store = SecretStore()
    store.store("provider:p", KEY)
    store.store_for_session("provider:p", "session-key-not-real")
    assert store.lookup("provider:p") == "session-key-not-real"
    store.store("provider:p", "newer-key-not-real")  # saving moves it out of the session
    assert store.location("provider:p") == "keyring" and store.lookup("provider:p") == "newer-key-not-real"


@pytest.mark.parametrize(("value", "message"), [("   \n", "empty"), ("abc\ndef", "several lines")])
def test_bad_keys_are_refused(memory_keyring, value, message):
    with pytest.raises(ValueError, match=message):
        SecretStore().store("provider:p", value)
    assert memory_keyring.entries == {}


def test_move_keeps_a_key_where_it_was_under_the_new_name(memory_keyring):
    store = SecretStore()
    store.store("mcp:web:Authorization", KEY)
    assert store.move("mcp:web:Authorization", "mcp:site:Authorization") == "keyring"
    assert memory_keyring.entries == {(SERVICE, "mcp:site:Authorization"): KEY}
    store.store_for_session("mcp:gh:TOKEN", KEY)
    assert store.move("mcp:gh:TOKEN", "mcp:hub:TOKEN") == "session"
    assert store.location("mcp:hub:TOKEN") == "session" and store.location("mcp:gh:TOKEN") is None
    assert store.move("mcp:none:X", "mcp:other:X") is None
    assert (SERVICE, "mcp:other:X") not in memory_keyring.entries
