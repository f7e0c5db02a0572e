"""The window's own key store keeps the stored-key note beside its settings (app/secrets/key_index.py), so a
later start answers a keyless provider without opening the keyring and still sends a stored key."""

from __future__ import annotations

import json

from app.paths import resolve_paths
from app.secrets.key_index import KEY_INDEX_NAME
from app.session.gui import build_window

KEY = "test-key-not-real-0077"


def test_the_window_notes_keys_beside_its_settings(qtbot, parley_home, memory_keyring):
    note = resolve_paths().config_dir / KEY_INDEX_NAME
    window, session = build_window(discover=False)
    qtbot.addWidget(window)
    assert session.secrets.lookup("provider:local") is None
    session.secrets.store("provider:vllm", KEY)
    assert json.loads(note.read_text()) == {"version": 1, "entries": {"provider:local": False, "provider:vllm": True}}
    reads: list[str] = []
    real_get = memory_keyring.get_password

    def counted(service: str, name: str) -> str | None:
        reads.append(name)
        return real_get(service, name)

    memory_keyring.get_password = counted  # type: ignore[method-assign]
    later, later_session = build_window(discover=False)  # a later start, reading the same note
    qtbot.addWidget(later)
    assert later_session.secrets.lookup("provider:local") is None
    assert later_session.secrets.lookup("provider:vllm") == KEY
    assert reads == ["provider:vllm"]
