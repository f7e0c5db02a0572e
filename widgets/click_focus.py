"""A click on a field's surroundings puts the keyboard in the field.

The composer's rounded frame holds the attachment chips, the text field and the controls; the gaps between them
(beside a chip, the frame's padding) look like part of the input, but they take no focus, so a click there used to
leave the keyboard where it was and the words typed next went nowhere (user pass 2026-11-27). Presses that no
child control takes (Qt hands an ignored press to the parent) reach the watched frame and focus the field.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget


class ClickFocus(QObject):
    """Watches ``surroundings``: a mouse press on them that no child took focuses ``field``."""

    def __init__(self, field: QWidget, *surroundings: QWidget) -> None:
        super().__init__(field)
        self._field = field
        for widget in surroundings:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and self._field.isEnabled():
            self._field.setFocus(Qt.FocusReason.MouseFocusReason)
        return False
