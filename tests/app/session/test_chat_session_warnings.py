"""The window's warning banner after reopening a conversation: the last run's stored warnings come back."""

from __future__ import annotations

import asyncio

from app.paths import resolve_paths
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.support.session_window import shown_session_window
from tools import default_registry


def record_clamped_run(history: History, conversation: int) -> None:
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("Sum these", provider="scripted", model="m")
    model = ScriptedModel([Step(calls=[("calculate", {"expression": f"{n}+1"}) for n in range(3)]),
                           Step(text=["Done."])])
    loop = RunLoop(model, default_registry(), recorder, limits=LoopLimits(max_calls_per_turn=2))
    asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="Sum these")],
                                    tool_names=["calculate"], run_id=ids.run_id,
                                    conversation_id=str(conversation))))


def test_reopening_a_conversation_shows_its_last_runs_warnings_again(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        clamped = history.create_conversation("clamped")
        record_clamped_run(history, clamped)
        quiet = history.create_conversation("quiet")
        quiet_recorder = RunRecorder(history, quiet)
        ids = quiet_recorder.begin("hi", provider="scripted", model="m")
        asyncio.run(RunLoop(ScriptedModel([Step(text=["Hello."])]), default_registry(), quiet_recorder).run(
            RunRequest(model="m", messages=[UserMessage(content="hi")], run_id=ids.run_id)))

    window, session = shown_session_window(qtbot)
    session.open_conversation(clamped)
    assert not window.banner.isHidden()
    (message,) = window.banner.messages()
    assert "limit: 2 per turn" in message

    session.open_conversation(quiet)
    assert window.banner.isHidden() and window.banner.messages() == []
    session.open_conversation(clamped)
    assert len(window.banner.messages()) == 1, "closing or leaving does not lose them: they come back with the run"
    session.new_chat()
    assert window.banner.isHidden()
    session.history.close()
