"""A bug inside a run reaches the real window through LiveRuns' typed ``crashed`` signal: the chat names it as
Parley's bug, the composer is usable again and the run is forgotten, so the next message can be sent."""

from __future__ import annotations

from typing import Any

from app.paths import resolve_paths
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer
from tests.support.session_window import shown_session_window
from tests.support.window_snapshot import snapshot, until


async def broken_run(*_args: Any, **_kwargs: Any) -> Any:
    raise ZeroDivisionError("a bug in the run service")


def test_a_bug_in_a_run_is_named_in_the_chat_and_the_composer_comes_back(qtbot, qasync_loop, loopback: LoopbackServer,
                                                                         monkeypatch):
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)
    window, session = shown_session_window(qtbot)
    crashes: list[tuple[Any, str]] = []
    session.controller.crashed.connect(lambda live, trace: crashes.append((live, trace)))
    monkeypatch.setattr("app.session.run_controller.run", broken_run)  # the bug: what the controller runs raises

    session.send("hello")
    until(qasync_loop, lambda: bool(crashes))

    (live, trace), = crashes
    assert live.conversation_id == session.conversation_id and "ZeroDivisionError" in trace
    shot = snapshot(window)
    assert "Internal error in Parley (this is a bug): ZeroDivisionError: a bug in the run service" in shot["chat"]
    assert not shot["running"]
    assert not session.controller.running and session.controller.get(live.conversation_id) is None
