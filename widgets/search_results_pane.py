"""The search-results pane: web results as they arrive, pages the model read kept apart from ones it only found.

It consumes run events only (``tool_result`` events whose ``data`` comes from the web tools; see
``widgets.search_results``). Clicking an entry opens it in the system browser, and only http and https URLs are
ever opened. The pane asks to be shown (``visibility_wanted(True)``) on the first result of a run and to be put
away (``visibility_wanted(False)``) when the answer text starts after that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never, cast

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from widgets.run_filter import from_earlier_run
from widgets.safe_text import plain_tooltip
from widgets.search_results import ResultEntry, SearchResults, is_openable

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import RunEvent

UrlOpener = Callable[[QUrl], bool]

EMPTY_TEXT = "Web results appear here when the model searches."
READ_SECTION_TITLE = "Read by the model"
FOUND_SECTION_TITLE = "Found"


def _plain_label(text: str, object_name: str, parent: QWidget) -> QLabel:
    """A label that never interprets web text as rich text."""
    label = QLabel(text, parent)
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ResultCard(QFrame):
    """One entry: title, host (with a "Read" badge for fetched pages) and snippet. Click, Enter or Space opens it."""

    activated = Signal(str)

    def __init__(self, entry: ResultEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultCard")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._title = _plain_label("", "resultTitle", self)
        self._title.setWordWrap(True)
        self._host = _plain_label("", "resultHost", self)
        self._badge = _plain_label("Read", "readBadge", self)
        self._badge.setAccessibleName("Read by the model")
        self._snippet = _plain_label("", "resultSnippet", self)
        self._snippet.setWordWrap(True)
        meta = QHBoxLayout()
        meta.setContentsMargins(0, 0, 0, 0)
        meta.setSpacing(6)
        meta.addWidget(self._host)
        meta.addWidget(self._badge)
        meta.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(3)
        layout.addWidget(self._title)
        layout.addLayout(meta)
        layout.addWidget(self._snippet)
        self.update_entry(entry)

    def update_entry(self, entry: ResultEntry) -> None:
        self.entry = entry
        self._title.setText(entry.title)
        self._host.setText(entry.host or entry.url)
        self._badge.setText("Read · truncated" if entry.truncated else "Read")
        self._badge.setVisible(entry.read)
        self._snippet.setText(entry.snippet)
        self._snippet.setVisible(bool(entry.snippet))
        openable = is_openable(entry.url)
        self.setCursor(Qt.CursorShape.PointingHandCursor if openable else Qt.CursorShape.ArrowCursor)
        self.setToolTip(plain_tooltip(entry.url if openable else f"{entry.url} (not a web page; not opened)"))
        state = "read by the model" if entry.read else "found"
        self.setAccessibleName(entry.title)
        self.setAccessibleDescription(f"{entry.host or entry.url}, {state}. {entry.snippet}".strip())
        self.setProperty("read", entry.read)
        self.style().unpolish(self)
        self.style().polish(self)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.activated.emit(self.entry.url)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.activated.emit(self.entry.url)
            event.accept()
            return
        super().keyPressEvent(event)


class _Section(QWidget):
    """A titled list of cards; hidden while it has none."""

    def __init__(self, title: str, parent: QWidget) -> None:
        super().__init__(parent)
        self._base_title = title
        self._title = _plain_label(title, "sectionTitle", self)
        self._cards = QVBoxLayout()
        self._cards.setContentsMargins(0, 0, 0, 0)
        self._cards.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self._title)
        layout.addLayout(self._cards)
        self.hide()

    def add(self, card: ResultCard) -> None:
        self._cards.addWidget(card)
        self._refresh()

    def take(self, card: ResultCard) -> None:
        self._cards.removeWidget(card)
        self._refresh()

    def cards(self) -> list[ResultCard]:
        items = (self._cards.itemAt(i) for i in range(self._cards.count()))
        return [cast(ResultCard, item.widget()) for item in items if item is not None]  # the layout holds only cards

    def _refresh(self) -> None:
        self._title.setText(f"{self._base_title} ({self._cards.count()})")
        self.setVisible(self._cards.count() > 0)


class SearchResultsPane(QWidget):
    """Shows one run's web results; feed it every run event through ``handle_event``.

    ``open_url`` opens a link (``QDesktopServices.openUrl`` unless a test passes its own).
    """

    visibility_wanted = Signal(bool)

    def __init__(self, parent: QWidget | None = None, *, open_url: UrlOpener = QDesktopServices.openUrl) -> None:
        super().__init__(parent)
        self.setObjectName("searchResultsPane")
        self._open_url = open_url
        self._results = SearchResults()
        self._cards: dict[str, ResultCard] = {}
        self._run_id: str | None = None
        self._shown_for_run = False
        self._hidden_for_answer = False

        self._summary = _plain_label(EMPTY_TEXT, "paneStatus", self)
        self._summary.setWordWrap(True)
        self._summary.setAccessibleName("Search results summary")
        self._queries = _plain_label("", "paneDetail", self)
        self._queries.setWordWrap(True)
        self._queries.setAccessibleName("Search queries")
        self._queries.hide()
        self._notice = _plain_label("", "paneNotice", self)
        self._notice.setWordWrap(True)
        self._notice.setAccessibleName("Search results notice")
        self._notice.hide()

        content = QWidget()
        content.setObjectName("resultsContent")
        self._read = _Section(READ_SECTION_TITLE, content)
        self._found = _Section(FOUND_SECTION_TITLE, content)
        content_layout = QVBoxLayout(content)
        content_layout.setContentsMargins(0, 0, 4, 0)
        content_layout.setSpacing(12)
        content_layout.addWidget(self._read)
        content_layout.addWidget(self._found)
        content_layout.addStretch(1)
        self._scroll = QScrollArea(self)
        self._scroll.setObjectName("resultsScroll")
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setWidget(content)
        self._scroll.setAccessibleName("Search results")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self._summary)
        layout.addWidget(self._queries)
        layout.addWidget(self._notice)
        layout.addWidget(self._scroll, 1)

    # --- read-only state, for the window and for tests -------------------------------------------------------

    def entries(self) -> list[ResultEntry]:
        """Entries in display order: pages read first, then results only found."""
        return [card.entry for card in self.result_cards()]

    def result_cards(self) -> list[ResultCard]:
        return self._read.cards() + self._found.cards()

    def summary_text(self) -> str:
        return self._summary.text()

    def queries_text(self) -> str:
        return self._queries.text()

    def notice_text(self) -> str:
        return self._notice.text() if not self._notice.isHidden() else ""

    # --- input ------------------------------------------------------------------------------------------------

    def handle_event(self, event: RunEvent) -> None:
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        if from_earlier_run(event, self._run_id):
            return
        match event:
            case ev.RunStarted():
                self._start_run(event.run_id)
            case ev.ToolResult():
                if event.status == "ok":
                    searches_before = self._results.searches()
                    self._show_changes(self._results.add_tool_data(event.data),
                                       searched=self._results.searches() != searches_before)
            case ev.ContentDelta():
                if self._shown_for_run and not self._hidden_for_answer:
                    self._hidden_for_answer = True
                    self.visibility_wanted.emit(False)
            case (ev.ReasoningDelta() | ev.ToolCalls() | ev.ToolExecuting() | ev.RunWarning() | ev.Usage()
                  | ev.ModelCallStarted() | ev.ModelCallFinished() | ev.ModelExchange() | ev.RunError() | ev.Done()):
                pass
            case _:
                assert_never(event)

    def clear(self) -> None:
        """Show no run (a new chat, or a conversation without one)."""
        self._start_run(None)

    def open_entry(self, url: str) -> bool:
        """Open ``url`` in the system browser if it is an http(s) URL; returns whether it was handed over."""
        if not is_openable(url):
            return False
        opened = bool(self._open_url(QUrl(url.strip())))
        if opened:
            self._notice.hide()
        else:
            self._notice.setText(f"Could not open {url} in the browser. Is a default web browser set?")
            self._notice.show()
        return opened

    # --- view -------------------------------------------------------------------------------------------------

    def _start_run(self, run_id: str | None) -> None:
        self._run_id = run_id
        self._shown_for_run = False
        self._hidden_for_answer = False
        self._results.clear()
        for section in (self._read, self._found):
            for card in section.cards():
                section.take(card)
                card.deleteLater()
        self._cards.clear()
        self._notice.hide()
        self._refresh_summary()

    def _show_changes(self, changed: list[ResultEntry], *, searched: bool = False) -> None:
        """Show new and changed entries; a search counts and is listed even when all its results were known."""
        for entry in changed:
            card = self._cards.get(entry.key)
            if card is None:
                card = ResultCard(entry)
                card.activated.connect(self.open_entry)
                self._cards[entry.key] = card
                (self._read if entry.read else self._found).add(card)
                continue
            if entry.read and card in self._found.cards():
                self._found.take(card)
                self._read.add(card)
            card.update_entry(entry)
        if changed or searched:
            self._refresh_summary()
            if self._results.entries() and not self._shown_for_run:  # a search that found nothing does not pop it up
                self._shown_for_run = True
                self.visibility_wanted.emit(True)

    def _refresh_summary(self) -> None:
        entries = self._results.entries()
        searches = self._results.searches()
        if not entries and not searches:
            self._summary.setText(EMPTY_TEXT)
            self._queries.clear()
            self._queries.hide()
            return
        read = sum(entry.read for entry in entries)
        parts = [_count(len(entries), "result")]
        if searches:
            parts.insert(0, _count(len(searches), "search", "searches"))
        if read:
            parts.append(f"{read} read")
        if self._results.dropped:
            parts.append(f"{self._results.dropped} more not shown")
        self._summary.setText(" · ".join(parts))
        self._queries.setText("\n".join(f"“{query}” · {_count(hits, 'result')}" for query, hits in searches))
        self._queries.setVisible(bool(searches))


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
