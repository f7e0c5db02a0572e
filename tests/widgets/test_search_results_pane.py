"""The search-results pane fed by scripted run event streams."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QLabel

from tests.support.run_script import RunScript, search_hit
from widgets.search_results_pane import EMPTY_TEXT, SearchResultsPane


class RecordingOpener:
    """Stands in for the system browser: records the URLs it was asked to open."""

    def __init__(self, succeeds: bool = True) -> None:
        self.opened: list[str] = []
        self.succeeds = succeeds

    def __call__(self, url: QUrl) -> bool:
        self.opened.append(url.toString())
        return self.succeeds


@pytest.fixture
def opener() -> RecordingOpener:
    return RecordingOpener()


@pytest.fixture
def pane(qtbot, opener) -> SearchResultsPane:
    widget = SearchResultsPane(open_url=opener)
    qtbot.addWidget(widget)
    widget.resize(360, 600)
    widget.show()
    return widget


def feed(pane: SearchResultsPane, *events) -> None:
    for event in events:
        if isinstance(event, list):
            feed(pane, *event)
        else:
            pane.handle_event(event)


def titles(pane: SearchResultsPane) -> list[str]:
    return [entry.title for entry in pane.entries()]


def test_results_appear_as_they_arrive_with_title_host_and_snippet(qtbot, pane):
    script = RunScript()
    feed(pane, script.started())
    assert pane.summary_text() == EMPTY_TEXT
    feed(pane, script.search("qt widgets", [
        search_hit("https://doc.qt.io/qt-6/qwidget.html", "QWidget Class", "The base class of all UI objects."),
        search_hit("https://www.example.org/qt", "Example", "Another page."),
    ]))
    cards = pane.result_cards()
    assert [card.entry.title for card in cards] == ["QWidget Class", "Example"]
    assert [card.entry.host for card in cards] == ["doc.qt.io", "example.org"]
    assert cards[0].accessibleName() == "QWidget Class"
    assert "The base class of all UI objects." in cards[0].accessibleDescription()
    assert pane.summary_text() == "1 search · 2 results"
    assert pane.queries_text() == "“qt widgets” · 2 results"


def test_results_of_several_searches_are_deduplicated(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(),
         script.search("one", [search_hit("https://example.org/a", "A"), search_hit("https://example.org/b", "B")]),
         script.search("two", [search_hit("https://EXAMPLE.org/a/#part", "A dup"),
                               search_hit("https://example.org/c", "C")]))
    assert titles(pane) == ["A", "B", "C"]
    assert len(pane.result_cards()) == 3
    assert pane.summary_text() == "2 searches · 3 results"


def test_every_search_is_counted_and_listed_even_when_it_found_nothing_new(qtbot, pane):
    script = RunScript()
    hits = [search_hit(f"https://example.org/{n}", f"Page {n}") for n in range(4)]
    feed(pane, script.started(), script.search("rust async runtime", hits))
    feed(pane, script.search("tokio vs async-std", hits[1:3]))  # only pages the first search found
    assert pane.summary_text() == "2 searches · 4 results"
    assert pane.queries_text() == "“rust async runtime” · 4 results\n“tokio vs async-std” · 2 results"
    feed(pane, script.search("nothing matches this", []))
    assert pane.summary_text() == "3 searches · 4 results"
    assert pane.queries_text().splitlines()[-1] == "“nothing matches this” · 0 results"


def test_a_search_without_results_still_shows_its_query(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.search("an obscure phrase", []))
    assert pane.summary_text() == "1 search · 0 results"
    assert pane.queries_text() == "“an obscure phrase” · 0 results"


def test_fetch_marks_a_listed_entry_read_and_moves_it_to_the_read_section(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(),
         script.search("q", [search_hit("https://example.org/a", "A"), search_hit("https://example.org/b", "B")]),
         script.fetch("https://example.org/b/", "B page"))
    assert titles(pane) == ["B", "A"]
    assert [entry.read for entry in pane.entries()] == [True, False]
    read_card = pane.result_cards()[0]
    assert "read by the model" in read_card.accessibleDescription()
    assert read_card.property("read") is True
    assert pane.summary_text() == "1 search · 2 results · 1 read"


def test_fetch_of_an_unlisted_page_adds_a_read_entry(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.search("q", [search_hit("https://example.org/a", "A")]),
         script.fetch("https://other.org/page", "Other page", truncated=True))
    assert titles(pane) == ["Other page", "A"]
    entry = pane.entries()[0]
    assert (entry.read, entry.found, entry.truncated) == (True, False, True)


def test_failed_tools_and_other_tools_add_nothing(qtbot, pane):
    script = RunScript()
    calls, call_id = script.tool_calls("calculate", {"expression": "1+1"})
    feed(pane, script.started(), calls,
         script.tool_result(call_id, "calculate", None, category="utility", result="2"),
         script.fetch("https://example.org/gone", status="error"))
    assert pane.entries() == []
    assert pane.summary_text() == EMPTY_TEXT


def test_visibility_is_wanted_on_the_first_result_and_released_when_the_answer_starts(qtbot, pane):
    script = RunScript()
    seen: list[bool] = []
    pane.visibility_wanted.connect(seen.append)
    feed(pane, script.started(), script.content("Let me search. "))
    assert seen == [], "text before any result does not hide a pane that was never shown"
    feed(pane, script.search("q", []))
    assert seen == [], "a search without results shows nothing"
    feed(pane, script.search("q2", [search_hit("https://example.org/a")]))
    feed(pane, script.search("q3", [search_hit("https://example.org/b")]))
    assert seen == [True]
    script.next_call()
    feed(pane, script.content("The answer"), script.content(" goes on"))
    assert seen == [True, False]
    feed(pane, script.done())
    assert seen == [True, False]


def test_visibility_is_wanted_again_in_the_next_run(qtbot, pane):
    seen: list[bool] = []
    pane.visibility_wanted.connect(seen.append)
    for run_id in ("run-a", "run-b"):
        script = RunScript(run_id)
        feed(pane, script.started(), script.fetch("https://example.org/a", "A"), script.content("x"), script.done())
    assert seen == [True, False, True, False]


def test_clicking_an_entry_opens_it_through_the_opener(qtbot, pane, opener):
    script = RunScript()
    feed(pane, script.started(), script.search("q", [search_hit("https://example.org/a?x=1", "A")]))
    card = pane.result_cards()[0]
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert opener.opened == ["https://example.org/a?x=1"]
    card.setFocus()
    qtbot.keyClick(card, Qt.Key.Key_Return)
    assert opener.opened == ["https://example.org/a?x=1"] * 2


def test_only_http_and_https_urls_are_opened(qtbot, pane, opener):
    script = RunScript()
    feed(pane, script.started(), script.search("q", [search_hit("javascript:alert(1)", "Bad"),
                                                      search_hit("file:///etc/passwd", "Local")]))
    for card in pane.result_cards():
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert opener.opened == []
    assert not pane.open_entry("ftp://example.org/f")
    assert opener.opened == []


def test_a_browser_that_fails_to_open_is_reported_in_the_pane(qtbot):
    opener = RecordingOpener(succeeds=False)
    pane = SearchResultsPane(open_url=opener)
    qtbot.addWidget(pane)
    assert not pane.open_entry("https://example.org/a")
    assert "Could not open https://example.org/a" in pane.notice_text()


def test_web_text_is_shown_as_plain_text(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(),
         script.search("q", [search_hit("https://example.org/a", "<b>bold</b> <img src='https://x.y/i.png'>")]))
    title = pane.result_cards()[0].findChild(QLabel, "resultTitle")
    assert title.textFormat() == Qt.TextFormat.PlainText
    assert title.text() == "<b>bold</b> <img src='https://x.y/i.png'>"


def test_a_new_run_clears_the_results(qtbot, pane):
    first = RunScript("run-a")
    feed(pane, first.started(), first.search("q", [search_hit("https://example.org/a")]), first.done())
    second = RunScript("run-b")
    feed(pane, second.started())
    assert pane.entries() == []
    assert pane.summary_text() == EMPTY_TEXT
    feed(pane, first.search("late", [search_hit("https://example.org/late")]))
    assert pane.entries() == [], "events of an earlier run are ignored"
    feed(pane, second.search("q", [search_hit("https://example.org/b", "B")]))
    assert titles(pane) == ["B"]
