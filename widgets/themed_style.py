"""The widget style under the theme's sheets: Fusion, with the standard icons Qt draws in a fixed colour replaced
by the bundled ones, which follow the palette (widgets/icons.py).

Fusion takes many standard icons from Qt's built-in images or the platform's icon theme, drawn for a light
background: the Close of a dialog's buttons (the usage dialog's, once a platform puts icons on dialog buttons), the
run inspector's float and close buttons, the menu bar's overflow arrow, arrows, a line edit's clear button. On the
dark theme they were dark on dark. ``THEMED_ICONS`` lists the ones replaced; colourful ones (OK's check, Cancel's
cross, the message box symbols) read on both themes and are left as the platform draws them.
"""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QWidget

from widgets.icons import icon

_SP = QStyle.StandardPixmap
THEMED_ICONS: dict[QStyle.StandardPixmap, str] = {
    _SP.SP_DialogCloseButton: "close",
    _SP.SP_TitleBarCloseButton: "close",
    _SP.SP_DockWidgetCloseButton: "close",
    _SP.SP_TitleBarNormalButton: "float",  # a dock widget's float / re-dock button
    _SP.SP_LineEditClearButton: "clear",
    _SP.SP_ToolBarHorizontalExtensionButton: "chevron-right",  # the menu bar's overflow button
    _SP.SP_ToolBarVerticalExtensionButton: "chevron-down",
    _SP.SP_ArrowBack: "chevron-left",
    _SP.SP_ArrowLeft: "chevron-left",
    _SP.SP_FileDialogBack: "chevron-left",
    _SP.SP_ArrowForward: "chevron-right",
    _SP.SP_ArrowRight: "chevron-right",
    _SP.SP_ArrowUp: "chevron-up",
    _SP.SP_ArrowDown: "chevron-down",
}


class ThemedIconStyle(QProxyStyle):
    """Fusion (or the style named) with ``THEMED_ICONS`` drawn in the palette's colour."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self._icons: dict[QStyle.StandardPixmap, QIcon] = {}

    def standardIcon(self, standard: QStyle.StandardPixmap, option: QStyleOption | None = None,
                     widget: QWidget | None = None) -> QIcon:
        name = THEMED_ICONS.get(standard)
        if name is None:
            return super().standardIcon(standard, option, widget)
        if standard not in self._icons:  # one icon each: its engine reads the palette whenever it paints
            self._icons[standard] = icon(name)
        return self._icons[standard]
