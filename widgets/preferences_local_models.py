"""Preferences > Local models: the GGUF files the built-in engine knows, with what their metadata says (size,
quantization, context length, license), the default, adding from disk, deleting, downloading with progress
and Cancel, and the engine's controls (load a model now, restart after a crash) with the end of its log.

A widget on plain values: it emits what the user asked for and shows what it is told (rows, progress, engine
state). The app (app/engine/local_models_panel.py) does the work off the UI thread; nothing here touches
files, the network or the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.form_errors import error_label
from widgets.preferences_engine_tuning import EngineTuningBox
from widgets.safe_text import plain_label, set_plain_text

COLUMNS = ("Name", "Size", "Quantization", "Context", "License")
NAME_ROLE = Qt.ItemDataRole.UserRole
OTHER = "__other__"  # the download choice that takes a repository and file typed in

FileChooser = Callable[[QWidget], str | None]
Confirm = Callable[[QWidget, str], bool]


@dataclass(frozen=True)
class ModelRow:
    name: str
    path: str
    size: int | None  # None: the file is missing
    quantization: str | None = None
    context_length: int | None = None
    license: str | None = None
    default: bool = False
    demo: bool = False
    note: str = ""  # "reading…", a problem with the file, a memory warning


@dataclass(frozen=True)
class DownloadChoice:
    name: str
    repo: str
    file: str
    size: int
    license: str
    note: str


def choose_gguf(parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Add a GGUF model", str(Path.home()), "GGUF models (*.gguf)")
    return path or None


def ask(parent: QWidget, question: str) -> bool:
    answer = QMessageBox.question(parent, "Local models", question)
    return answer == QMessageBox.StandardButton.Yes


def size_text(size: int | None) -> str:
    if size is None:
        return "missing"
    return f"{size / 1e9:.2f} GB" if size >= 1e9 else f"{size / 1e6:,.0f} MB"


class LocalModelsTab(QWidget):
    default_chosen = Signal(str)
    add_requested = Signal(str)  # a path
    delete_requested = Signal(str)  # a name
    download_requested = Signal(str, str)  # repository, file
    cancel_requested = Signal()
    preload_requested = Signal(str)  # a name
    restart_requested = Signal()

    def __init__(self, rows: Sequence[ModelRow], choices: Sequence[DownloadChoice], *,
                 choose_file: FileChooser = choose_gguf, confirm: Confirm = ask) -> None:
        super().__init__()
        self.setAccessibleName("Local models")
        self.choose_file, self.confirm = choose_file, confirm
        self.rows: list[ModelRow] = []

        intro = plain_label("GGUF models the built-in engine (provider builtin) runs on this machine, offline. "
                            "The default one answers when a run names no model.")
        intro.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Local models list")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.row_note = plain_label("")
        self.row_note.setWordWrap(True)
        self.row_note.setAccessibleName("Selected model")
        self.problem = error_label()
        self.problem.setAccessibleName("Local models problem")

        self.add_button = QPushButton("Add from disk…")
        self.default_button = QPushButton("Make default")
        self.delete_button = QPushButton("Delete")
        self.add_button.clicked.connect(self._add)
        self.default_button.clicked.connect(lambda: self._emit_selected(self.default_chosen))
        self.delete_button.clicked.connect(self._delete)
        actions = QHBoxLayout()
        for button in (self.add_button, self.default_button, self.delete_button):
            actions.addWidget(button)
        actions.addStretch(1)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.row_note)
        layout.addWidget(self.problem)
        layout.addLayout(actions)
        layout.addWidget(self._download_box(choices))
        layout.addWidget(self._engine_box())
        self.tuning = EngineTuningBox()  # context, threads, GPU layers, idle stop (app/engine/tuning_panel.py)
        layout.addWidget(self.tuning)
        self.set_rows(rows)

    # --- building -----------------------------------------------------------------------------------
    def _download_box(self, choices: Sequence[DownloadChoice]) -> QGroupBox:
        box = QGroupBox("Download from Hugging Face")
        self.choice = QComboBox()
        self.choice.setAccessibleName("Model to download")
        for choice in choices:
            self.choice.addItem(f"{choice.name} · {size_text(choice.size)} · {choice.license} · {choice.note}",
                                (choice.repo, choice.file))
        self.choice.addItem("Another GGUF file (repository and file name)…", OTHER)
        self.choice.currentIndexChanged.connect(self._choice_changed)
        self.repo_field = QLineEdit()
        self.repo_field.setPlaceholderText("OWNER/REPOSITORY, e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF")
        self.repo_field.setAccessibleName("Repository")
        self.file_field = QLineEdit()
        self.file_field.setPlaceholderText("FILE.gguf")
        self.file_field.setAccessibleName("File")
        self.download_button = QPushButton("Download")
        self.cancel_button = QPushButton("Cancel download")
        self.cancel_button.setEnabled(False)
        self.download_button.clicked.connect(self._download)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Download progress")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.progress.setFormat("")
        self.download_status = plain_label("")
        self.download_status.setWordWrap(True)
        self.download_status.setAccessibleName("Download status")
        typed = QHBoxLayout()
        typed.addWidget(self.repo_field, 2)
        typed.addWidget(self.file_field, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(box)
        layout.addWidget(self.choice)
        layout.addLayout(typed)
        layout.addLayout(buttons)
        layout.addWidget(self.download_status)
        self._choice_changed()
        return box

    def _engine_box(self) -> QGroupBox:
        box = QGroupBox("Built-in engine")
        self.engine_state = plain_label("Not running: it starts when a run needs it.")
        self.engine_state.setAccessibleName("Engine state")
        self.engine_state.setWordWrap(True)
        self.preload_button = QPushButton("Load selected model now")
        self.restart_button = QPushButton("Restart engine")
        self.preload_button.clicked.connect(lambda: self._emit_selected(self.preload_requested))
        self.restart_button.clicked.connect(self.restart_requested.emit)
        self.log_view = QPlainTextEdit()
        self.log_view.setReadOnly(True)
        self.log_view.setAccessibleName("Engine log")
        self.log_view.setMaximumHeight(110)
        self.log_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log_view.setPlaceholderText("The engine's log shows here once it has run.")
        buttons = QHBoxLayout()
        buttons.addWidget(self.engine_state, 1)
        buttons.addWidget(self.preload_button)
        buttons.addWidget(self.restart_button)
        layout = QVBoxLayout(box)
        layout.addLayout(buttons)
        layout.addWidget(self.log_view)
        return box

    # --- shown state --------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[ModelRow]) -> None:
        selected = self.selected_name()
        self.rows = list(rows)
        self.table.setRowCount(len(self.rows))
        for index, row in enumerate(self.rows):
            name = row.name + ("  ★ default" if row.default else "") + ("  (tiny demo)" if row.demo else "")
            cells = (name, size_text(row.size), row.quantization or "", f"{row.context_length:,}"
                     if row.context_length else "", row.license or "")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(NAME_ROLE, row.name)
                item.setToolTip(row.path if not row.note else f"{row.path}\n{row.note}")
                self.table.setItem(index, column, item)
            if row.name == selected:
                self.table.selectRow(index)
        self._selection_changed()

    def selected_name(self) -> str | None:
        items = self.table.selectedItems()
        return items[0].data(NAME_ROLE) if items else None

    def select(self, name: str) -> None:
        for index, row in enumerate(self.rows):
            if row.name == name:
                self.table.selectRow(index)

    def _selected_row(self) -> ModelRow | None:
        name = self.selected_name()
        return next((r for r in self.rows if r.name == name), None)

    def _selection_changed(self) -> None:
        row = self._selected_row()
        self.default_button.setEnabled(row is not None and not row.default and row.size is not None)
        self.delete_button.setEnabled(row is not None and not row.demo)
        self.preload_button.setEnabled(row is not None and row.size is not None)
        set_plain_text(self.row_note, f"{row.path}" + (f" · {row.note}" if row.note else "") if row else "")

    def set_download_progress(self, phase: str, done: int, total: int | None) -> None:
        verb = "Downloading" if phase == "download" else "Checking"
        if total:
            self.progress.setValue(int(1000 * min(done, total) / total))
            self.progress.setFormat(f"{verb} {size_text(done)} of {size_text(total)} (%p%)")
        else:
            self.progress.setRange(0, 0)

    def set_downloading(self, what: str) -> None:
        self.download_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setFormat("Starting…")
        set_plain_text(self.download_status, f"Downloading {what}…")

    def download_finished(self, message: str, *, ok: bool) -> None:
        self.download_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1000)
        if ok:
            self.progress.setValue(1000)
            self.progress.setFormat("Done")
        else:
            self.progress.setFormat("")
        set_plain_text(self.download_status, message)

    def show_problem(self, message: str) -> None:
        set_plain_text(self.problem, message)
        self.problem.setVisible(bool(message))

    def set_engine(self, state: str, log_tail: str) -> None:
        set_plain_text(self.engine_state, state)
        if log_tail != self.log_view.toPlainText():
            self.log_view.setPlainText(log_tail)
            bar = self.log_view.verticalScrollBar()
            bar.setValue(bar.maximum())

    # --- actions ------------------------------------------------------------------------------------
    def _emit_selected(self, signal: SignalInstance) -> None:
        name = self.selected_name()
        if name is not None:
            signal.emit(name)

    def _add(self) -> None:
        self.show_problem("")
        path = self.choose_file(self)
        if path:
            self.add_requested.emit(path)

    def _delete(self) -> None:
        row = self._selected_row()
        if row is not None and self.confirm(self, f"Delete {row.name}? A file Parley downloaded is deleted from "
                                                  "disk; a file you added stays where it is."):
            self.delete_requested.emit(row.name)

    def _choice_changed(self) -> None:
        other = self.choice.currentData() == OTHER
        self.repo_field.setVisible(other)
        self.file_field.setVisible(other)

    def _download(self) -> None:
        data = self.choice.currentData()
        if data == OTHER:
            repo, file = self.repo_field.text().strip(), self.file_field.text().strip()
            if not repo or not file:
                set_plain_text(self.download_status, "Type the repository (OWNER/NAME) and the .gguf file name.")
                return
        else:
            repo, file = data
        self.download_requested.emit(repo, file)
