"""The composer's control row gives way to the model picker: when the row is narrower than its controls need with
their text (the chat column at its minimum width, with the inspector open), the Tools and Chat buttons show their
icons only (their tooltips and accessible names stay) so the picker keeps the width its choice needs
(widgets/model_picker.py). With room again, their text comes back.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QToolButton, QWidget

TEXT_GAP = 6  # px: the gap Qt's styles put between a tool button's icon and its text


class CompactRow(QObject):
    """Watches ``frame`` (holding ``row`` inside ``margins`` px of padding) and switches ``buttons``."""

    def __init__(self, frame: QWidget, row: QBoxLayout, margins: int, buttons: list[QToolButton]) -> None:
        super().__init__(frame)
        self._frame = frame
        self._row = row
        self._margins = margins
        self._buttons = buttons
        frame.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.refit()
        return False

    def _width_with_text(self) -> int:
        widths = []
        for index in range(self._row.count()):
            item = self._row.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is None or widget.isHidden():
                continue
            width = widget.minimumSizeHint().width()
            if widget in self._buttons and isinstance(widget, QToolButton) and self._compact(widget):
                width += widget.fontMetrics().horizontalAdvance(widget.text()) + TEXT_GAP
            widths.append(width)
        return sum(widths) + self._row.spacing() * max(len(widths) - 1, 0)

    @staticmethod
    def _compact(button: QToolButton) -> bool:
        return button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly

    def is_compact(self) -> bool:
        return any(self._compact(button) for button in self._buttons)

    def refit(self) -> None:
        room = self._frame.contentsRect().width() - self._margins
        style = (Qt.ToolButtonStyle.ToolButtonIconOnly if room < self._width_with_text()
                 else Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for button in self._buttons:
            if button.toolButtonStyle() != style:
                button.setToolButtonStyle(style)
