"""Shared pytest setup: offscreen Qt, a private Parley home per test, the recorded provider fixtures, and the
loopback HTTP server."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # so `tests.support` and the app packages import under any runner
    sys.path.insert(0, str(REPO_ROOT))

from tests.support.hypothesis_profiles import load_profile  # noqa: E402
from tests.support.loopback import loopback  # noqa: E402, F401  (re-exported as a fixture)

load_profile()  # `ci` unless HYPOTHESIS_PROFILE says otherwise (tests/support/hypothesis_profiles.py)

SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "providers"


@pytest.fixture
def shared_dir() -> Path:
    """The recorded provider streams in ../shared/fixtures/providers; skips the test when absent."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip("../shared is absent")
    return SHARED_FIXTURES


@pytest.fixture
def qasync_loop(qapp):
    """A qasync event loop on the test QApplication, driven with ``run_until_complete`` (pattern A in the
    Qt notes); teardown cancels what is left and closes it without stopping Qt."""
    import asyncio

    from app.session.asyncgen_hooks import AsyncGenHooks
    from app.session.qasync_loop import QuitSafeEventLoop

    loop = QuitSafeEventLoop(qapp)  # the app's loop (app/session/qasync_loop.py)
    asyncio.set_event_loop(loop)
    hooks = AsyncGenHooks(loop)  # as the app's loop has them (app/session/qt_asyncio.py)
    hooks.install()
    yield loop
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(hooks.shutdown())
    hooks.uninstall()
    loop.close()
    asyncio.set_event_loop(None)
    # Qt objects left in reference cycles (signal connections to closures) must be destroyed here, on the GUI
    # thread: a collection started later by some worker thread would destroy their timers from that thread.
    import gc

    gc.collect()


@pytest.fixture(autouse=True, scope="session")
def _collect_on_the_main_thread_only():
    """The app collects cycles on the GUI thread only (app/session/gui_thread_gc.py); the tests do the same, between
    tests: a collection started by a loopback server's thread could otherwise destroy a Qt object left in a
    cycle by an earlier test from that thread, and crash a later test inside Qt's event processing."""
    import gc

    gc.disable()
    yield
    gc.enable()


@pytest.fixture(autouse=True)
def _collect_after_each_test():
    yield
    import gc

    gc.collect()
    _empty_the_clipboard()


def _empty_the_clipboard() -> None:
    """A test that puts data on the clipboard leaves it owned by the application; on the offscreen platform Qt
    crashes at interpreter exit (a segmentation fault after every test passed) when that data is still there."""
    import sys

    if "PySide6.QtGui" not in sys.modules:
        return
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is not None:
        QGuiApplication.clipboard().clear()


@pytest.fixture(autouse=True)
def parley_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every `parley` process it starts) keeps history and settings in its own temporary folder,
    never in the user's real data directory."""
    home = tmp_path / "parley-home"
    monkeypatch.setenv("PARLEY_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def _damaged_values_counted_per_test() -> Iterator[None]:
    """Damaged history values are counted once per file and process (app/storage/damaged_values.py); each test
    counts its own."""
    from app.storage.damaged_values import forget

    forget()
    yield
    forget()
