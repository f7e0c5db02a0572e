"""The composer's tool picker: which tools this chat offers the model, one check box per tool, grouped (built-in,
web, workspace, each MCP server), replacing a single on/off switch.

It shows plain ``ToolOption`` values and reports the pick as a tuple of names, or None when every tool is
checked (so a tool added later, e.g. by a new MCP server, is offered too). With no tools to offer, or a
provider that takes none, the button is disabled and its tooltip says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.icons import icon

POPUP_MIN_WIDTH = 300
POPUP_MAX_HEIGHT = 520
POPUP_TREE_MAX_HEIGHT = 420  # the list scrolls past this
_NAME_ROLE = Qt.ItemDataRole.UserRole


@dataclass(frozen=True)
class ToolOption:
    name: str
    group: str  # the heading it is listed under, e.g. "Built-in", "Web", "Workspace", "MCP: time"
    description: str = ""


class ToolPickerPopup(QFrame):
    """The list of check boxes, shown as a popup above the button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("toolPickerPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("toolPickerList")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setAccessibleName("Tools this chat offers")
        self.all_button = QPushButton("All", self)
        self.none_button = QPushButton("None", self)
        title = QLabel("Tools this chat offers", self)
        title.setObjectName("popoverTitle")
        buttons = QHBoxLayout()
        buttons.addWidget(self.all_button)
        buttons.addWidget(self.none_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addWidget(title)
        layout.addWidget(self.tree)
        layout.addLayout(buttons)
        self.setMinimumWidth(POPUP_MIN_WIDTH)


class ToolPicker(QToolButton):
    """A "Tools" button whose popup lists every tool with a check box; see the module docstring."""

    tools_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolPicker")
        self.setIcon(icon("tools"))
        self.setIconSize(QSize(16, 16))
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setAccessibleName("Tools for this chat")
        self.popup = ToolPickerPopup(self)
        self.popup.tree.itemChanged.connect(self._item_changed)
        self.popup.all_button.clicked.connect(lambda: self._check_all(True))
        self.popup.none_button.clicked.connect(lambda: self._check_all(False))
        self.clicked.connect(self.show_popup)
        self._unavailable: str | None = None
        self._updating = False
        self._reported: tuple[str, ...] | None = None
        self._refresh()

    # --- values -----------------------------------------------------------------------------------------
    def set_options(self, options: list[ToolOption], selected: tuple[str, ...] | None = None) -> None:
        """The tools there are, and which are checked (None: all)."""
        self._updating = True
        tree = self.popup.tree
        tree.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        for option in options:
            group = groups.get(option.group)
            if group is None:
                group = QTreeWidgetItem(tree, [option.group])
                group.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable
                               | Qt.ItemFlag.ItemIsAutoTristate)
                group.setExpanded(True)
                groups[option.group] = group
            item = QTreeWidgetItem(group, [option.name])
            item.setData(0, _NAME_ROLE, option.name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setToolTip(0, option.description)
            checked = selected is None or option.name in selected
            item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        tree.expandAll()
        self._updating = False
        self._refresh()

    def set_selected(self, selected: tuple[str, ...] | None) -> None:
        self._updating = True
        for item in self._items():
            checked = selected is None or item.data(0, _NAME_ROLE) in selected
            item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self._updating = False
        self._refresh()

    def options(self) -> list[str]:
        return [str(item.data(0, _NAME_ROLE)) for item in self._items()]

    def selected_tools(self) -> tuple[str, ...] | None:
        """The checked tools; None when all are checked."""
        items = self._items()
        checked = tuple(str(i.data(0, _NAME_ROLE)) for i in items if i.checkState(0) == Qt.CheckState.Checked)
        return None if len(checked) == len(items) else checked

    def set_unavailable(self, reason: str | None) -> None:
        """Disable the picker (with ``reason`` as its tooltip) or enable it again."""
        self._unavailable = reason
        self._refresh()

    # --- behaviour --------------------------------------------------------------------------------------
    def show_popup(self) -> None:
        popup = self.popup
        tree = popup.tree
        rows = tree.topLevelItemCount() + len(self._items())
        row_height = tree.sizeHintForRow(0) if rows else tree.fontMetrics().height()
        tree.setFixedHeight(min(rows * row_height + 2 * tree.frameWidth() + 4, POPUP_TREE_MAX_HEIGHT))
        popup.adjustSize()
        height = min(popup.sizeHint().height(), POPUP_MAX_HEIGHT)
        popup.resize(max(popup.sizeHint().width(), POPUP_MIN_WIDTH), height)
        popup.move(self.mapToGlobal(QPoint(0, -height - 4)))
        popup.show()

    def _items(self) -> list[QTreeWidgetItem]:
        tree = self.popup.tree
        return [tree.topLevelItem(g).child(c) for g in range(tree.topLevelItemCount())
                for c in range(tree.topLevelItem(g).childCount())]

    def _check_all(self, checked: bool) -> None:
        before = self.selected_tools()
        self.set_selected(None if checked else ())
        if self.selected_tools() != before:
            self.tools_changed.emit()

    def _item_changed(self, _item: QTreeWidgetItem, _column: int) -> None:
        if self._updating or self.selected_tools() == self._reported:
            return  # a group's box follows its tools' boxes: one change, reported once
        self._refresh()
        self.tools_changed.emit()

    def _refresh(self) -> None:
        items = self._items()
        selected = self._reported = self.selected_tools()
        count = len(items) if selected is None else len(selected)
        if self._unavailable or not items:
            self.setText("Tools")
            self.setEnabled(False)
            self.setToolTip(self._unavailable or "No tools are offered (see Preferences > Tools)")
            return
        self.setEnabled(True)
        self.setText("Tools" if selected is None else f"Tools {count}/{len(items)}")
        self.setToolTip(f"Tools this chat offers the model: {count} of {len(items)}")
