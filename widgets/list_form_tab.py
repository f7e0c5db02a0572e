"""What the Preferences tabs that edit a list (providers, MCP servers) share: rows of form values beside a list,
the selected row, removing it, problems shown at their fields, a duplicate-name check and renames.

A subclass builds ``list`` (QListWidget), ``errors`` (field -> error label) and its form, keeps ``rows`` (dicts of
form values with the naming field ``KEY`` and ``original``, the name in use or None for a new row) and provides
``_load(index)`` and ``problems_of(index)``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget


class ListFormTab(QWidget):
    changed = Signal()
    KEY: ClassVar[str] = "name"  # the row field that names an entry (and its keyring entries)
    NOUN: ClassVar[str] = "entry"  # in "another <noun> is already called ..."

    rows: list[dict[str, Any]]
    list: QListWidget
    errors: dict[str, QLabel]

    def _build_list(self, list_name: str, add_name: str, remove_name: str) -> QVBoxLayout:
        """The list with Add and Remove under it (``list``, ``add_button``, ``remove_button``), as a layout."""
        self.list = QListWidget()
        self.list.setAccessibleName(list_name)
        self.add_button = QPushButton("Add")
        self.add_button.setAccessibleName(add_name)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setAccessibleName(remove_name)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        left.addLayout(buttons)
        return left

    def current(self) -> dict[str, Any] | None:
        index = self.list.currentRow()
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def remove_current(self) -> None:
        index = self.list.currentRow()
        if not 0 <= index < len(self.rows):
            return
        del self.rows[index]
        self.list.takeItem(index)
        self._load(self.list.currentRow())
        self.changed.emit()

    def _load(self, index: int) -> None:
        raise NotImplementedError

    def problems_of(self, index: int) -> dict[str, str]:
        raise NotImplementedError

    def duplicate_problem(self, index: int) -> str | None:
        """The message when an earlier row already has this row's name, or another row is still called so until
        OK (a swap or chain of renames in one go would move a key onto one that has not moved yet)."""
        name = self.rows[index][self.KEY].strip()
        if any(r[self.KEY].strip() == name for r in self.rows[:index]):
            return f"another {self.NOUN} is already called {self.rows[index][self.KEY]}"
        if any(r["original"] == name != r[self.KEY].strip() for i, r in enumerate(self.rows) if i != index):
            return (f"another {self.NOUN} is called {name} until OK; rename that one first, press OK, then use "
                    "this name")
        return None

    def show_problems(self) -> None:
        index = self.list.currentRow()
        problems = self.problems_of(index) if 0 <= index < len(self.rows) else {}
        for name, label in self.errors.items():
            label.setText(problems.get(name, ""))
            label.setVisible(name in problems)

    def renames(self) -> dict[str, str]:
        """Entries given a new name: the name in use -> the new one (applied on OK, with the settings)."""
        return {r["original"]: r[self.KEY].strip() for r in self.rows
                if r["original"] is not None and r[self.KEY].strip() != r["original"]}
