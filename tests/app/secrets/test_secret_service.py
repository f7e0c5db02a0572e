"""Keys round-trip through a real Secret Service (gnome-keyring on a private D-Bus session).

scripts/test.sh runs the suite under scripts/with_secret_service.sh when dbus-run-session and gnome-keyring
are installed; without a session bus these tests skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest

from app.secrets import SERVICE, SecretStore

pytestmark = [
    pytest.mark.secret_service,
    pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)"),
]


@pytest.fixture
def secret_service():
    from keyring.backends import SecretService

    return SecretService.Keyring()


def test_probe_finds_a_usable_secret_service(secret_service):
    status = SecretStore(secret_service).status(probe=True)
    assert status.usable, status.problem
    assert status.backend == "keyring.backends.SecretService.Keyring"


def test_key_round_trips_and_is_visible_to_other_secret_service_clients(secret_service):
    store = SecretStore(secret_service)
    name = f"provider:test-{uuid.uuid4().hex[:8]}"
    key = f"test-key-not-real-{uuid.uuid4().hex}"
    store.store(name, key)
    try:
        assert SecretStore(secret_service).lookup(name) == key
        if shutil.which("secret-tool"):
            found = subprocess.run(["secret-tool", "lookup", "service", SERVICE, "username", name],
                                   capture_output=True, text=True, timeout=10)
            assert found.stdout == key
    finally:
        assert store.delete(name) == ["keyring"]
    assert store.lookup(name) is None


def test_a_key_stored_with_the_note_is_read_back_from_the_secret_service_and_a_keyless_entry_is_not_asked(
        secret_service, tmp_path):
    from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex

    note = tmp_path / KEY_INDEX_NAME
    name = f"provider:test-{uuid.uuid4().hex[:8]}"
    key = f"test-key-not-real-{uuid.uuid4().hex}"
    SecretStore(secret_service, index=KeyIndex(note)).store(name, key)
    try:
        assert SecretStore(secret_service, index=KeyIndex(note)).lookup(name) == key  # a later run still sends it
        assert key not in note.read_text()
        keyless = f"provider:test-{uuid.uuid4().hex[:8]}"
        assert SecretStore(secret_service, index=KeyIndex(note)).lookup(keyless) is None
        assert KeyIndex(note).stored(keyless) is False
    finally:
        assert SecretStore(secret_service, index=KeyIndex(note)).delete(name) == ["keyring"]
    assert KeyIndex(note).stored(name) is False
