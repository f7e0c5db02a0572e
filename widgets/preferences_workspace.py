"""Preferences > Workspace: the folders the file tools may read, and whether their calls need approval.

The folders are the settings file's ``workspace_folders``; with none the file tools (``list_directory``,
``read_file``, ``search_files``) are not offered. Approval is the same per-tool policy the Tools tab and the
approval panel's "Always allow" write (``tools.approval.<name>``), set for the three file tools at once; when
they differ (one was always-allowed, say) the tab says so and leaves them as they are unless the user picks one.
The tools only read: every folder is read-only, and the tab says so rather than offering a write mode that
nothing would honour.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tools.files import WorkspaceSettings, described_workspace_tools
from widgets.safe_text import plain_tooltip

FolderChooser = Callable[[QWidget], str | None]
FILE_TOOLS = tuple(tool.name for tool in described_workspace_tools(WorkspaceSettings()))
APPROVALS = (("ask", "Ask before each call"), ("allow", "Allow without asking"))
MIXED = ""  # the file tools have different policies; kept unless the user picks one
READ_ONLY_NOTE = ("The file tools only read: they list folders, read files and search text. Parley has no tool "
                  "that writes files, so every folder is read-only.")


def choose_folder(parent: QWidget) -> str | None:
    folder = QFileDialog.getExistingDirectory(parent, "Add a workspace folder", str(Path.home()))
    return folder or None


class WorkspaceTab(QWidget):
    def __init__(self, folders: list[str], approval: dict[str, str], *,
                 chooser: FolderChooser = choose_folder, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chooser = chooser
        self.folders = QTableWidget(0, 2)
        self.folders.setAccessibleName("Workspace folders")
        self.folders.setHorizontalHeaderLabels(["Folder", "Access"])
        self.folders.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.folders.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.folders.verticalHeader().hide()
        self.folders.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.folders.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for folder in folders:
            self._add_row(folder)
        self.add_button = QPushButton("Add…")
        self.add_button.setAccessibleName("Add a workspace folder")
        self.add_button.clicked.connect(self.add_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setAccessibleName("Remove the selected workspace folder")
        self.remove_button.clicked.connect(self.remove_selected)
        self.folders.itemSelectionChanged.connect(self._selection_changed)

        self.approval = QComboBox()
        self.approval.setAccessibleName("Approval for the file tools")
        for value, title in APPROVALS:
            self.approval.addItem(title, value)
        policies = {approval.get(name, "ask") for name in FILE_TOOLS}
        self._initial = policies.pop() if len(policies) == 1 else MIXED
        if self._initial not in dict(APPROVALS):
            shown = ", ".join(f"{name}: {approval.get(name, 'ask')}" for name in FILE_TOOLS)
            self.approval.addItem(f"Per tool ({shown})", MIXED)
            self._initial = MIXED
        self.approval.setCurrentIndex(self.approval.findData(self._initial))

        self.status = QLabel()
        self.status.setObjectName("paneStatus")
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Workspace status")
        note = QLabel(READ_ONLY_NOTE)
        note.setWordWrap(True)
        note.setObjectName("paneStatus")

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        form = QFormLayout()
        form.addRow("File tools", self.approval)
        column = QVBoxLayout(self)
        column.addWidget(QLabel("Folders the file tools may read:"))
        column.addWidget(self.folders, 1)
        column.addLayout(buttons)
        column.addWidget(note)
        column.addLayout(form)
        column.addWidget(self.status)
        self._selection_changed()

    def _add_row(self, folder: str) -> None:
        row = self.folders.rowCount()
        self.folders.insertRow(row)
        path = QTableWidgetItem(folder)
        path.setToolTip(plain_tooltip(folder))
        missing = not Path(folder).expanduser().is_dir()
        access = QTableWidgetItem("Read-only" + (" (folder not found)" if missing else ""))
        access.setFlags(access.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.folders.setItem(row, 0, path)
        self.folders.setItem(row, 1, access)

    def add_folder(self) -> None:
        chosen = self._chooser(self)
        if not chosen:
            return
        folder = str(Path(chosen).expanduser().absolute())
        if folder in self.result_folders():
            self.status.setText(f"{folder} is already a workspace folder.")
            return
        self._add_row(folder)
        self._selection_changed()

    def remove_selected(self) -> None:
        for row in sorted({index.row() for index in self.folders.selectedIndexes()}, reverse=True):
            self.folders.removeRow(row)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.folders.selectedIndexes()))
        count = self.folders.rowCount()
        self.status.setText(f"The file tools ({', '.join(FILE_TOOLS)}) are offered for {count} folder"
                            f"{'' if count == 1 else 's'}." if count else
                            "No folder chosen: the file tools are not offered.")

    # --- result -------------------------------------------------------------------------------------
    def result_folders(self) -> list[str]:
        return [self.folders.item(row, 0).text() for row in range(self.folders.rowCount())]

    def apply_approval(self, approval: dict[str, str]) -> dict[str, str]:
        """``approval`` (tool name -> policy) with the file tools' policy applied if the user changed it."""
        chosen = self.approval.currentData()
        if chosen == self._initial or chosen == MIXED:
            return approval
        return {**approval, **dict.fromkeys(FILE_TOOLS, chosen)}
