"""The real window and its session, built synchronously with an in-memory keyring and shown: the setup of tests
that drive the session directly (no model queue, no qasync wait to open it)."""

from __future__ import annotations

from typing import Any

from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.support.memory_keyring import MemoryKeyring


def shown_session_window(qtbot: Any) -> tuple[Any, Any]:
    """``(window, session)`` from ``build_window`` without model discovery, shown; qtbot closes the window."""
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    return window, session


def exposed_session_window(qtbot: Any, width: int, height: int) -> tuple[Any, Any]:
    """``(window, session)`` as ``shown_session_window``, at ``width`` x ``height`` and exposed on screen."""
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    return window, session
