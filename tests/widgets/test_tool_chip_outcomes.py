"""Calls the loop answers without running them read the same live and after reopening the conversation.

A real loop with a scripted model runs a turn of four calls under a limit of three (two of them identical),
into the chat view and the run recorder (a real SQLite file) at once; the reopened conversation is then built
from the stored records as the window builds it.
"""

from __future__ import annotations

import asyncio
import re

from app.session.history_view import chat_messages
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry
from widgets.chat_view import ChatView

SIX_BY_SEVEN = {"expression": "6*7"}
PROMPT = "Work these out."


def chip_lines(view: ChatView) -> list[str]:
    """The chip lines of the document, in the order they are shown."""
    return [line for line in view.toPlainText().splitlines() if re.match(r"^\S+ calculate\(", line)]


def visible_tools():
    registry = default_registry()
    registry.get("calculate").visibility = "primary"  # calculations get a chip here, as web tools do
    return registry


def run_live(qtbot, tmp_path) -> tuple[ChatView, History, int]:
    history = History.open(tmp_path / "history.db")
    conversation = history.create_conversation("sums")
    recorder = RunRecorder(history, conversation)
    view = ChatView()
    qtbot.addWidget(view)

    def emit(event) -> None:
        recorder(event)
        view.handle_event(event)

    model = ScriptedModel([
        Step(calls=[("calculate", SIX_BY_SEVEN), ("calculate", {"expression": "1+1"}),
                    ("calculate", SIX_BY_SEVEN), ("calculate", {"expression": "2+2"})]),
        Step(text=["Done."]),
    ])
    ids = recorder.begin(PROMPT, provider="scripted", model="m")
    view.add_user_message(PROMPT)
    loop = RunLoop(model, visible_tools(), emit, limits=LoopLimits(max_calls_per_turn=3))
    request = RunRequest(model="m", messages=[UserMessage(content=PROMPT)], tool_names=["calculate"],
                         run_id=ids.run_id, conversation_id=str(conversation))
    asyncio.run(loop.run(request))
    view.flush()
    return view, history, conversation


def test_clamped_and_repeated_calls_say_so_live(qtbot, tmp_path):
    view, history, _ = run_live(qtbot, tmp_path)
    lines = chip_lines(view)
    history.close()
    assert len(lines) == 4
    assert re.fullmatch(r'✓ calculate\(expression="6\*7"\) · ok · \d+ ms', lines[0])
    assert re.fullmatch(r'✓ calculate\(expression="1\+1"\) · ok · \d+ ms', lines[1])
    assert lines[2] == '✓ calculate(expression="6*7") · same as call above'
    assert lines[3] == '– calculate(expression="2+2") · not run (limit of 3 per turn)', "in call order, last"
    assert "error" not in lines[3]


def test_reopened_conversation_shows_the_same_outcomes(qtbot, tmp_path):
    live, history, conversation = run_live(qtbot, tmp_path)
    reopened = ChatView()
    qtbot.addWidget(reopened)
    registry = visible_tools()
    reopened.set_messages(chat_messages(history.branch(conversation), lambda name: registry.get(name).visibility))
    history.close()

    def without_durations(lines: list[str]) -> list[str]:
        return [re.sub(r" · \d+ ms$", "", line) for line in lines]

    assert without_durations(chip_lines(reopened)) == without_durations(chip_lines(live))
    assert chip_lines(reopened)[2:] == ['✓ calculate(expression="6*7") · same as call above',
                                       '– calculate(expression="2+2") · not run (limit of 3 per turn)']
