"""The Providers tab: the list of providers and a form for the selected one, validated as the settings model does.

Each provider is edited as a plain dict of form values; the settings' provider model (handed in by app/)
validates it on every change and
each problem is shown under its field (a bad URL, a credential header, an id that is taken). A provider's id
can be chosen only when it is added, because its key lives in the keyring under ``provider:<id>``.
"Test connection" runs the injected async lister on the running (qasync) loop and never blocks the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from orchestration.providers import ADAPTER_KINDS
from orchestration.providers.presets import PRESETS
from orchestration.reasoning_effort import REASONING_EFFORTS
from widgets.form_errors import error_label, with_error
from widgets.list_form_tab import ListFormTab
from widgets.preferences_keys import KeyActions, KeyRow
from widgets.safe_text import plain_label

ConnectionTester = Callable[[Any, str | None], Awaitable[list[str]]]  # (a provider model, a typed key)
REASONING_CHOICES = ("", *REASONING_EFFORTS)  # "" leaves it to the composer's picker
MODELS_SHOWN = 8  # model names listed in the test result line; all of them go into the model picker
FORM_FIELDS = ("id", "base_url", "default_model", "headers")


def missing_key_note(preset: str) -> str:
    """What the test line adds when no key is kept and chats with ``preset`` need one (a model list often needs
    none, so a test can succeed where every message would be refused for the missing key)."""
    entry = PRESETS.get(preset)
    if entry is None or not entry.key_required:
        return ""
    return (f" Chats with the {entry.title} preset need an API key: store one below, or choose the preset "
            f"\"{PRESETS['custom'].title}\" for a server without keys.")


def parse_headers(text: str) -> dict[str, str]:
    """``Name: value`` lines; blank lines are skipped. Raises ValueError naming the line that has no colon."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise ValueError(f"line {number} is not “Name: value”")
        headers[name.strip()] = value.strip()
    return headers


VISION_CHOICES = (("The preset's (by model family)", ""), ("Yes: its models take images", "yes"),
                  ("No images", "no"))
"""Whether images may be sent (``capabilities.vision``): a local or custom server running a vision model says yes."""


def vision_choice(rest: dict[str, Any]) -> str:
    vision = (rest.get("capabilities") or {}).get("vision")
    return "" if vision is None else ("yes" if vision else "no")


def with_vision(rest: dict[str, Any], choice: str) -> dict[str, Any]:
    """``rest`` with ``capabilities.vision`` set for "yes" or "no", and left to the preset for ""."""
    capabilities = {k: v for k, v in (rest.get("capabilities") or {}).items() if k != "vision"}
    if choice:
        capabilities["vision"] = choice == "yes"
    return {**rest, "capabilities": capabilities}


def provider_row(entry: Any, *, is_default: bool, new: bool = False) -> dict[str, Any]:
    return {"id": entry.id, "kind": entry.kind, "preset": entry.preset, "base_url": entry.base_url,
            "default_model": entry.default_model or "", "reasoning_effort": entry.reasoning_effort or "",
            "headers": "\n".join(f"{k}: {v}" for k, v in entry.headers.items()), "is_default": is_default,
            "new": new, "original": None if new else entry.id,
            "rest": entry.model_dump(include={"capabilities", "think_tags"})}


def row_problems(row: dict[str, Any], model: type[BaseModel]) -> tuple[Any, dict[str, str]]:
    """The provider validated by ``model``, or None and the problems by form field."""
    problems: dict[str, str] = {}
    try:
        headers = parse_headers(row["headers"])
    except ValueError as error:
        return None, {"headers": str(error)}
    fields = {"id": row["id"].strip(), "kind": row["kind"], "preset": row["preset"],
              "base_url": row["base_url"], "default_model": row["default_model"].strip() or None,
              "reasoning_effort": row["reasoning_effort"] or None, "headers": headers, **row["rest"]}
    try:
        return model.model_validate(fields), problems
    except ValidationError as error:
        for item in error.errors():
            field = str(item["loc"][0]) if item["loc"] else "id"
            message = item["msg"].removeprefix("Value error, ")
            if field == "id":
                message = "use letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit"
            problems.setdefault(field if field in FORM_FIELDS else "id", message)
        return None, problems


