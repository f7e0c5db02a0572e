"""The note of which entries hold a key: a provider with a stored key still gets it, a keyless one stops opening
the keyring once noted, and only booleans are written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.secrets import SERVICE, SecretStore
from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex
from tests.support.memory_keyring import MemoryKeyring

KEY = "test-key-not-real-0042"
REPO = Path(__file__).resolve().parents[3]


class CountingKeyring(MemoryKeyring):
    """The boundary fake, counting how often the keyring is read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return super().get_password(service, username)


def test_a_provider_with_a_stored_key_still_gets_it_and_the_note_holds_no_key(tmp_path):
    backend = CountingKeyring()
    index = KeyIndex(tmp_path / KEY_INDEX_NAME)
    SecretStore(backend, index=index).store("provider:vllm", KEY)
    assert SecretStore(backend, index=KeyIndex(index.path)).lookup("provider:vllm") == KEY  # a later process
    text = index.path.read_text()
    assert KEY not in text
    assert json.loads(text) == {"version": 1, "entries": {"provider:vllm": True}}


def test_a_keyless_provider_is_asked_for_once_then_never_opens_the_keyring(tmp_path):
    backend = CountingKeyring()
    path = tmp_path / KEY_INDEX_NAME
    assert SecretStore(backend, index=KeyIndex(path)).lookup("provider:local") is None
    assert backend.reads == 1 and KeyIndex(path).stored("provider:local") is False
    for _ in range(3):
        assert SecretStore(backend, index=KeyIndex(path)).lookup("provider:local") is None
    assert backend.reads == 1


def test_a_key_stored_before_the_note_existed_is_found_and_noted(tmp_path):
    backend = CountingKeyring()
    backend.entries[(SERVICE, "provider:openai")] = KEY  # stored by a version without the note
    path = tmp_path / KEY_INDEX_NAME
    assert SecretStore(backend, index=KeyIndex(path)).lookup("provider:openai") == KEY
    assert KeyIndex(path).stored("provider:openai") is True


def test_storing_after_a_no_key_note_and_deleting_keep_the_note_right(tmp_path):
    backend = CountingKeyring()
    path = tmp_path / KEY_INDEX_NAME
    gui = SecretStore(backend, index=KeyIndex(path))
    assert gui.lookup("provider:local") is None  # noted: no key
    SecretStore(backend, index=KeyIndex(path)).store("provider:local", KEY)  # e.g. `parley keys set`
    assert gui.lookup("provider:local") == KEY  # the running window reads the note again
    assert gui.move("provider:local", "provider:renamed") == "keyring"
    assert KeyIndex(path).stored("provider:local") is False and KeyIndex(path).stored("provider:renamed") is True
    assert gui.delete("provider:renamed") == ["keyring"]
    assert KeyIndex(path).stored("provider:renamed") is False
    assert gui.lookup("provider:renamed") is None


def test_a_damaged_or_unwritable_note_falls_back_to_the_keyring(tmp_path, caplog):
    backend = CountingKeyring()
    backend.entries[(SERVICE, "provider:x")] = KEY
    path = tmp_path / KEY_INDEX_NAME
    path.write_text("{not json")
    assert SecretStore(backend, index=KeyIndex(path)).lookup("provider:x") == KEY
    assert "ignoring the stored-key note" in caplog.text
    assert KeyIndex(path).stored("provider:x") is True  # rewritten whole
    blocked = KeyIndex(tmp_path / "a-file" / KEY_INDEX_NAME)
    (tmp_path / "a-file").write_text("")
    assert SecretStore(backend, index=blocked).lookup("provider:x") == KEY  # the note cannot be written: logged
    assert "could not note" in caplog.text


LOOKUP = """
import sys
from pathlib import Path
from app.secrets import SecretStore
from app.secrets.key_index import KeyIndex
store = SecretStore(index=KeyIndex(Path(sys.argv[1])))
assert store.lookup("provider:local") is None
print("keyring" in sys.modules)
"""


def _keyring_loaded(note: Path) -> bool:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = subprocess.run([sys.executable, "-c", LOOKUP, str(note)], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_a_process_looking_up_a_noted_keyless_provider_does_not_import_the_keyring(tmp_path):
    note = tmp_path / KEY_INDEX_NAME
    assert _keyring_loaded(note)  # no note yet: the keyring is asked (the check can fail)
    note.write_text(json.dumps({"version": 1, "entries": {"provider:local": False}}))
    assert not _keyring_loaded(note)
