"""Preferences > Workspace: the folders the file tools may use, each read-only or read-write, and whether the
reading and the writing tools' calls need approval.

The folders are the settings file's ``workspace_folders``; the read-write ones are also in
``workspace_writable``. With no folder the file tools (``list_directory``, ``read_file``, ``search_files``) are
not offered; with no read-write folder the write tools (``write_file``, ``edit_file``) are not. Approval is the
same per-tool policy the Tools tab and the approval panel's "Always allow" write (``tools.approval.<name>``), set
for each group at once; when a group's tools differ (one was always-allowed, say) the tab says so and leaves them
as they are unless the user picks one. The write tools ask by default, showing the diff of each change.
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

from tools.files import READ_TOOLS, WRITE_TOOLS
from tools.files.settings import normalized_folder
from widgets.safe_text import plain_tooltip

FolderChooser = Callable[[QWidget], str | None]
FILE_TOOLS = READ_TOOLS
APPROVALS = (("ask", "Ask before each call"), ("allow", "Allow without asking"))
MIXED = ""  # the group's tools have different policies; kept unless the user picks one
READ_ONLY, READ_WRITE = "read-only", "read-write"
ACCESS = ((READ_ONLY, "Read-only"), (READ_WRITE, "Read-write"))
ACCESS_NOTE = ("Read-only folders can be listed, read and searched. In read-write folders the model may also "
               "create and change files (write_file, edit_file); each change shows its diff for approval unless "
               "you allow the write tools without asking.")
FOLDER_COLUMN, ACCESS_COLUMN, NOTE_COLUMN = 0, 1, 2
ACCESS_ROLE = Qt.ItemDataRole.UserRole


def choose_folder(parent: QWidget) -> str | None:
    folder = QFileDialog.getExistingDirectory(parent, "Add a workspace folder", str(Path.home()))
    return folder or None


class PolicyChoice(QComboBox):
    """One approval policy for a group of tools, or "Per tool (...)" when they differ and nobody chose."""

    def __init__(self, tools: tuple[str, ...], approval: dict[str, str], accessible_name: str) -> None:
        super().__init__()
        self.tools = tools
        self.setAccessibleName(accessible_name)
        for value, title in APPROVALS:
            self.addItem(title, value)
        policies = {approval.get(name, "ask") for name in tools}
        self.initial = policies.pop() if len(policies) == 1 else MIXED
        if self.initial not in dict(APPROVALS):
            shown = ", ".join(f"{name}: {approval.get(name, 'ask')}" for name in tools)
            self.addItem(f"Per tool ({shown})", MIXED)
            self.initial = MIXED
        self.setCurrentIndex(self.findData(self.initial))

    def apply(self, approval: dict[str, str]) -> dict[str, str]:
        chosen = self.currentData()
        if chosen == self.initial or chosen == MIXED:
            return approval
        return {**approval, **dict.fromkeys(self.tools, chosen)}


class WorkspaceTab(QWidget):
    def __init__(self, folders: list[str], approval: dict[str, str], writable: list[str] | None = None, *,
                 chooser: FolderChooser = choose_folder, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chooser = chooser
        writable_paths = {normalized_folder(f) for f in writable or []}
        self.folders = QTableWidget(0, 3)
        self.folders.setAccessibleName("Workspace folders")
        self.folders.setHorizontalHeaderLabels(["Folder", "Access", ""])
        header = self.folders.horizontalHeader()
        header.setSectionResizeMode(FOLDER_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ACCESS_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(NOTE_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        self.folders.verticalHeader().hide()
        self.folders.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.folders.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for folder in folders:
            self._add_row(folder, READ_WRITE if normalized_folder(folder) in writable_paths else READ_ONLY)
        self.add_button = QPushButton("Add…")
        self.add_button.setAccessibleName("Add a workspace folder")
        self.add_button.clicked.connect(self.add_folder)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setAccessibleName("Remove the selected workspace folder")
        self.remove_button.clicked.connect(self.remove_selected)
        self.folders.itemSelectionChanged.connect(self._update)

        self.approval = PolicyChoice(READ_TOOLS, approval, "Approval for the reading file tools")
        self.write_approval = PolicyChoice(WRITE_TOOLS, approval, "Approval for the write tools")

        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it names folders: shown literally, never as HTML
        self.status.setObjectName("paneStatus")
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Workspace status")
        note = QLabel(ACCESS_NOTE)
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setWordWrap(True)
        note.setObjectName("paneStatus")

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        form = QFormLayout()
        form.addRow("Reading (list, read, search)", self.approval)
        form.addRow("Writing (write_file, edit_file)", self.write_approval)
        column = QVBoxLayout(self)
        column.addWidget(QLabel("Folders the file tools may use:"))
        column.addWidget(self.folders, 1)
        column.addLayout(buttons)
        column.addWidget(note)
        column.addLayout(form)
        column.addWidget(self.status)
        self._update()

    def _add_row(self, folder: str, access: str) -> None:
        row = self.folders.rowCount()
        self.folders.insertRow(row)
        path = QTableWidgetItem(folder)
        path.setToolTip(plain_tooltip(folder))
        path.setData(ACCESS_ROLE, access)  # the row's mode; the combo box below edits it
        self.folders.setItem(row, FOLDER_COLUMN, path)
        mode = QComboBox()
        mode.setAccessibleName(f"Access to {folder}")
        for value, title in ACCESS:
            mode.addItem(title, value)
        mode.setCurrentIndex(mode.findData(access))
        self.folders.setCellWidget(row, ACCESS_COLUMN, mode)
        mode.currentIndexChanged.connect(lambda _index, item=path, box=mode: self._access_chosen(item, box))
        missing = not Path(folder).expanduser().is_dir()
        note = QTableWidgetItem("folder not found" if missing else "")
        note.setFlags(note.flags() & ~Qt.ItemFlag.ItemIsEditable)
        self.folders.setItem(row, NOTE_COLUMN, note)

    def _access_chosen(self, item: QTableWidgetItem, box: QComboBox) -> None:
        item.setData(ACCESS_ROLE, box.currentData())
        self._update()

    def access_box(self, row: int) -> QComboBox:
        box = self.folders.cellWidget(row, ACCESS_COLUMN)
        assert isinstance(box, QComboBox)
        return box

    def add_folder(self) -> None:
        chosen = self._chooser(self)
        if not chosen:
            return
        folder = str(Path(chosen).expanduser().absolute())
        if folder in self.result_folders():
            self.status.setText(f"{folder} is already a workspace folder.")
            return
        self._add_row(folder, READ_ONLY)  # writing is a choice the user makes per folder
        self._update()

    def remove_selected(self) -> None:
        for row in sorted({index.row() for index in self.folders.selectedIndexes()}, reverse=True):
            self.folders.removeRow(row)
        self._update()

    def _update(self) -> None:
        self.remove_button.setEnabled(bool(self.folders.selectedIndexes()))
        count = self.folders.rowCount()
        writable = len(self.result_writable())
        if not count:
            self.status.setText("No folder chosen: the file tools are not offered.")
            return
        reading = (f"The reading tools ({', '.join(READ_TOOLS)}) are offered for {count} folder"
                   f"{'' if count == 1 else 's'}")
        writing = (f"the write tools ({', '.join(WRITE_TOOLS)}) for {writable} read-write folder"
                   f"{'' if writable == 1 else 's'}." if writable else
                   "the write tools are not offered (no folder is read-write).")
        self.status.setText(f"{reading}; {writing}")

    # --- result -------------------------------------------------------------------------------------
    def result_folders(self) -> list[str]:
        items = [self.folders.item(row, FOLDER_COLUMN) for row in range(self.folders.rowCount())]
        return [item.text() for item in items if item is not None]

    def result_writable(self) -> list[str]:
        items = [self.folders.item(row, FOLDER_COLUMN) for row in range(self.folders.rowCount())]
        return [item.text() for item in items if item is not None and item.data(ACCESS_ROLE) == READ_WRITE]

    def apply_approval(self, approval: dict[str, str]) -> dict[str, str]:
        """``approval`` (tool name -> policy) with each group's policy applied if the user changed it."""
        return self.write_approval.apply(self.approval.apply(approval))
