"""The composer's model picker: as wide as its current choice needs, up to a named limit, elided past it.

A plain QComboBox asks for the width of its longest choice and the composer's row then squeezed it below what it
asks, so the current choice was cut mid-word ("pass-model · |", "builtin" cut at the default window size; user
pass 2026-11-27). This picker asks for, and holds as its minimum, the width of the choice it shows, at most
MODEL_PICKER_MAX_WIDTH; a longer name is elided in the middle (model and provider both stay readable) and the
whole name is in the tooltip. The drop-down list still shows every name in full.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QComboBox, QSizePolicy, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

MODEL_PICKER_MAX_WIDTH = 260  # px: past this the shown name is elided (the list and tooltip show it whole)
_PROBE_WIDTH = 1000  # px: a width at which the style's text field is surely positive
_SLACK = 2  # px: rounding of text widths


class ModelPicker(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tooltip = ""
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(self._refit)
        self.setToolTip("")

    def setToolTip(self, text: str) -> None:
        """The picker's own tooltip; the whole current name is put before it when the name is elided."""
        self._tooltip = text
        self._refresh_tooltip()

    def _edit_width(self) -> int:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                           QStyle.SubControl.SC_ComboBoxEditField, self).width()

    def _needed(self) -> QSize:
        """The size that shows the current text whole: the text, its icon, and the style's frame and arrow around
        the text field (measured on a wide rectangle, as the style lays the field out)."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.rect = QRect(0, 0, _PROBE_WIDTH, self.height())
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        text = self.fontMetrics().horizontalAdvance(self.currentText())
        icon = self.iconSize().width() + 4 if not self.itemIcon(self.currentIndex()).isNull() else 0
        return QSize(text + icon + _PROBE_WIDTH - field.width() + _SLACK, super().sizeHint().height())

    def sizeHint(self) -> QSize:
        needed = self._needed()
        return QSize(min(needed.width(), MODEL_PICKER_MAX_WIDTH), needed.height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.currentText()) > self._edit_width()

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideMiddle,
                                                            self._edit_width())
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._refresh_tooltip()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):  # the text's width changed
            self._refit()

    def _refit(self, _index: int = -1) -> None:
        self.updateGeometry()
        self._refresh_tooltip()

    def _refresh_tooltip(self) -> None:
        whole = self.currentText() if self.is_elided() else ""
        super().setToolTip("\n".join(part for part in (whole, self._tooltip) if part))
