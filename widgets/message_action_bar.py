"""The message actions' names, icons and keys, and the small row of buttons that floats over the message under
the mouse (widgets/message_actions.py places it and carries the actions out)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMenu, QToolButton, QWidget

from widgets.icons import icon

BAR_ICON_PX = 16


@dataclass(frozen=True)
class ActionSpec:
    label: str
    icon: str | None
    shortcut: str


ACTIONS: dict[str, ActionSpec] = {
    "copy": ActionSpec("Copy as Markdown", "copy", "Ctrl+Shift+M"),
    "edit": ActionSpec("Edit…", "edit", "Ctrl+Shift+E"),
    "regenerate": ActionSpec("Regenerate", "regenerate", "Ctrl+Shift+R"),
    "retry": ActionSpec("Retry", "regenerate", "Ctrl+Shift+R"),
    "continue": ActionSpec("Continue", "continue", "Ctrl+Shift+Return"),
    "previous": ActionSpec("Previous version", "chevron-left", "Alt+Left"),
    "next": ActionSpec("Next version", "chevron-right", "Alt+Right"),
    "delete": ActionSpec("Delete question and answer…", "trash", "Ctrl+Shift+Delete"),
}

class ActionBar(QFrame):
    """The row of buttons over the message under the mouse."""

    triggered = Signal(str)  # an ACTIONS key
    model_chosen = Signal(str, str)  # regenerate with another (provider, model)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("messageActions")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setAccessibleName("Message actions")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(1, 1, 1, 1)
        layout.setSpacing(0)
        self.buttons: dict[str, QToolButton] = {}
        for key in ("copy", "edit", "regenerate", "retry", "continue", "delete"):
            spec = ACTIONS[key]
            button = QToolButton(self)
            button.setAutoRaise(True)
            button.setIcon(icon(spec.icon or "copy"))
            button.setIconSize(QSize(BAR_ICON_PX, BAR_ICON_PX))
            button.setToolTip(f"{spec.label.rstrip('…')} ({spec.shortcut})")
            button.setAccessibleName(spec.label.rstrip("…"))
            button.clicked.connect(lambda _checked=False, k=key: self.triggered.emit(k))
            layout.addWidget(button)
            self.buttons[key] = button
        self.models_menu = QMenu(self)
        self.models_menu.setTitle("Regenerate with")
        self.buttons["regenerate"].setMenu(self.models_menu)
        self.buttons["regenerate"].setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.hide()

    def set_models(self, models: list[tuple[str, str]]) -> None:
        self.models_menu.clear()
        for provider, model in models:
            action = self.models_menu.addAction(f"{provider} · {model}" if model else provider)
            action.triggered.connect(lambda _checked=False, p=provider, m=model: self.model_chosen.emit(p, m))
        self.buttons["regenerate"].setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup if models
                                                else QToolButton.ToolButtonPopupMode.DelayedPopup)

    def show_actions(self, keys: list[str]) -> None:
        for key, button in self.buttons.items():
            button.setVisible(key in keys)
        self.adjustSize()
