"""Keyring fixtures for app tests: an in-memory keyring, no keyring at all, and a locked one. Each restores the
backend that was active before."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from tests.support.memory_keyring import LockedKeyring, MemoryKeyring


def _installed(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    yield from _installed(MemoryKeyring())  # type: ignore[misc]


@pytest.fixture
def no_keyring() -> Iterator[KeyringBackend]:
    """What a headless machine without a Secret Service gets: keyring's fail backend."""
    yield from _installed(fail.Keyring())


@pytest.fixture
def locked_keyring() -> Iterator[LockedKeyring]:
    yield from _installed(LockedKeyring())  # type: ignore[misc]
