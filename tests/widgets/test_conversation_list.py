"""The conversation list in a narrow window (no sideways scrolling, titles cut with "…", whole title as a literal
tooltip) and search results (snippets as plain text with the matched words highlighted)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QStyleOptionViewItem

from widgets.conversation_delegate import PIECES_ROLE, PINNED_ROLE
from widgets.conversation_list import ConversationItem, ConversationList, SearchHit
from widgets.search_snippet import MARK_END, MARK_START

LONG_TITLE = "How do sea otters use stones as tools, and do they keep a favourite one for years?"


def narrow_list(qtbot, width: int = 220) -> ConversationList:
    conversations = ConversationList()
    qtbot.addWidget(conversations)
    conversations.resize(width, 400)
    conversations.show()
    qtbot.waitExposed(conversations)
    return conversations


def row_option(conversations: ConversationList, row: int) -> QStyleOptionViewItem:
    option = QStyleOptionViewItem()
    option.initFrom(conversations.list.viewport())
    option.rect = conversations.list.visualRect(conversations.model.index(row, 0))
    option.font = conversations.list.font()
    return option


def test_a_narrow_list_never_scrolls_sideways_and_cuts_long_titles_with_an_ellipsis(qtbot):
    conversations = narrow_list(qtbot)
    conversations.set_conversations([ConversationItem(1, LONG_TITLE, 1_700_000_000_000),
                                     ConversationItem(2, "<b>bold?</b> & <img src=/dev/zero>", 1_700_000_000_000)])
    qtbot.wait(10)
    view = conversations.list
    assert view.horizontalScrollBar().maximum() == 0 and not view.horizontalScrollBar().isVisible()
    assert view.visualRect(view.model().index(0, 0)).right() <= view.viewport().rect().right()
    delegate = view.itemDelegate()
    shown = delegate.shown_title(row_option(conversations, 0), view.model().index(0, 0))
    assert shown.endswith("…") and LONG_TITLE.startswith(shown[:-1])
    tooltip = Qt.ItemDataRole.ToolTipRole
    assert view.model().index(0, 0).data(tooltip) == f"<p style='white-space:pre-wrap'>{LONG_TITLE}</p>"
    assert view.model().index(1, 0).data(tooltip) == ("<p style='white-space:pre-wrap'>&lt;b&gt;bold?&lt;/b&gt; &amp; "
                                      "&lt;img src=/dev/zero&gt;</p>")  # literal: no bold, no file read


def _amber_pixels(image: QImage) -> int:
    count = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            colour = QColor(image.pixel(x, y))
            if colour.red() > 200 and colour.green() > 150 and colour.blue() < colour.red() - 60:
                count += 1
    return count


def test_search_results_show_plain_snippets_with_the_match_highlighted(qtbot):
    conversations = narrow_list(qtbot, 320)
    snippet = f"## Otters\n\nSea otters **{MARK_START}crack{MARK_END}** clams with `stones` <i>and</i> &amp; more"
    conversations.set_search_results([SearchHit(7, "Otters", snippet)])
    row = conversations.model.index(0, 0)
    assert row.data() == "Otters\nOtters Sea otters crack clams with stones and & more"
    assert [text for text, marked in row.data(PIECES_ROLE) if marked] == ["crack"]
    qtbot.wait(10)
    highlighted = _amber_pixels(conversations.list.viewport().grab().toImage())
    conversations.set_search_results([SearchHit(7, "Otters", snippet.replace(MARK_START, "").replace(MARK_END, ""))])
    qtbot.wait(10)
    assert highlighted > 20 and _amber_pixels(conversations.list.viewport().grab().toImage()) == 0


def test_a_pinned_row_draws_a_pin_icon_not_an_emoji_and_leaves_it_room(qtbot):
    conversations = narrow_list(qtbot)
    conversations.set_conversations([ConversationItem(1, LONG_TITLE, 1_700_000_000_000, pinned=True),
                                     ConversationItem(2, LONG_TITLE, 1_600_000_000_000)])
    qtbot.wait(10)
    view = conversations.list
    assert view.model().index(0, 0).data(PINNED_ROLE) and "📌" not in view.model().index(0, 0).data()
    delegate = view.itemDelegate()
    pinned = delegate.shown_title(row_option(conversations, 0), view.model().index(0, 0))
    plain = delegate.shown_title(row_option(conversations, 1), view.model().index(1, 0))
    assert pinned.endswith("…") and len(pinned) < len(plain)


def test_escapes_in_a_title_show_in_caret_notation_in_the_list_and_in_search_results(qtbot):
    from widgets.conversation_delegate import TITLE_ROLE

    conversations = narrow_list(qtbot, width=400)
    conversations.set_conversations([ConversationItem(1, "Title \x1b[31mred\x07", 1_700_000_000_000)])
    assert conversations.model.index(0, 0).data(TITLE_ROLE) == "Title ^[[31mred^G"
    conversations.set_search_results([SearchHit(1, "Title \x1b[31mred\x07", f"a {MARK_START}red{MARK_END} word")])
    assert conversations.model.index(0, 0).data(TITLE_ROLE) == "Title ^[[31mred^G"


def test_search_results_open_with_the_keyboard_alone(qtbot):
    """User pass 4: after typing in the search box, Down and Enter did nothing; a hit needed the mouse."""
    conversations = narrow_list(qtbot)
    conversations.activateWindow()
    qtbot.waitUntil(conversations.isActiveWindow, timeout=3000)
    opened: list[int] = []
    conversations.conversation_selected.connect(opened.append)
    conversations.set_search_results([SearchHit(7, "Otters", "sea otters"), SearchHit(9, "Rivers", "river otters")])
    conversations.focus_search()
    qtbot.keyClicks(conversations.search_box, "otters")
    qtbot.keyClick(conversations.search_box, Qt.Key.Key_Return)
    assert opened[-1:] == [7]  # Enter opens the best hit

    conversations.set_search_results([SearchHit(7, "Otters", "sea otters"), SearchHit(9, "Rivers", "river otters")])
    conversations.focus_search()
    qtbot.keyClick(conversations.search_box, Qt.Key.Key_Down)
    assert conversations.list.hasFocus() and conversations.list.currentIndex().row() == 0
    qtbot.keyClick(conversations.list, Qt.Key.Key_Down)
    qtbot.keyClick(conversations.list, Qt.Key.Key_Return)
    assert opened[-1:] == [9]


class ListRows:
    """Rows by id from a list: the app's history stands behind this in the window."""

    def __init__(self, items: list[ConversationItem]) -> None:
        self.items = {item.id: item for item in items}
        self.asked: list[list[int]] = []

    def rows(self, ids: list[int]) -> list[ConversationItem]:
        self.asked.append(ids)
        return [self.items[cid] for cid in ids if cid in self.items]


