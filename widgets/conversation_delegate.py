"""How one row of the conversation list is drawn: the title on the first line, the time or a search snippet on
the second, each cut with "…" to the list's width.

Rows ask for no width of their own, so the list never scrolls sideways however narrow the window. A search
snippet's matched words are drawn bold on a highlight; every character is drawn as text (nothing is read as
HTML), so a snippet holding markup shows that markup literally.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from widgets.icons import icon
from widgets.search_snippet import Piece

TITLE_ROLE = Qt.ItemDataRole.UserRole + 1
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 2  # the time of the last change, shown muted
PIECES_ROLE = Qt.ItemDataRole.UserRole + 3  # a search snippet: list of (text, marked)
PINNED_ROLE = Qt.ItemDataRole.UserRole + 4  # drawn with a pin before the title (an icon: emoji fonts are rare)
PADDING = 8  # inside the row, left and right; the style sheet's item padding is the same
LINE_GAP = 2
MATCH_BACKGROUND = QColor(255, 196, 0, 110)  # under matched words, readable on the light and the dark theme

Index = QModelIndex | QPersistentModelIndex


class ConversationDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        line = QFontMetrics(option.font).height()
        return QSize(1, 2 * line + LINE_GAP + 2 * PADDING - 4)

    @staticmethod
    def _area(option: QStyleOptionViewItem) -> QRect:
        return option.rect.adjusted(PADDING, PADDING - 2, -PADDING, -(PADDING - 2))

    @staticmethod
    def _title_rect(option: QStyleOptionViewItem, index: Index) -> QRect:
        area = ConversationDelegate._area(option)
        line = QFontMetrics(option.font).height()
        rect = QRect(area.left(), area.top(), area.width(), line)
        return rect.adjusted(line + 2, 0, 0, 0) if index.data(PINNED_ROLE) else rect

    def shown_title(self, option: QStyleOptionViewItem, index: Index) -> str:
        """The title as drawn in a row of ``option.rect``: whole, or cut with "…" to fit."""
        return QFontMetrics(option.font).elidedText(index.data(TITLE_ROLE) or "", Qt.TextElideMode.ElideRight,
                                                    self._title_rect(option, index).width())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        title = index.data(TITLE_ROLE)
        if title is None:  # a row without parts ("No matches"): the style draws its text
            super().paint(painter, option, index)
            return
        # The row's frame and its hover or selection come from the view's option (its state); the roles that
        # initStyleOption would read (a dozen calls into the model per row painted) draw nothing here.
        background = QStyleOptionViewItem(option)
        background.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, widget)

        font = QFont(option.font)
        metrics = QFontMetrics(font)
        area = self._area(option)
        first = QRect(area.left(), area.top(), area.width(), metrics.height())
        second = first.translated(0, metrics.height() + LINE_GAP)
        palette = option.palette
        painter.save()
        painter.setFont(font)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        if index.data(PINNED_ROLE):
            side = metrics.height() - 2
            icon("pin").paint(painter, QRect(first.left(), first.top() + 1, side, side))
        painter.drawText(self._title_rect(option, index), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         self.shown_title(option, index))
        pieces = index.data(PIECES_ROLE)
        if pieces:
            self._paint_pieces(painter, second, [Piece(t, m) for t, m in pieces], font, palette)
        else:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(second, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(index.data(DETAIL_ROLE) or "", Qt.TextElideMode.ElideRight,
                                                second.width()))
        painter.restore()

    @staticmethod
    def _paint_pieces(painter: QPainter, rect: QRect, pieces: list[Piece], font: QFont, palette: QPalette) -> None:
        """The snippet left to right; the piece that reaches the edge is cut with "…" and the rest is dropped. When
        the first match would not fit, the text before it is cut in its middle, so the row shows both how it
        starts (an attachment hit's "Attached NAME:") and the match."""
        bold = QFont(font)
        bold.setBold(True)
        pieces = _match_in_view(pieces, rect.width(), QFontMetrics(font), QFontMetrics(bold))
        x = rect.left()
        for piece in pieces:
            piece_font = bold if piece.marked else font
            metrics = QFontMetrics(piece_font)
            room = rect.right() - x
            text = piece.text
            if metrics.horizontalAdvance(text) > room:
                text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
            width = metrics.horizontalAdvance(text)
            box = QRect(x, rect.top(), width, rect.height())
            if piece.marked and text:
                painter.fillRect(box, MATCH_BACKGROUND)
            painter.setFont(piece_font)
            painter.setPen(palette.color(QPalette.ColorRole.Text if piece.marked
                                         else QPalette.ColorRole.PlaceholderText))
            painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
            x += width
            if text != piece.text:
                break


def _match_in_view(pieces: list[Piece], room: int, plain: QFontMetrics, bold: QFontMetrics) -> list[Piece]:
    """``pieces`` with the unmarked text before the first match cut in the middle when the match would end
    past ``room`` pixels (unchanged when it fits, or when even a cut lead would leave no room for it)."""
    first = next((n for n, piece in enumerate(pieces) if piece.marked), None)
    if not first:  # no match, or the match comes first
        return pieces
    before = sum(plain.horizontalAdvance(p.text) for p in pieces[:first - 1])
    lead = pieces[first - 1].text
    match = bold.horizontalAdvance(pieces[first].text)
    if before + plain.horizontalAdvance(lead) + match <= room:
        return pieces
    allowed = room - before - match
    if allowed < plain.horizontalAdvance("…" * 4):
        return pieces
    cut = plain.elidedText(lead, Qt.TextElideMode.ElideMiddle, allowed)
    return [*pieces[:first - 1], Piece(cut, False), *pieces[first:]]
