"""Problems shown at a form field: one red label under the field, hidden until there is something to say.

The Preferences tabs validate as the user types and point at the field that is wrong; they share these two
helpers so every field error looks and reads the same (object name ``fieldError`` for the style sheets).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from widgets.safe_text import plain_label


def error_label() -> QLabel:
    label = plain_label("")  # messages quote what the user typed
    label.setObjectName("fieldError")
    label.setWordWrap(True)
    label.setStyleSheet("color: #c0392b")
    label.hide()
    return label


def with_error(field: QWidget, error: QLabel) -> QWidget:
    """``field`` with ``error`` under it, as one widget for a form row."""
    box = QWidget()
    if field.minimumHeight() == field.maximumHeight():  # a fixed-height field: its row must not grow either, or
        # the field floats in the middle of a tall row, far below its label
        box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    column.addWidget(field)
    column.addWidget(error)
    error.setAccessibleName(f"{field.accessibleName()} problem")
    return box