def test_a_list_of_ids_reads_only_the_rows_it_shows_and_knows_its_length_and_order_at_once(qtbot):
    from widgets.conversation_model import BLOCK_ROWS

    items = [ConversationItem(i, f"Conversation {i}", 1_700_000_000_000 - i) for i in range(BLOCK_ROWS * 5)]
    rows = ListRows(items)
    conversations = narrow_list(qtbot)
    conversations.show_order([item.id for item in items], rows, selected=items[3].id)
    qtbot.wait(20)
    assert conversations.model.rowCount() == len(items)
    assert conversations.ids_in_order() == [item.id for item in items]
    assert conversations.list.currentIndex().row() == 3
    assert rows.asked == [[item.id for item in items[:BLOCK_ROWS]]]  # the first block: the rows painted
    assert conversations.model.index(0, 0).data().startswith("Conversation 0\n")
    bar = conversations.list.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.wait(20)
    assert rows.asked[1:] == [[item.id for item in items[-BLOCK_ROWS:]]]  # the last block, nothing between
    conversations.show_order([item.id for item in items[:2]] + [9_999], rows)  # 9,999: deleted elsewhere
    assert conversations.model.index(2, 0).data().startswith("Untitled\n")


def test_while_searching_a_list_of_ids_still_names_an_unread_conversation(qtbot):
    items = [ConversationItem(i, f"Conversation {i}", 1_700_000_000_000 - i) for i in range(1000)]
    rows = ListRows(items)
    conversations = narrow_list(qtbot)
    conversations.show_order([item.id for item in items], rows)
    qtbot.wait(20)
    unread = items[-1]
    conversations.set_search_results([SearchHit(unread.id, unread.title, "a snippet")])
    asked: list[str] = []
    conversations._ask_title = lambda _parent, current: asked.append(current)
    conversations.request_rename(unread.id)
    assert asked == [unread.title] and rows.asked[-1] == [unread.id]


def test_an_attachment_hit_shows_the_file_and_keeps_its_match_in_view_in_a_narrow_list(qtbot):
    conversations = narrow_list(qtbot, 260)
    snippet = (f"contract.txt: Services agreement between Acme and the Buyer. The supplier shall "
               f"{MARK_START}indemnify{MARK_END} the purchaser")
    conversations.set_search_results([SearchHit(3, "Contract review", snippet, message_id=12, attachment=True)])
    row = conversations.model.index(0, 0)
    assert row.data().splitlines()[1].startswith("Attached contract.txt: Services agreement")
    qtbot.wait(10)
    assert _amber_pixels(conversations.list.viewport().grab().toImage()) > 20  # the match is drawn, not cut off
    assert conversations.model.message_id(0) == 12
    with qtbot.waitSignal(conversations.message_selected) as chosen:
        conversations._activated(row)
    assert chosen.args == [3, 12]
