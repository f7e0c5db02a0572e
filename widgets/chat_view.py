"""The conversation as one QTextBrowser document, streamed into at most once per frame.

One document for the whole conversation is the cheapest view measured (see bench/RESULTS.md): a 500-message
history loads in a fraction of a second and appending costs milliseconds. Streaming text is queued and
rendered by a frame timer (``FRAME_MS``) through ``StreamingMarkdown``, which keeps finished markdown blocks and
re-renders only the unfinished tail. Tool calls appear as chips where they happened in the answer; clicking a
chip expands it to its arguments and result. Links open in the system browser; remote images are never loaded.
Long histories show the most recent ``PAGE_SIZE`` messages and load older pages when scrolled to the top.
Each message's place in the document is kept (``message_at``, ``message_rect``) for the per-message actions
(widgets/message_actions.py); a message with other versions shows a ``‹ 2/3 ›`` switcher beside its label.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from PySide6.QtCore import QEvent, QMimeData, QRect, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from orchestration.tool_outcome import normalized_key
from widgets.code_highlighter import CodeHighlighter, warm_up_in_steps
from widgets.cost_text import AnswerUsage
from widgets.markdown_document import COPY_URL, DARK, LIGHT, QUOTE_BARS, code_at, colors_of, start_block
from widgets.markdown_render import StreamingMarkdown, append_markdown
from widgets.message_attachments import SCHEME as ATTACHMENT_SCHEME
from widgets.message_attachments import AttachmentView, ImageViewer, insert_attachments
from widgets.render_limits import (
    LOADING_NOTE_CHARS,
    LayoutBudget,
    copied_without_breaks,
    more_chars_note,
    show_loading,
)
from widgets.safe_text import SafeDocument, visible_controls
from widgets.tool_chip_text import ToolChip, write_chip

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import RunEvent

FRAME_MS = 16
DOCUMENT_MARGIN_PX = 18
HEADER_SPACING_PX = 14  # space above each "You" / "Assistant" label
PAGE_SIZE = 60  # messages rendered per page of history
TOP_THRESHOLD_PX = 40  # scrolling this close to the top loads the previous page
BOTTOM_SLACK_PX = 8  # within this of the bottom counts as "at the bottom" for auto-scroll
MESSAGE_TOP_GAP_PX = 8  # above a message scrolled to the top (a search hit opened), so its label shows whole

QUOTE_BAR_PX = 3  # width of the bar drawn left of a quote
LABEL_COLOUR = "#7a7f87"  # "You" / "Assistant" and notices
ERROR_COLOUR = "#c0392b"
FOOTER_COLOUR = "#8a8f98"  # an answer's tokens and cost: grey enough for both themes
BAR_CHECK_EVERY = 8  # blocks walked between checks of whether the repainted band has ended


@dataclass
class ChatMessage:
    """A finished message as the view shows it."""

    role: str  # user | assistant | error | notice
    text: str
    tools: list[ToolChip] = field(default_factory=list)
    status: str = "complete"  # complete | interrupted | error
    ref: int | None = None  # the stored message it shows (its first, for an answer); None while streaming
    versions: tuple[int, int] | None = None  # (position, count) among its versions, when it has several
    attachments: list[AttachmentView] = field(default_factory=list)  # a user message's files
    footer: str = ""  # an answer's tokens and cost (widgets/cost_text.py), in small type under it
    footer_detail: str = ""  # the footer's tooltip
    error: str = ""  # why an answer with status "error" was cut off (the stored run's error), when known


def no_text_notice(hidden_calls: int) -> str:
    """The line under an answer that has no text and nothing else to show (user pass 4: a header alone)."""
    if hidden_calls:
        calls = f"{hidden_calls} tool call{'s' if hidden_calls != 1 else ''}"
        return f"No text in this answer: the model asked for {calls} (the run inspector, Ctrl+I, lists them)."
    return "No text in this answer: the model sent none."


def cut_off_notice(reason: str) -> str:
    """The line under an answer an error cut off, with the error's reason when it is known."""
    if not reason:
        return "The answer above was cut off by an error."
    return f"The answer above was cut off by an error: {reason}"


