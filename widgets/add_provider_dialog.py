"""A small dialog to add one provider: preset, name, base URL, model and (optionally) its API key.

It validates what it can see (name pattern, http(s) URL, a model) and shows the problem at the form; a problem
shown goes away as soon as the field is fixed. "List models" asks the server for its models and fills the model
picker; "Test" sends one tiny request to the chosen model and says whether it answered. Both run the injected
async callables on the running (qasync) loop, so the window never waits on the network. Storing the provider
and its key is the caller's job (settings file and keyring).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from orchestration.providers.presets import PRESETS

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
KEY_PLACEHOLDER = "Leave empty for a local server"
KEY_HINT = "The key is stored in your system keyring, never in the settings file."
FIELD_TEXT_MARGIN_PX = 32  # a line edit's frame and text margins, so its placeholder is never cut


@dataclass(frozen=True)
class NewProvider:
    id: str
    preset: str
    kind: str
    base_url: str
    model: str
    api_key: str


ModelLister = Callable[[NewProvider], Awaitable[list[str]]]
"""The names of the models the provider lists (raises with a message the dialog shows)."""
ProviderTester = Callable[[NewProvider], Awaitable[str]]
"""Sends a tiny request to the chosen model and returns the start of its reply."""


class AddProviderDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, *, preset: str = "", base_url: str = "",
                 models: list[str] | None = None, taken_ids: set[str] | None = None,
                 list_models: ModelLister | None = None, test_provider: ProviderTester | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a provider")
        self._taken = taken_ids or set()
        self._list_models = list_models
        self._test_provider = test_provider
        self.task: asyncio.Future[None] | None = None
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
        self.list_button = QPushButton("List models")
        self.list_button.setAccessibleName("List the server's models")
        self.list_button.setToolTip("Ask the server which models it has and put them in the model picker")
        self.list_button.setEnabled(list_models is not None)
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setAccessibleName("API key")
        self.api_key.setPlaceholderText(KEY_PLACEHOLDER)
        self.api_key.setToolTip(KEY_HINT)
        self.api_key.setMinimumWidth(self.api_key.fontMetrics().horizontalAdvance(KEY_PLACEHOLDER)
                                     + FIELD_TEXT_MARGIN_PX)
        key_hint = QLabel(KEY_HINT)
        key_hint.setObjectName("paneDetail")
        key_hint.setWordWrap(True)
        self.test_button = QPushButton("Test")
        self.test_button.setAccessibleName("Test the provider")
        self.test_button.setToolTip("Send one tiny request to the model and report whether it answered")
        self.test_button.setEnabled(test_provider is not None)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # server messages are shown literally, never as HTML
        self.status.setObjectName("checkStatus")
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Connection check")
        self.status.hide()
        self.problem = QLabel()
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setObjectName("formProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()

        model_row = QHBoxLayout()
        model_row.setContentsMargins(0, 0, 0, 0)
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.list_button)
        key_column = QVBoxLayout()
        key_column.setContentsMargins(0, 0, 0, 0)
        key_column.setSpacing(2)
        key_column.addWidget(self.api_key)
        key_column.addWidget(key_hint)
        form = QFormLayout()
        form.addRow("Preset", self.preset)
        form.addRow("Name", self.name)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", model_row)
        form.addRow("API key", key_column)
        check_row = QHBoxLayout()
        check_row.addWidget(self.test_button)
        check_row.addWidget(self.status, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(check_row)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

        self.preset.currentIndexChanged.connect(self._preset_changed)
        index = self.preset.findData(preset) if preset else self.preset.findData("openai")
        self.preset.setCurrentIndex(max(0, index))
        self._preset_changed()
        if base_url:
            self.base_url.setText(base_url)
        for signal in (self.name.textChanged, self.base_url.textChanged, self.model.currentTextChanged):
            signal.connect(self._revalidate)
        self.list_button.clicked.connect(self.list_server_models)
        self.test_button.clicked.connect(self.test)
        self.finished.connect(self._cancel_check)

    def _preset_changed(self) -> None:
        name = self.preset.currentData()
        entry = PRESETS.get(name)
        if entry is None:
            return
        self.base_url.setText(entry.base_url)
        suggested = name if name not in self._taken else f"{name}-2"
        self.name.setText(suggested)

    # --- validation ---------------------------------------------------------------------------------
    def _name_problem(self) -> str | None:
        if not NAME_PATTERN.match(self.name.text().strip()):
            return "Name: use letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit."
        if self.name.text().strip() in self._taken:
            return "Name: a provider with this name already exists."
        return None

    def _url_problem(self) -> str | None:
        if not self.base_url.text().strip().startswith(("http://", "https://")):
            return "Base URL: must start with http:// or https://."
        return None

    def _model_problem(self) -> str | None:
        if not self.model.currentText().strip():
            return "Model: enter the model name the provider uses."
        return None

    def problems(self) -> list[str]:
        return [p for p in (self._name_problem(), self._url_problem(), self._model_problem()) if p]

    def problem_text(self) -> str:
        """The problems shown under the form ("" when none is shown)."""
        return self.problem.text() if not self.problem.isHidden() else ""

    def _show_problems(self, found: list[str]) -> None:
        self.problem.setText("\n".join(found))
        self.problem.setVisible(bool(found))

    def _revalidate(self) -> None:
        """Once problems are shown, keep them current: a fixed field's problem goes away at once."""
        if not self.problem.isHidden():
            self._show_problems(self.problems())

    def _accept_if_valid(self) -> None:
        found = self.problems()
        if found:
            self._show_problems(found)
            return
        self.accept()

    # --- list models and test -----------------------------------------------------------------------
    def status_text(self) -> str:
        return self.status.text() if not self.status.isHidden() else ""

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def list_server_models(self) -> None:
        """Ask the server for its models (in the background); the picker fills when they arrive."""
        if self._list_models is None:
            return
        problem = self._url_problem()
        if problem:
            self._say(problem)
            return
        self._start(self._run_list(self._list_models, self.draft()), "Asking the server for its models…")

    def test(self) -> None:
        """Send one tiny request to the chosen model (in the background) and say what happened."""
        if self._test_provider is None:
            return
        problem = self._url_problem() or self._model_problem()
        if problem:
            self._say(problem)
            return
        self._start(self._run_test(self._test_provider, self.draft()), f"Sending a test message to "
                    f"{self.draft().model}…")

    def draft(self) -> NewProvider:
        """What the form says now (validated or not)."""
        preset = self.preset.currentData()
        entry = PRESETS[preset]
        return NewProvider(id=self.name.text().strip(), preset=preset, kind=getattr(entry, "kind", "openai"),
                           base_url=self.base_url.text().strip().rstrip("/"),
                           model=self.model.currentText().strip(), api_key=self.api_key.text().strip())

    def _start(self, work: Awaitable[None], waiting: str) -> None:
        self._cancel_check()
        self._say(waiting)
        self.list_button.setEnabled(False)
        self.test_button.setEnabled(False)
        self.task = asyncio.ensure_future(work)

    def _cancel_check(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _checks_done(self) -> None:
        self.list_button.setEnabled(self._list_models is not None)
        self.test_button.setEnabled(self._test_provider is not None)

    async def _run_list(self, lister: ModelLister, draft: NewProvider) -> None:
        try:
            models = await lister(draft)
        except asyncio.CancelledError:
            raise  # the dialog closed or a new check started: nothing here to update
        except Exception as error:  # the provider's typed error, shown as its message
            self._checks_done()
            self._say(f"Could not list models: {error}")
            return
        self._checks_done()
        typed = self.model.currentText().strip()
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(typed if typed in models or not models else models[0])
        if models:
            self._say(f"The server lists {_count(len(models), 'model')}; pick one above.")
        else:
            self._say("The server answered but lists no models; type the model name.")

    async def _run_test(self, tester: ProviderTester, draft: NewProvider) -> None:
        try:
            reply = await tester(draft)
        except asyncio.CancelledError:
            raise  # the dialog closed or a new check started: nothing here to update
        except Exception as error:  # the provider's typed error, shown as its message
            self._checks_done()
            self._say(f"Test failed: {error}")
            return
        self._checks_done()
        self._say(f"OK: {draft.model} answered “{reply}”." if reply else f"OK: {draft.model} answered.")

    def result_provider(self) -> NewProvider:
        return self.draft()


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"
