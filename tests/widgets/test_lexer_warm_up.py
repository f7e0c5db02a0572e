"""The syntax lexers are built when the first answer begins, not at start (issue 17: 3 to 7 MB of idle memory),
one per event-loop turn, and only once per process."""

from __future__ import annotations

import pytest

from widgets import code_highlighter
from widgets.chat_view import ChatView
from widgets.code_highlighter import WARM_LANGUAGES, _lexer


@pytest.fixture
def cold_lexers(monkeypatch):
    monkeypatch.setattr(code_highlighter, "_warm_up_started", False)
    _lexer.cache_clear()
    yield
    _lexer.cache_clear()


def test_a_shown_view_builds_no_lexer_until_an_answer_begins(qtbot, cold_lexers):
    view = ChatView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(800)  # past the half-second after the first paint when the lexers used to be warmed
    assert _lexer.cache_info().currsize == 0
    view.add_user_message("hello")
    view.begin_assistant()
    assert _lexer.cache_info().currsize == 0  # not in this call: one lexer a turn, from the event loop
    qtbot.waitUntil(lambda: _lexer.cache_info().currsize == len(WARM_LANGUAGES), timeout=10_000)
    view.append_content("```python\nx = 1\n```\n")
    view.end_assistant("stop")
    built = _lexer.cache_info().misses
    view.begin_assistant()  # a second answer warms nothing again
    qtbot.wait(100)
    assert _lexer.cache_info().misses == built
