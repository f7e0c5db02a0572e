"""A small dialog to add one provider: preset, name, base URL, model and (optionally) its API key.

It validates what it can see (name pattern, http(s) URL, a model) and shows the problem at the form; storing the
provider and its key is the caller's job (settings file and keyring).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from orchestration.providers.presets import PRESETS
from widgets.safe_text import plain_label

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class NewProvider:
    id: str
    preset: str
    kind: str
    base_url: str
    model: str
    api_key: str


class AddProviderDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, *, preset: str = "", base_url: str = "",
                 models: list[str] | None = None, taken_ids: set[str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a provider")
        self._taken = taken_ids or set()
        self.preset = QComboBox()
        self.preset.setAccessibleName("Preset")
        for name, entry in sorted(PRESETS.items(), key=lambda item: item[1].title.lower()):
            self.preset.addItem(entry.title, name)
        self.name = QLineEdit()
        self.name.setAccessibleName("Provider name")
        self.base_url = QLineEdit()
        self.base_url.setAccessibleName("Base URL")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setAccessibleName("Model")
        self.model.addItems(models or [])
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setAccessibleName("API key")
        self.api_key.setPlaceholderText("stored in your system keyring; leave empty for local servers")
        self.problem = plain_label("")
        self.problem.setObjectName("formProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()

        form = QFormLayout()
        form.addRow("Preset", self.preset)
        form.addRow("Name", self.name)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.model)
        form.addRow("API key", self.api_key)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept_if_valid)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)

        self.preset.currentIndexChanged.connect(self._preset_changed)
        index = self.preset.findData(preset) if preset else self.preset.findData("openai")
        self.preset.setCurrentIndex(max(0, index))
        self._preset_changed()
        if base_url:
            self.base_url.setText(base_url)

    def _preset_changed(self) -> None:
        name = self.preset.currentData()
        entry = PRESETS.get(name)
        if entry is None:
            return
        self.base_url.setText(entry.base_url)
        suggested = name if name not in self._taken else f"{name}-2"
        self.name.setText(suggested)

    def problems(self) -> list[str]:
        found = []
        if not NAME_PATTERN.match(self.name.text().strip()):
            found.append("Name: use letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit.")
        elif self.name.text().strip() in self._taken:
            found.append("Name: a provider with this name already exists.")
        if not self.base_url.text().strip().startswith(("http://", "https://")):
            found.append("Base URL: must start with http:// or https://.")
        if not self.model.currentText().strip():
            found.append("Model: enter the model name the provider uses.")
        return found

    def _accept_if_valid(self) -> None:
        found = self.problems()
        if found:
            self.problem.setText("\n".join(found))
            self.problem.show()
            return
        self.accept()

    def result_provider(self) -> NewProvider:
        preset = self.preset.currentData()
        entry = PRESETS[preset]
        return NewProvider(id=self.name.text().strip(), preset=preset, kind=getattr(entry, "kind", "openai"),
                           base_url=self.base_url.text().strip().rstrip("/"),
                           model=self.model.currentText().strip(), api_key=self.api_key.text().strip())
