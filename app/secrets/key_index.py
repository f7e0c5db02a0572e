"""Which keyring entries hold a key, remembered as booleans so that a run for a keyless provider does not open the
keyring.

Opening the keyring costs about 13 MB and 100 ms (the backend search imports D-Bus, cryptography and
secretstorage). Every run looks its provider's key up, and most local servers have none. This note, a small JSON
file beside the settings (``stored_keys.json``), says per entry name whether a key was stored: ``SecretStore``
sets it whenever it stores or deletes a key (Preferences, ``parley keys``, ``parley providers``) and whenever it
asks the keyring itself. An entry with no note (a file from before this note, or none at all) is looked up in the
keyring once and the answer recorded. Only entry names and booleans are written here, never a key.

A key put in the keyring by another tool (``keyring set parley provider:x``, ``secret-tool store``) after Parley
noted "no key" is not seen by ``SecretStore.lookup``; a send, a connection test or a model listing that would fail
for want of it asks the keyring once with ``SecretStore.recheck`` (off the window's UI thread,
app/session/key_recheck.py), which notes the key found. Limit: lookups that do not fail for a missing key (a web
search backend's, an MCP server's secrets) see such a key only after one of those or after storing it in Parley.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from app.file_write import replace_text

KEY_INDEX_NAME = "stored_keys.json"
KEY_INDEX_VERSION = 1

log = logging.getLogger(__name__)


class KeyIndex:
    """The note file at ``path``. It is read on every question, so another Parley process's change is seen."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, bool]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # unreadable or damaged: every entry is asked for again
            log.warning("ignoring the stored-key note %s: %s", self.path, exc)
            return {}
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            return {}
        return {name: value for name, value in entries.items() if isinstance(name, str) and isinstance(value, bool)}

    def stored(self, name: str) -> bool | None:
        """True when a key was stored for ``name``, False when none was, None when nothing is noted."""
        return self._read().get(name)

    def record(self, name: str, stored: bool) -> None:
        """Note whether ``name`` has a key. A note that cannot be written is logged: the keyring is asked again
        next time, nothing is lost."""
        entries = self._read()
        if entries.get(name) is stored:
            return
        entries[name] = stored
        text = json.dumps({"version": KEY_INDEX_VERSION, "entries": dict(sorted(entries.items()))}, indent=1)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_text(self.path, text + "\n")
        except OSError as exc:
            log.warning("could not note in %s whether %s has a key: %s", self.path, name, exc)
