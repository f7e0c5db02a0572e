"""Is the OS keyring usable? A judgement of the backend (no I/O) and a probe that stores and removes a test entry.

The ``keyring`` package quietly picks a backend that cannot keep secrets when there is no real one: ``fail``
(raises on use), ``null`` (forgets everything) or, when keyrings.alt is installed, a plaintext file. Parley
treats all of those as "no keyring", and says so in words a user can act on, rather than storing keys where
they would leak or vanish.

The ``keyring`` package is imported when a backend is first needed, not with this module: importing it and
choosing a backend loads every backend's libraries (D-Bus, cryptography: about 13 MB and 150 ms), which a
window that never touches a key does not need (issue 17, bench/RESULTS.md).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from app.secrets.names import SERVICE

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

# Backends (by module prefix) that do not keep secrets safely: they fail, forget, or write plaintext files.
UNUSABLE_BACKEND_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")
PROBE_ENTRY_PREFIX = "probe:"

NO_PLAINTEXT = "Parley does not store keys in plain files."
SESSION_HINT = "You can still use a key for this session only (kept in memory; on the command line: --api-key-env VAR)."


BACKEND_NAMES = {
    "keyring.backends.SecretService.Keyring": "Secret Service",
    "keyring.backends.libsecret.Keyring": "Secret Service (libsecret)",
    "keyring.backends.kwallet.DBusKeyring": "KWallet",
    "keyring.backends.kwallet.DBusKeyringKWallet4": "KWallet 4",
    "keyring.backends.macOS.Keyring": "macOS Keychain",
    "keyring.backends.Windows.WinVaultKeyring": "Windows Credential Manager",
    "keyring.backends.chainer.ChainerBackend": "several keyrings",
}


def backend_display_name(backend: str) -> str:
    """A name for the status bar: "Secret Service" for ``keyring.backends.SecretService.Keyring``; for a backend
    not listed, its class name."""
    return BACKEND_NAMES.get(backend, backend.rsplit(".", 1)[-1])


@dataclass(frozen=True)
class KeyringStatus:
    usable: bool
    backend: str  # the backend's class, for messages and `parley keys status`
    problem: str | None = None  # why it is not usable, written for the user


class UnloadableBackend:
    """Stands for the backend the keyring configuration names when it cannot be loaded (a misspelt
    PYTHON_KEYRING_BACKEND, a package that is not installed): judged unusable, with the reason."""

    def __init__(self, name: str, problem: str) -> None:
        self.name = name
        self.problem = problem


Backend: TypeAlias = "KeyringBackend | UnloadableBackend"


def _unloadable(exc: Exception) -> UnloadableBackend:
    detail = str(exc).strip() or type(exc).__name__
    from keyring.util import platform_

    named = os.environ.get("PYTHON_KEYRING_BACKEND")
    if named is not None:
        return UnloadableBackend(named, (
            f"PYTHON_KEYRING_BACKEND={named} names a keyring backend that cannot be loaded ({detail}). Unset it, or "
            "name one that is installed, such as keyring.backends.SecretService.Keyring."))
    config = platform_.config_root() / "keyringrc.cfg"
    return UnloadableBackend(str(config), (
        f"The keyring configuration {config} names a backend that cannot be loaded ({detail}). Correct or remove "
        "its default-keyring setting."))


def configured_backend() -> Backend:
    """The keyring package's choice of backend, or an UnloadableBackend when its configuration is broken."""
    import keyring

    try:
        return keyring.get_keyring()
    except Exception as exc:  # loading runs the configured module: any error means "cannot be loaded"
        return _unloadable(exc)


def effective_backend(backend: Backend | None = None) -> Backend:
    """The backend that would store a new secret: a chainer's first backend, else the backend itself."""
    from keyring.backends.chainer import ChainerBackend

    backend = backend or configured_backend()
    if isinstance(backend, ChainerBackend):
        chained: list[KeyringBackend] = list(backend.backends)
        if chained:
            return chained[0]
    return backend


def backend_name(backend: Backend) -> str:
    if isinstance(backend, UnloadableBackend):
        return backend.name
    cls = type(backend)
    return f"{cls.__module__}.{cls.__name__}"


def judge_backend(backend: Backend | None = None) -> KeyringStatus:
    """Whether the backend is a real keyring, from its type alone (no prompts, no I/O)."""
    chosen = effective_backend(backend)
    name = backend_name(chosen)
    if isinstance(chosen, UnloadableBackend):
        return KeyringStatus(False, name, f"{chosen.problem} {NO_PLAINTEXT} {SESSION_HINT}")
    module = type(chosen).__module__
    if not module.startswith(UNUSABLE_BACKEND_MODULES):
        return KeyringStatus(True, name)
    if module.startswith("keyrings.alt"):
        problem = (f"The keyring backend {name} keeps keys in a file on disk, not in the OS keyring. "
                   f"{NO_PLAINTEXT} Uninstall keyrings.alt or choose a system keyring (PYTHON_KEYRING_BACKEND).")
    else:
        problem = ("No OS keyring is available (no Secret Service, macOS Keychain or Windows Credential Locker "
                   "was found). On Linux, install and start gnome-keyring or KWallet, usually part of a desktop "
                   f"session. {NO_PLAINTEXT}")
    return KeyringStatus(False, name, f"{problem} {SESSION_HINT}")


def explain_keyring_failure(exc: BaseException, backend: str) -> str:
    import keyring.errors

    if isinstance(exc, keyring.errors.KeyringLocked):
        return (f"The keyring ({backend}) is locked, or the request to unlock it was dismissed. Unlock it and "
                f"try again. {SESSION_HINT}")
    detail = str(exc).strip() or type(exc).__name__
    return f"The keyring ({backend}) did not work: {detail}. {SESSION_HINT}"


def probe_keyring(backend: Backend | None = None) -> KeyringStatus:
    """Judge the backend, then store, read back and delete a random entry. May show an unlock prompt."""
    chosen = effective_backend(backend)
    verdict = judge_backend(chosen)
    if not verdict.usable or isinstance(chosen, UnloadableBackend):
        return verdict
    entry = PROBE_ENTRY_PREFIX + secrets.token_hex(8)
    value = secrets.token_urlsafe(16)
    try:
        chosen.set_password(SERVICE, entry, value)
        try:
            read_back = chosen.get_password(SERVICE, entry)
        finally:
            chosen.delete_password(SERVICE, entry)
    except Exception as exc:  # third-party backends raise many kinds (D-Bus, OS, keyring errors); all mean "unusable"
        return KeyringStatus(False, verdict.backend, explain_keyring_failure(exc, verdict.backend))
    if read_back != value:
        return KeyringStatus(False, verdict.backend, f"The keyring ({verdict.backend}) did not return what was "
                                                     f"stored in it. {SESSION_HINT}")
    return verdict
