"""Telling a real keyring from one that fails, forgets or writes plaintext."""

from __future__ import annotations

from keyring.backends import chainer, fail, null

from app.secrets import SERVICE, judge_backend, probe_keyring
from tests.support.memory_keyring import LockedKeyring, MemoryKeyring


class PlaintextKeyring(MemoryKeyring):
    """Stands in for keyrings.alt.file.PlaintextKeyring (same module path), which is not installed."""


PlaintextKeyring.__module__ = "keyrings.alt.file"


def test_fail_and_null_backends_are_unusable_with_an_actionable_message():
    for backend in (fail.Keyring(), null.Keyring()):
        status = judge_backend(backend)
        assert not status.usable
        assert "No OS keyring" in status.problem and "gnome-keyring" in status.problem
        assert "plain files" in status.problem and "--api-key-env" in status.problem


def test_plaintext_backend_is_unusable():
    status = probe_keyring(PlaintextKeyring())
    assert not status.usable and "keyrings.alt" in status.problem
    assert status.backend == "keyrings.alt.file.PlaintextKeyring"


def test_chainer_is_judged_by_its_first_backend(monkeypatch):
    first = PlaintextKeyring()
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [first, MemoryKeyring()])
    assert not judge_backend(chainer.ChainerBackend()).usable
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [MemoryKeyring(), first])
    assert judge_backend(chainer.ChainerBackend()).usable


def test_probe_stores_reads_and_removes_a_test_entry():
    backend = MemoryKeyring()
    status = probe_keyring(backend)
    assert status.usable and status.problem is None
    assert backend.entries == {}


def test_locked_keyring_is_reported():
    status = probe_keyring(LockedKeyring())
    assert not status.usable and "locked" in status.problem and "Unlock it" in status.problem


def test_a_keyring_that_loses_values_is_unusable():
    class Forgetful(MemoryKeyring):
        def get_password(self, service, username):
            return None

    status = probe_keyring(Forgetful())
    assert not status.usable and "did not return" in status.problem
    assert SERVICE == "parley"
