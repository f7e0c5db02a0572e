"""API keys: kept in the OS keyring, or in memory for this session when the user chooses so; never in a file.

``SecretStore.lookup`` is the ``secret_lookup`` callable the rest of the app receives: it takes an entry name
(``provider:<id>``, ``search:<backend>``) and returns the key or None. A session key shadows the keyring's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from app.errors import EnvironmentProblem
from app.secrets.key_index import KeyIndex
from app.secrets.names import SERVICE
from app.secrets.probe import (
    Backend,
    KeyringStatus,
    UnloadableBackend,
    effective_backend,
    explain_keyring_failure,
    judge_backend,
    probe_keyring,
)

if TYPE_CHECKING:  # keyring itself is imported when a backend is first needed (probe.py)
    from keyring.backend import KeyringBackend

SecretLookup = Callable[[str], str | None]
KeyLocation = Literal["session", "keyring"]


class SecretStoreError(EnvironmentProblem):
    """The keyring cannot be used for this; the message says why and what to do."""


def clean_key(value: str) -> str:
    """A key as typed or piped: surrounding whitespace removed; empty or multi-line keys are refused."""
    key = value.strip()
    if not key:
        raise ValueError("the key is empty")
    if "\n" in key or "\r" in key:
        raise ValueError("the key spans several lines; paste it on one line")
    return key


StatusListener = Callable[[KeyringStatus], None]


class SecretStore:
    """Keys by entry name. The keyring's backend is looked for when a key is first read, stored or deleted (or
    the status asked for), not when the store is made: that search imports every backend's libraries.

    With an ``index`` (key_index.py), an entry noted as having no key is answered None without opening the
    keyring; storing and deleting keep the note right."""

    def __init__(self, backend: KeyringBackend | None = None, *, index: KeyIndex | None = None) -> None:
        self._backend = backend
        self._index = index
        self._session: dict[str, str] = {}
        self._known = backend is not None  # a given backend is known; the keyring's own choice once looked for
        self._listeners: list[StatusListener] = []

    def _chosen(self) -> Backend:
        chosen = effective_backend(self._backend)
        if not self._known:
            self._known = True
            listeners, self._listeners = self._listeners, []
            status = judge_backend(chosen)
            for listener in listeners:
                listener(status)
        return chosen

    def known_status(self) -> KeyringStatus | None:
        """The keyring's status (judged, no probe) if its backend is already known; None before its first use, so
        that asking costs nothing."""
        return judge_backend(self._chosen()) if self._known else None

    def on_first_use(self, listener: StatusListener) -> None:
        """Call ``listener`` with the keyring's status once its backend is first looked for (at once if it is
        known). It runs on the thread that used the store: a worker thread for an MCP server's keys."""
        if self._known:
            listener(judge_backend(self._chosen()))
        else:
            self._listeners.append(listener)

    @property
    def backend(self) -> KeyringBackend:
        """The backend to use, once ``judge_backend`` found it usable (so it could be loaded)."""
        chosen = self._chosen()
        if isinstance(chosen, UnloadableBackend):
            raise SecretStoreError(chosen.problem)
        return chosen

    def status(self, *, probe: bool = True) -> KeyringStatus:
        """Whether keys can be kept in the keyring; ``probe`` also stores and deletes a test entry."""
        return probe_keyring(self._chosen()) if probe else judge_backend(self._chosen())

    def lookup(self, name: str) -> str | None:
        """The key for an entry, from this session or the keyring; None when there is none (or no keyring).

        Raises SecretStoreError when a keyring exists but cannot be read (locked, dismissed prompt, D-Bus error).
        """
        if name in self._session:
            return self._session[name]
        if self._index is not None and self._index.stored(name) is False:
            return None
        return self._ask_keyring(name)

    def noted_missing(self, name: str) -> bool:
        """True when ``lookup`` answers None for ``name`` from the note alone (no session key, noted "no key"),
        without having asked the keyring: a key added since by another tool is not seen until ``recheck``."""
        return name not in self._session and self._index is not None and self._index.stored(name) is False

    def recheck(self, name: str) -> str | None:
        """The key for ``name``, asking the keyring even when the note says "no key" (``secret-tool store`` or
        ``keyring set`` since); the note follows the answer. Opens the keyring and may wait on D-Bus or an unlock
        prompt: the window calls it off the UI thread. Raises SecretStoreError as ``lookup`` does."""
        if name in self._session:
            return self._session[name]
        return self._ask_keyring(name)

    def _ask_keyring(self, name: str) -> str | None:
        verdict = judge_backend(self._chosen())
        if not verdict.usable:
            return None
        try:
            key = self.backend.get_password(SERVICE, name)
        except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
            raise SecretStoreError(f"Could not read {name} from the keyring. "
                                   f"{explain_keyring_failure(exc, verdict.backend)}") from exc
        self._note(name, key is not None)
        return key

    def _note(self, name: str, stored: bool) -> None:
        if self._index is not None:
            self._index.record(name, stored)

    def store(self, name: str, value: str) -> None:
        """Save a key in the keyring. Refuses (SecretStoreError) when there is no usable keyring: no plaintext."""
        key = clean_key(value)
        verdict = judge_backend(self._chosen())
        if not verdict.usable:
            raise SecretStoreError(f"{name} was not saved. {verdict.problem}")
        try:
            self.backend.set_password(SERVICE, name, key)
        except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
            raise SecretStoreError(f"{name} was not saved. {explain_keyring_failure(exc, verdict.backend)}") from exc
        self._note(name, True)
        self._session.pop(name, None)

    def store_for_session(self, name: str, value: str) -> None:
        """Keep a key in memory only, until this process ends."""
        self._session[name] = clean_key(value)

    def delete(self, name: str) -> list[KeyLocation]:
        """Remove the key from this session and the keyring; returns where it was found."""
        import keyring.errors

        removed: list[KeyLocation] = []
        if self._session.pop(name, None) is not None:
            removed.append("session")
        verdict = judge_backend(self._chosen())
        if not verdict.usable:
            return removed
        try:
            if self.backend.get_password(SERVICE, name) is None:
                self._note(name, False)
                return removed
            self.backend.delete_password(SERVICE, name)
        except keyring.errors.PasswordDeleteError:
            self._note(name, False)
            return removed
        except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
            raise SecretStoreError(f"Could not delete {name} from the keyring. "
                                   f"{explain_keyring_failure(exc, verdict.backend)}") from exc
        self._note(name, False)
        removed.append("keyring")
        return removed

    def move(self, old: str, new: str) -> KeyLocation | None:
        """Keep the key of ``old`` under ``new``, where it was (keyring or session), and remove ``old``; None when
        ``old`` had no key. A key already under ``new`` is replaced."""
        if old in self._session:
            self._session[new] = self._session.pop(old)
            return "session"
        value = self.lookup(old)
        if value is None:
            return None
        self.store(new, value)
        self.delete(old)
        return "keyring"

    def location(self, name: str) -> KeyLocation | None:
        """Where the key for ``name`` is kept, without returning it."""
        if name in self._session:
            return "session"
        return "keyring" if self.lookup(name) is not None else None