class ProvidersTab(ListFormTab):
    KEY = "id"
    NOUN = "provider"

    def __init__(self, providers: list[Any], default_provider: str | None, keys: KeyActions,
                 tester: ConnectionTester | None, parent: QWidget | None = None, *,
                 provider_model: type[BaseModel]) -> None:
        super().__init__(parent)
        self.provider_model = provider_model
        self.rows = [provider_row(p, is_default=p.id == default_provider) for p in providers]
        self.tester = tester
        self.test_task: asyncio.Future[None] | None = None
        self._loading = False

        left = self._build_list("Providers", "Add a provider", "Remove the provider")

        self.preset = QComboBox()
        self.preset.setAccessibleName("Preset")
        for name, preset in sorted(PRESETS.items(), key=lambda item: item[1].title.lower()):
            self.preset.addItem(preset.title, name)
        self.kind = QComboBox()
        self.kind.setAccessibleName("Kind (wire format)")
        self.kind.addItems(list(ADAPTER_KINDS))
        self.id = QLineEdit()
        self.id.setAccessibleName("Provider id")
        self.base_url = QLineEdit()
        self.base_url.setAccessibleName("Base URL")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setAccessibleName("Default model")
        self.effort = QComboBox()
        self.effort.setAccessibleName("Reasoning effort")
        for choice in REASONING_CHOICES:
            self.effort.addItem(choice or "composer's choice", choice)
        self.vision = QComboBox()
        self.vision.setAccessibleName("Images (vision)")
        self.vision.setToolTip("Whether attached images may be sent to this provider's models")
        for label, choice in VISION_CHOICES:
            self.vision.addItem(label, choice)
        self.headers = QPlainTextEdit()
        self.headers.setAccessibleName("Extra headers")
        self.headers.setPlaceholderText("Name: value, one per line (no keys: use the key field)")
        self.headers.setFixedHeight(64)
        self.is_default = QCheckBox("Use this provider for new chats")
        self.key = KeyRow(keys, "API key")
        self.test_button = QPushButton("Test connection")
        self.test_button.setAccessibleName("Test connection")
        self.test_result = plain_label("")
        self.test_result.setWordWrap(True)
        self.test_result.setAccessibleName("Connection test result")
        self.errors = {name: error_label() for name in FORM_FIELDS}

        self.form = QFormLayout()
        self.form.addRow("Preset", self.preset)
        self.form.addRow("Kind", self.kind)
        self.form.addRow("Id", with_error(self.id, self.errors["id"]))
        self.form.addRow("Base URL", with_error(self.base_url, self.errors["base_url"]))
        self.form.addRow("Default model", with_error(self.model, self.errors["default_model"]))
        self.form.addRow("Reasoning effort", self.effort)
        self.form.addRow("Images", self.vision)
        self.form.addRow("Extra headers", with_error(self.headers, self.errors["headers"]))
        self.form.addRow("", self.is_default)
        self.form.addRow("API key", self.key)
        self.form.addRow("", self.key.status)
        self.form.addRow(self.test_button, self.test_result)
        self.form_widget = QWidget()
        self.form_widget.setLayout(self.form)

        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addWidget(self.form_widget, 3)

        for p in self.rows:
            self.list.addItem(p["id"])
        self.list.currentRowChanged.connect(self._load)
        self.add_button.clicked.connect(lambda: self.add())
        self.remove_button.clicked.connect(self.remove_current)
        self.preset.currentIndexChanged.connect(self._preset_chosen)
        self.test_button.clicked.connect(self.test_connection)
        for signal in (self.kind.currentIndexChanged, self.id.textChanged, self.base_url.textChanged,
                       self.model.currentTextChanged, self.effort.currentIndexChanged, self.vision.currentIndexChanged,
                       self.headers.textChanged, self.is_default.toggled):
            signal.connect(self._store_form)
        self.list.setCurrentRow(0 if self.rows else -1)
        self._load(self.list.currentRow())

    # --- the list -----------------------------------------------------------------------------------
    def add(self, preset: str = "openai") -> None:
        taken = {r["id"] for r in self.rows}
        name = preset
        counter = 1
        while name in taken:
            counter += 1
            name = f"{preset}-{counter}"
        entry = PRESETS[preset]
        self.rows.append({"id": name, "kind": entry.kind, "preset": preset, "base_url": entry.base_url,
                          "default_model": "", "reasoning_effort": "", "headers": "", "new": True,
                          "original": None, "is_default": not self.rows, "rest": {}})
        self.list.addItem(name)
        self.list.setCurrentRow(len(self.rows) - 1)
        self.id.setFocus()
        self.id.selectAll()
        self.changed.emit()

    # --- the form -----------------------------------------------------------------------------------
    def _load(self, index: int) -> None:
        row = self.rows[index] if 0 <= index < len(self.rows) else None
        self.form_widget.setEnabled(row is not None)
        self.remove_button.setEnabled(row is not None)
        self._loading = True
        try:
            self.test_result.clear()
            self.model.clear()
            if row is None:
                self.key.set_entry("")
                for field in (self.id, self.base_url):
                    field.clear()
                self.headers.clear()
                return
            self.preset.setCurrentIndex(max(0, self.preset.findData(row["preset"])))
            self.kind.setCurrentText(row["kind"])
            self.id.setText(row["id"])
            self.id.setToolTip("" if row["new"] else "Renaming moves its key in the keyring to the new id, "
                               "on OK.")
            self.base_url.setText(row["base_url"])
            self.model.setEditText(row["default_model"])
            self.effort.setCurrentIndex(max(0, self.effort.findData(row["reasoning_effort"])))
            self.vision.setCurrentIndex(max(0, self.vision.findData(vision_choice(row["rest"]))))
            self.headers.setPlainText(row["headers"])
            self.is_default.setChecked(row["is_default"])
            self.key.set_entry("" if row["new"] else f"provider:{row['original']}")
        finally:
            self._loading = False
        self.show_problems()

    def _preset_chosen(self) -> None:
        row = self.current()
        if self._loading or row is None:
            return
        preset = PRESETS[self.preset.currentData()]
        row["preset"] = preset.name
        self._loading = True
        self.kind.setCurrentText(preset.kind)
        self.base_url.setText(preset.base_url)
        self._loading = False
        self._store_form()

    def _store_form(self) -> None:
        row = self.current()
        if self._loading or row is None:
            return
        row.update(kind=self.kind.currentText(), base_url=self.base_url.text(),
                   default_model=self.model.currentText(), reasoning_effort=self.effort.currentData() or "",
                   headers=self.headers.toPlainText(), is_default=self.is_default.isChecked())
        row["id"] = self.id.text().strip()
        row["rest"] = with_vision(row["rest"], self.vision.currentData() or "")
        if row["new"]:
            self.key.set_entry(f"provider:{row['id']}" if row["id"] else "", clear=False)
        # A renamed provider keeps its key under the id in use until OK moves it.
        if row["is_default"]:
            for other in self.rows:
                if other is not row:
                    other["is_default"] = False
        self.list.currentItem().setText(row["id"] or "(no id)")
        self.show_problems()
        self.changed.emit()

    # --- validation ---------------------------------------------------------------------------------
    def problems_of(self, index: int) -> dict[str, str]:
        row = self.rows[index]
        _, problems = row_problems(row, self.provider_model)
        duplicate = None if "id" in problems else self.duplicate_problem(index)
        if duplicate:
            problems["id"] = duplicate
        return problems

    def all_problems(self) -> list[str]:
        return [f"Provider {self.rows[i]['id'] or '(no id)'}: {field.replace('_', ' ')}: {message}"
                for i in range(len(self.rows)) for field, message in self.problems_of(i).items()]

    def result(self) -> tuple[list[Any], str | None]:
        """The providers as edited (call only when ``all_problems()`` is empty) and the default one's id."""
        checked = (row_problems(r, self.provider_model) for r in self.rows)
        providers = [entry for entry, _ in checked if entry is not None]
        default = next((r["id"] for r in self.rows if r["is_default"]), None)
        if default is None and providers:
            default = providers[0].id
        return providers, default

    # --- test connection ----------------------------------------------------------------------------
    def test_connection(self) -> None:
        row = self.current()
        if row is None or self.tester is None:
            return
        entry, _ = row_problems(row, self.provider_model)
        if entry is None:
            self.test_result.setText("Fix the marked fields first.")
            return
        if self.test_task is not None and not self.test_task.done():
            self.test_task.cancel()
        if row["original"] is not None:  # until OK, the stored key is under the id in use
            entry = entry.model_copy(update={"id": row["original"]})
        self.test_result.setText("Connecting…")
        self.test_button.setEnabled(False)
        self.test_task = asyncio.ensure_future(self._run_test(entry, self.key.typed_key(), row))

    async def _run_test(self, entry: Any, typed_key: str | None, row: dict[str, Any]) -> None:
        assert self.tester is not None
        try:
            models = await self.tester(entry, typed_key)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the provider's own message (typed ProviderError or an environment problem)
            if self.current() is row:
                self.test_result.setText(f"Failed: {error}")
            return
        finally:
            self.test_button.setEnabled(True)
        if self.current() is not row:
            return
        shown = ", ".join(models[:MODELS_SHOWN]) + (f" and {len(models) - MODELS_SHOWN} more"
                                                   if len(models) > MODELS_SHOWN else "")
        count = f"{len(models):,} model" if len(models) == 1 else f"{len(models):,} models"
        kept = typed_key is not None or (bool(self.key.entry) and self.key.key_actions.location(self.key.entry))
        self.test_result.setText((f"Connected: {count}. {shown}" if models
                                  else "Connected, but the provider lists no models.")
                                 + ("" if kept else missing_key_note(entry.preset)))
        typed = self.model.currentText()
        self._loading = True
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(typed or (models[0] if models else ""))
        self._loading = False
        self._store_form()