def _label_format(*, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    label = QTextCharFormat()
    label.setForeground(QColor(LABEL_COLOUR))
    if bold:
        label.setFontWeight(QFont.Weight.DemiBold)
    label.setFontItalic(italic)
    return label


def _one_block(text: str) -> str:
    """Line breaks as line separators, so a message stays one block (and one paragraph on screen)."""
    return visible_controls(text.replace("\r\n", "\n")).replace("\n", "\u2028")


VERSION_SCHEME = "parley-version"  # the switcher's links: parley-version:<ref>:<step>


def write_switcher(cursor: QTextCursor, message: ChatMessage, link: QColor) -> None:
    """``‹ 2/3 ›`` after a message's label when it has other versions; the arrows are links (grey at either
    end). Written as formatted text, as the chips are (widgets/tool_chip_text.py)."""
    if message.versions is None or message.ref is None or message.versions[1] < 2:
        return
    position, count = message.versions
    grey = _label_format()

    def arrow(glyph: str, step: int, live: bool) -> None:
        if not live:
            cursor.insertText(glyph, grey)
            return
        anchor = QTextCharFormat()
        anchor.setAnchor(True)
        anchor.setAnchorHref(f"{VERSION_SCHEME}:{message.ref}:{step}")
        anchor.setForeground(link)
        cursor.insertText(glyph, anchor)

    cursor.insertText("\u00a0\u00a0\u00a0", grey)
    arrow("‹", -1, position > 1)
    cursor.insertText(f"\u00a0{position}/{count}\u00a0", grey)
    arrow("›", 1, position < count)


class ChatView(QTextBrowser):
    older_history_wanted = Signal()
    version_step_requested = Signal(int, int)  # message ref, -1 or +1 (the ‹ › switcher)

    def __init__(self, parent: QWidget | None = None, *, frame_ms: int = FRAME_MS,
                 open_url: Callable[[QUrl], object] = QDesktopServices.openUrl) -> None:
        super().__init__(parent)
        self.setDocument(SafeDocument(self))  # loads no resource named by an answer (safe_text)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        self.setAccessibleName("Conversation")
        # A scroll bar that appears after the first layout narrows the view and makes Qt lay everything out again
        # (half the time of opening a long answer, bench/render_scale), so it is always there.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(DOCUMENT_MARGIN_PX)
        self.anchorClicked.connect(self._on_anchor)
        self._open_url = open_url
        self._highlighter = CodeHighlighter(self.document())
        self._frame = QTimer(self)
        self._frame.setInterval(frame_ms)
        self._frame.timeout.connect(self._render_frame)
        self._region: StreamingMarkdown | None = None
        self._chips: dict[str, tuple[ToolChip, QTextCursor]] = {}
        self._history: list[ChatMessage] = []
        self._starts: list[tuple[int, QTextCursor]] = []  # (index in _history, cursor at its label), as shown
        self._answer_usage = AnswerUsage()  # the streaming run's usage events, for its answer's footer
        self._shown_from = 0
        self._streaming = False
        self._stick_to_bottom = True
        self._font_points: int | None = None
        self._redraw_after_answer = False  # a theme or font change came while an answer streamed
        self._click_position: int | None = None  # where the last mouse click landed, for a code block's Copy
        self.viewer: ImageViewer | None = None  # the attached image opened last
        self._bars_from = 0  # the block the last quote-bar paint started at
        self._budget: LayoutBudget | None = None  # set while a history message is drawn
        self._held_size: QSize | None = None  # the size before ``one_layout`` began, while it holds
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def set_dark(self, dark: bool) -> None:
        """Answer and code colours for a dark or light background; shown answers are drawn again in them."""
        self._highlighter.set_dark(dark)
        colors = DARK if dark else LIGHT
        if colors_of(self.document()) is not colors:
            self.document().colors = colors  # type: ignore[attr-defined]  # our SafeDocument carries the colours
            self._redraw_shown()
        self.recolour_links()

    def _redraw_shown(self) -> None:
        """Draw the shown messages again (colours, marker widths and math are baked in when drawn), keeping the
        scroll position; while an answer streams that waits for its end."""
        if self._streaming:
            self._redraw_after_answer = True
            return
        self._redraw_after_answer = False
        if self._history:
            bar = self.verticalScrollBar()
            distance_from_bottom = bar.maximum() - bar.value()
            self._rebuild()
            bar.setValue(bar.maximum() - distance_from_bottom)

    def recolour_links(self) -> None:
        """Give every link and tool chip in the document the palette's current link colour.

        Qt bakes the link colour into the text when it is inserted, so a theme switch alone leaves old links
        (and chips, which are links) in the previous theme's colour.
        """
        colour = self.palette().color(QPalette.ColorRole.Link)
        document = self.document()
        stale: list[tuple[int, int]] = []
        block = document.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                char_format = fragment.charFormat()
                if char_format.isAnchor() and char_format.foreground().color() != colour:
                    stale.append((fragment.position(), fragment.position() + fragment.length()))
                fragments += 1
            block = block.next()
        recolour = QTextCharFormat()
        recolour.setForeground(colour)
        cursor = QTextCursor(document)
        for start, end in stale:
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(recolour)

    def set_font_size(self, points: int) -> None:
        """The chat text's size in points (Preferences > Appearance); code and headings scale with it.

        The size is kept: a theme switch re-polishes the widget and resets its font, and the size comes back.
        """
        self._font_points = points
        self._apply_font_size()

    def _apply_font_size(self) -> None:
        if self._font_points is None or self.font().pointSize() == self._font_points:
            return
        resized = self.document().defaultFont().pointSize() != self._font_points
        font = self.font()
        font.setPointSize(self._font_points)
        self.setFont(font)
        self.document().setDefaultFont(font)
        if resized:
            self._redraw_shown()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._apply_font_size()

    # --- history ------------------------------------------------------------------------------------
    def set_messages(self, messages: list[ChatMessage]) -> None:
        """Show a conversation: the most recent page now, older pages on scroll up. An answer streaming into the
        view is left behind (its conversation's state replays it when shown again)."""
        self._region = None
        self._frame.stop()
        self._streaming = self._redraw_after_answer = False
        self._history = list(messages)
        self._shown_from = max(0, len(messages) - PAGE_SIZE)
        if sum(len(m.text) for m in messages[self._shown_from:]) > LOADING_NOTE_CHARS:
            show_loading(self)
        self._rebuild()
        self.scroll_to_bottom()

    def messages(self) -> list[ChatMessage]:
        """The messages shown (and loaded for scrolling up), oldest first."""
        return list(self._history)

    def last_history_answer(self) -> str:
        """The text of the newest assistant message of the shown history ("" when there is none)."""
        return next((m.text for m in reversed(self._history) if m.role == "assistant"), "")

    def load_older(self) -> bool:
        """Render the previous page of history above; False when everything is shown or a run streams."""
        if self._shown_from == 0 or self._streaming:
            return False
        bar = self.verticalScrollBar()
        distance_from_bottom = bar.maximum() - bar.value()
        self._shown_from = max(0, self._shown_from - PAGE_SIZE)
        self._rebuild()
        bar.setValue(bar.maximum() - distance_from_bottom)
        return True

    @property
    def shown_message_count(self) -> int:
        return len(self._history) - self._shown_from

    def _rebuild(self) -> None:
        document = self.document()
        document.clear()
        self._chips.clear()
        self._starts.clear()
        for index in range(self._shown_from, len(self._history)):
            self._render_message(self._history[index], index)

    def _render_message(self, message: ChatMessage, index: int) -> None:
        self._budget = LayoutBudget()  # how much of a huge message is laid out (widgets/render_limits.py)
        try:
            self._render_budgeted(message, index)
        finally:
            self._budget = None

    def _render_budgeted(self, message: ChatMessage, index: int) -> None:
        self._mark_start(index)
        if message.role == "user":
            self._header("You", message)
            self._attachments(message.attachments)
            self._markdown(message.text)
            if self._budget is not None and self._budget.hidden:
                self._notice(more_chars_note(self._budget.hidden))
        elif message.role == "assistant":
            self._header("Assistant", message)
            position = 0
            for chip in sorted(message.tools, key=lambda c: c.offset or 0):
                cut = chip.offset if chip.offset is not None else len(message.text)
                self._markdown(message.text[position:cut])
                position = max(position, cut)
                if chip.visibility != "hidden":
                    self._insert_chip(chip)
            self._markdown(message.text[position:])
            if self._budget is not None and self._budget.hidden:
                self._notice(more_chars_note(self._budget.hidden))
            if (message.status == "complete" and not message.text.strip()
                    and all(chip.visibility == "hidden" for chip in message.tools)):
                self._notice(no_text_notice(len(message.tools)))
            if message.status == "interrupted":
                self._notice("Stopped: the answer above is partial.")
            elif message.status == "error":
                self._notice(cut_off_notice(message.error))
            self._footer(message)
        elif message.role == "error":
            self._error_block(message.text)
        else:
            self._notice(message.text)

    # --- streaming ----------------------------------------------------------------------------------
    def add_user_message(self, text: str, attachments: list[AttachmentView] | None = None) -> None:
        self._history.append(ChatMessage("user", text, attachments=list(attachments or [])))
        self._mark_start(len(self._history) - 1)
        self._header("You")
        self._attachments(attachments or [])
        self._markdown(text)
        self.scroll_to_bottom()

    def begin_assistant(self) -> None:
        warm_up_in_steps()  # syntax lexers, one a turn while the first token is awaited (once per process)
        self._streaming = True
        self._stick_to_bottom = self._at_bottom()
        self._history.append(ChatMessage("assistant", ""))
        self._mark_start(len(self._history) - 1)
        self._header("Assistant")
        self._region = None

    def append_content(self, text: str) -> None:
        if not text:
            return
        if not self._streaming:
            self.begin_assistant()
        if self._region is None:
            self._region = StreamingMarkdown(self.document())
        self._history[-1].text += text
        self._region.push(text)
        if not self._frame.isActive():
            self._frame.start()

    def add_tool_call(self, call_id: str, name: str, arguments: str, *, turn: int | None = None) -> None:
        """Record a call where it happened; its chip appears once its visibility is known (see ``show_tool``).

        ``turn`` is the model call that asked for it: a call repeating an earlier one of the same turn is answered
        from that one and says so.
        """
        if not self._streaming:
            self.begin_assistant()
        self._close_region()
        key = normalized_key(name, arguments)
        tools = self._history[-1].tools
        repeated = turn is not None and any(
            c.turn == turn and normalized_key(c.name, c.arguments) == key for c in tools)
        tools.append(ToolChip(call_id, name, arguments, offset=len(self._history[-1].text), repeated=repeated,
                              turn=turn))

    def show_tool(self, call_id: str, visibility: str) -> None:
        chip = self._find_chip(call_id)
        if chip is None:
            return
        if call_id in self._chips:
            if chip.status == "pending":  # approved: it runs now
                chip.status = "running"
                self._refresh_chip(*self._chips[call_id])
            return
        chip.visibility = visibility
        if visibility != "hidden":
            self._insert_chip(chip, before=self._next_shown_chip(chip))
            self._keep_bottom()

    def show_pending(self, call_ids: list[str]) -> None:
        """Calls waiting for the user's approval get their chip now, saying so (``pending_chips`` lists them)."""
        for call_id in call_ids:
            chip = self._find_chip(call_id)
            if chip is None or chip.status not in ("running", "pending") or (
                    chip.status == "pending" and call_id in self._chips):
                continue
            chip.status = "pending"
            if call_id in self._chips:
                self._refresh_chip(*self._chips[call_id])
            else:
                self._insert_chip(chip, before=self._next_shown_chip(chip))
        self._keep_bottom()

    def pending_chips(self) -> list[str]:
        """Ids of the calls whose chip says they wait for approval."""
        return [chip.id for chip, _anchor in self._chips.values() if chip.status == "pending"]

    def _next_shown_chip(self, chip: ToolChip) -> QTextCursor | None:
        """The anchor of a later call's chip already shown (calls answered without running show late)."""
        for message in reversed(self._history):
            if chip in message.tools:
                later = message.tools[message.tools.index(chip) + 1:]
                return next((self._chips[c.id][1] for c in later if c.id in self._chips), None)
        return None

    def set_tool_result(self, call_id: str, status: str, result: str, duration_ms: int,
                        visibility: str = "primary") -> None:
        chip = self._find_chip(call_id)
        if chip is None:
            return
        chip.status, chip.result, chip.duration_ms = status, result, duration_ms
        if call_id not in self._chips:
            self.show_tool(call_id, visibility)
        elif call_id in self._chips:
            self._refresh_chip(*self._chips[call_id])

    def _find_chip(self, call_id: str) -> ToolChip | None:
        for message in reversed(self._history):
            for chip in message.tools:
                if chip.id == call_id:
                    return chip
        return None

    def end_assistant(self, finish_reason: str) -> None:
        self._close_region()
        if self._streaming and self._history:
            message = self._history[-1]
            answer = next((m for m in reversed(self._history) if m.role == "assistant"), message)
            for chip in answer.tools:
                if chip.status == "pending":  # still waiting for approval when the run ended (Stop, an error)
                    chip.status = "stopped"
                    if chip.id in self._chips:
                        self._refresh_chip(*self._chips[chip.id])
            if finish_reason == "cancelled":
                message.status = "interrupted"
                self._notice("Stopped: the answer above is partial.")
            elif finish_reason == "error":
                message.status = "error"
            elif finish_reason == "length":
                self._notice("The answer hit the output token limit.")
        self._streaming = False
        if self._redraw_after_answer:
            self._redraw_shown()
        self._keep_bottom()

    def add_error(self, message: str) -> None:
        self._close_region()
        self._history.append(ChatMessage("error", message))
        self._mark_start(len(self._history) - 1)
        self._error_block(message)
        self._keep_bottom()

    def handle_event(self, event: RunEvent) -> None:
        """Route a run event (orchestration.events) to the methods above."""
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        match event:
            case ev.ContentDelta():
                self.append_content(event.content)
            case ev.ToolCalls():
                for call in event.calls:
                    self.add_tool_call(call.id, call.name, call.arguments, turn=event.iteration)
            case ev.ToolExecuting():
                self.show_tool(event.id, event.visibility)
            case ev.ToolResult():
                self.set_tool_result(event.id, event.status, event.result, event.duration_ms, event.visibility)
            case ev.RunError():
                self.add_error(event.message)
            case ev.Usage():
                self._answer_usage.add(event)
            case ev.Done():
                self.end_assistant(event.finish_reason)
                self._end_usage()
            case ev.RunStarted():
                self._answer_usage = AnswerUsage()
                self.begin_assistant()
            case (ev.ReasoningDelta() | ev.RunWarning() | ev.ModelCallStarted() | ev.ModelCallFinished()
                  | ev.ModelExchange()):
                pass
            case _:
                assert_never(event)

    @property
    def streaming(self) -> bool:
        return self._streaming

    def flush(self) -> None:
        """Render queued text now (tests and the end of a run)."""
        self._render_frame()

    # --- rendering helpers --------------------------------------------------------------------------
    def _render_frame(self) -> None:
        region = self._region
        if region is None or not region.dirty:
            self._frame.stop()
            return
        stick = self._stick_to_bottom or self._at_bottom()
        region.flush()
        if stick:
            self.scroll_to_bottom()

    def _close_region(self) -> None:
        if self._region is not None:
            self._region.finish()
            self._region = None
        self._frame.stop()

    def _cursor_at_end(self, block_format: QTextBlockFormat | None = None) -> QTextCursor:
        return start_block(self.document(), block_format or QTextBlockFormat(), QTextCharFormat())

    def _header(self, who: str, message: ChatMessage | None = None) -> None:
        spaced = QTextBlockFormat()
        if not self.document().isEmpty():
            spaced.setTopMargin(HEADER_SPACING_PX)
        cursor = self._cursor_at_end(spaced)
        cursor.insertText(who, _label_format(bold=True))
        if message is not None:
            write_switcher(cursor, message, self.palette().color(QPalette.ColorRole.Link))

    # --- where each message is (for the message actions) ---------------------------------------------
    def _mark_start(self, index: int) -> None:
        """Remember where message ``index`` begins: at the block added after the current end."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.setKeepPositionOnInsert(True)  # stays before what is appended
        self._starts.append((index, cursor))

    def _start_positions(self) -> list[tuple[int, int]]:
        """(index, document position of its first block) of each rendered message."""
        return [(index, cursor.position() + (1 if cursor.position() else 0)) for index, cursor in self._starts]

    def message_at(self, position: int) -> int | None:
        """The index (in ``messages``) of the rendered message holding document ``position``."""
        found = None
        for index, start in self._start_positions():
            if start > position:
                break
            found = index
        return found

    def label_rect(self, index: int) -> QRect | None:
        """Where the first line of message ``index`` (its "You" / "Assistant" label) is in the viewport."""
        rect = self.message_rect(index)
        if rect is None:
            return None
        start = dict(self._start_positions())[index]
        block = self.document().documentLayout().blockBoundingRect(self.document().findBlock(start))
        return QRect(rect.left(), rect.top(), rect.width(), max(1, int(block.height())))

    def message_rect(self, index: int) -> QRect | None:
        """Where message ``index`` is in the viewport (None when it is not rendered)."""
        document = self.document()
        layout = document.documentLayout()
        starts = self._start_positions()
        for n, (shown, start) in enumerate(starts):
            if shown != index:
                continue
            top = layout.blockBoundingRect(document.findBlock(start)).top()
            if n + 1 < len(starts):
                bottom = layout.blockBoundingRect(document.findBlock(starts[n + 1][1])).top()
            else:
                bottom = layout.blockBoundingRect(document.lastBlock()).bottom()
            scrolled = self.verticalScrollBar().value()
            return QRect(0, int(top) - scrolled, self.viewport().width(), max(1, int(bottom - top)))
        return None

    def _attachments(self, views: list[AttachmentView]) -> None:
        if views:
            insert_attachments(self.document(), self._cursor_at_end(), views)

    def open_attachment(self, key: str) -> ImageViewer | None:
        """Open an attached image of the shown conversation larger (None when there is no such image)."""
        view = next((a for m in self._history for a in m.attachments if a.key == key and a.image), None)
        if view is None or view.image_bytes() is None:
            return None
        self.viewer = ImageViewer(view, self)
        self.viewer.show()
        return self.viewer

    def _markdown(self, text: str) -> None:
        if self._budget is not None:
            text = self._budget.take(text)
        if text.strip():
            append_markdown(self.document(), text)

    def _end_usage(self) -> None:
        """The finished run's tokens and cost under its answer."""
        usage, self._answer_usage = self._answer_usage, AnswerUsage()
        answer = next((m for m in reversed(self._history) if m.role == "assistant"), None)
        if answer is None or not usage.calls:
            return
        answer.footer, answer.footer_detail = usage.footer(), usage.detail()
        self._footer(answer)
        self._keep_bottom()

    def _footer(self, message: ChatMessage) -> None:
        if not message.footer:
            return
        small = _label_format()
        small.setForeground(QColor(FOOTER_COLOUR))
        small.setProperty(QTextFormat.Property.FontSizeAdjustment, -1)  # one step smaller, whatever the size
        small.setToolTip(message.footer_detail)
        self._cursor_at_end().insertText(_one_block(message.footer), small)

    def _notice(self, text: str) -> None:
        self._cursor_at_end().insertText(_one_block(text), _label_format(italic=True))

    def _error_block(self, text: str) -> None:
        # errors quote providers and servers: inserted as text, never as HTML
        cursor = self._cursor_at_end()
        error = QTextCharFormat()
        error.setForeground(QColor(ERROR_COLOUR))
        bold = QTextCharFormat(error)
        bold.setFontWeight(QFont.Weight.Bold)
        cursor.insertText("Error:", bold)
        cursor.insertText(" " + _one_block(text), error)

    def _insert_chip(self, chip: ToolChip, before: QTextCursor | None = None) -> None:
        """Insert a chip at the end, or in a block of its own just above the chip anchored by ``before``."""
        if before is None:
            cursor = self._cursor_at_end()
        else:
            before.setKeepPositionOnInsert(False)  # the later chip's anchor moves down with its block
            cursor = QTextCursor(before)
            cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock)
            start = cursor.position()
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            cursor.setPosition(start)
        anchor = QTextCursor(cursor)
        anchor.setKeepPositionOnInsert(True)
        write_chip(cursor, chip, self.palette().color(QPalette.ColorRole.Link))
        if before is not None:
            before.setKeepPositionOnInsert(True)
        self._chips[chip.id] = (chip, anchor)

    def _refresh_chip(self, chip: ToolChip, anchor: QTextCursor) -> None:
        stick = self._at_bottom()
        cursor = QTextCursor(anchor)
        cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        write_chip(cursor, chip, self.palette().color(QPalette.ColorRole.Link))
        if stick:
            self.scroll_to_bottom()

    def copy_code_at(self, position: int) -> bool:
        """Copy the code of the code block at ``position`` (its Copy link) to the clipboard."""
        code = code_at(self.document(), position)
        if code is None:
            return False
        QGuiApplication.clipboard().setText(code)
        return True

    def createMimeDataFromSelection(self) -> QMimeData:
        """A copied selection, without the break opportunities added to long runs (widgets/render_limits.py)."""
        return copied_without_breaks(self.document(), super().createMimeDataFromSelection())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._click_position = self.cursorForPosition(event.position().toPoint()).position()
        super().mouseReleaseEvent(event)  # emits anchorClicked for a link under the mouse
        self._click_position = None

    def _on_anchor(self, url: QUrl) -> None:
        if url.toString() == COPY_URL:
            position = self._click_position if self._click_position is not None else self.textCursor().position()
            self.copy_code_at(position)
            return
        if url.scheme() == VERSION_SCHEME:
            ref, _, step = url.path().partition(":")
            self.version_step_requested.emit(int(ref), int(step))
            return
        if url.scheme() == "parley-tool":
            entry = self._chips.get(url.path())
            if entry is not None:
                entry[0].expanded = not entry[0].expanded
                self._refresh_chip(*entry)
            return
        if url.scheme() == ATTACHMENT_SCHEME:
            self.open_attachment(url.path())
            return
        if url.scheme() in ("http", "https"):
            self._open_url(url)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        return None  # the view loads nothing itself; its SafeDocument holds every image it shows

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self._paint_quote_bars(event.rect().top(), event.rect().bottom())

    def _paint_quote_bars(self, top_px: int, bottom_px: int) -> None:
        """A bar left of each quote level, for the blocks in the repainted band of the viewport (Qt draws no
        left borders); only when the document has quotes at all."""
        document = self.document()
        if not getattr(document, "has_quotes", False):
            return
        layout = document.documentLayout()
        scrolled = self.verticalScrollBar().value()
        top, bottom = scrolled + top_px, scrolled + bottom_px
        # The first block that ends below the band's top, walked to from where the last paint started: the view
        # moves a few blocks between paints, and finding a block by number or by point costs tens of microseconds.
        block = document.findBlockByNumber(min(self._bars_from, document.blockCount() - 1))
        while block.next().isValid() and layout.blockBoundingRect(block).bottom() < top:
            block = block.next()
        while block.previous().isValid() and layout.blockBoundingRect(block.previous()).bottom() >= top:
            block = block.previous()
        self._bars_from = block.blockNumber()
        dx = document.documentMargin() - self.horizontalScrollBar().value()
        painter: QPainter | None = None
        bars_of: dict[int, str] = document.quote_bars_by_format  # type: ignore[attr-defined]  # a SafeDocument
        walked = 0
        while block.isValid():
            walked += 1
            # where the band ends is checked every few blocks only (each geometry query costs microseconds)
            if walked % BAR_CHECK_EVERY == 0 and layout.blockBoundingRect(block).top() > bottom:
                break
            index = block.blockFormatIndex()  # an int: far cheaper than copying the format for every block
            bars = bars_of.get(index)
            if bars is None:
                bars = bars_of[index] = block.blockFormat().stringProperty(QUOTE_BARS)
            if bars:
                rect = layout.blockBoundingRect(block)
                if rect.top() > bottom:
                    break
                if painter is None:
                    painter = QPainter(self.viewport())
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(QColor(colors_of(document).quote_bar))
                for x in bars.split(","):
                    painter.drawRect(int(dx + int(x)), int(rect.top() - scrolled), QUOTE_BAR_PX,
                                     int(rect.height()) + 1)
            block = block.next()
        if painter is not None:
            painter.end()

    # --- scrolling ----------------------------------------------------------------------------------
    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - BOTTOM_SLACK_PX

    def scroll_to_message(self, ref: int) -> bool:
        """Bring the stored message ``ref`` (or the answer holding it: an answer shows as its first stored message,
        and ids grow along a branch) to the top of the view, loading older pages as far as needed (a search hit
        opened); False when it is not in the shown conversation."""
        index = None
        for i, message in enumerate(self._history):
            if message.ref is not None and message.ref <= ref and message.role in ("user", "assistant"):
                index = i
        if index is None:
            return False
        if index < self._shown_from:
            self._shown_from = index
            self._rebuild()
        start = dict(self._start_positions())[index]
        top = self.document().documentLayout().blockBoundingRect(self.document().findBlock(start)).top()
        self.verticalScrollBar().setValue(max(0, int(top) - MESSAGE_TOP_GAP_PX))
        return True

    def scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    @contextmanager
    def one_layout(self) -> Iterator[None]:
        """Width changes inside are laid out once, at the end: the inspector drawer making room changed the
        chat's width 4 to 6 times, each a layout of the whole page (seconds for a heavy one: user pass 4)."""
        if self._held_size is not None:
            yield
            return
        self._held_size = self.size()
        try:
            yield
        finally:
            before, self._held_size = self._held_size, None
            if self.size() != before:
                self.resizeEvent(QResizeEvent(self.size(), before))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A chat at its bottom stays there when its width changes (the inspector drawer opening or closing,
        the window resized): the text wraps anew and the old scroll position would leave it part way up."""
        if self._held_size is not None:
            return  # laid out when ``one_layout`` ends
        pinned = self._at_bottom()  # before the text is laid out at the new width
        super().resizeEvent(event)
        if pinned:
            self.scroll_to_bottom()

    def _keep_bottom(self) -> None:
        if self._stick_to_bottom or self._at_bottom():
            self.scroll_to_bottom()

    def _on_scrolled(self, value: int) -> None:
        if self._frame.isActive():
            self._stick_to_bottom = self._at_bottom()
        if value <= TOP_THRESHOLD_PX and self._shown_from > 0 and not self._streaming:
            QTimer.singleShot(0, self, self.load_older)  # not after the view is gone
