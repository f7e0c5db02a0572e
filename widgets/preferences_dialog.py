"""Preferences (Ctrl+,): providers, web search, tools and loop limits, workspace, MCP servers, appearance,
usage (budget and per-model prices).

The dialog edits a copy of the settings and hands back a validated copy from ``result_settings()`` (the
settings model comes in a ``SettingsSchema``, widgets/preferences_schema.py); it
never reads or writes the settings file or the network itself. Keys go through the injected ``KeyActions`` as
soon as the user stores them (they are not settings, and Cancel does not undo them); "Test connection" runs the
injected async lister, and the MCP tab's "Test" the injected probe (``McpHooks``). Every problem is shown at
its field and OK stays disabled until none is left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from annotated_types import Ge, Gt, Le
from pydantic import ValidationError
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from orchestration.limits import LoopLimits
from widgets.form_errors import error_label
from widgets.preferences_chat import ChatDefaultsTab
from widgets.preferences_keys import KeyActions, KeyRow
from widgets.preferences_mcp import McpHooks, McpServersTab
from widgets.preferences_providers import ConnectionTester, ProvidersTab
from widgets.preferences_schema import SettingsSchema
from widgets.preferences_usage import UsageTab
from widgets.preferences_workspace import FolderChooser, WorkspaceTab, choose_folder
from widgets.safe_text import plain_label

SEARCH_TITLES = {"": "DuckDuckGo (default, no key)", "tavily": "Tavily", "brave": "Brave Search", "exa": "Exa",
                 "searxng": "SearXNG (self-hosted)"}
APPROVAL_CHOICES = (("", "tool's default"), ("ask", "ask"), ("allow", "allow"), ("deny", "deny"))
SPIN_TEXT_INDENT_PX = 9  # a spin box's text starts where a line edit's does (its 10 px padding, less the frame)
SMALLEST_TIMEOUT = 0.1  # seconds: the spin box's floor for tool_timeout, whose bound is "greater than 0"
LIMIT_TITLES = {"max_iterations": "Max iterations", "max_tool_only_iterations": "Max tool-only iterations",
                "max_calls_per_turn": "Tool calls per turn", "turn_output_chars": "Tool output per turn (chars)",
                "tool_output_chars": "Output per tool result (chars)", "tool_timeout": "Tool timeout (s)",
                "model_call_timeout": "Model call deadline (s)",
                "max_parallel_tools": "Parallel tools"}


APPROVAL_HINT = ("Approval: “tool's default” is the tool's own setting, shown in brackets. “ask” asks you before "
                 "each call, “allow” runs it without asking, “deny” never offers the tool to the model.")


def readable(number: float) -> str:
    """A limit for people: 2,000,000 rather than 2e+06, 0.5 as 0.5, and ∞ for no upper bound."""
    if number == float("inf"):
        return "∞"
    if float(number).is_integer():
        return f"{int(number):,}"
    return f"{number:,}"


def limit_bounds(name: str) -> tuple[float, float]:
    """The LoopLimits field's lower and upper bound, read from the model so the dialog cannot drift from it."""
    low, high = 0.0, float("inf")
    for rule in LoopLimits.model_fields[name].metadata:
        if isinstance(rule, Ge):
            low = float(cast(float, rule.ge))  # annotated-types types the bound loosely
        elif isinstance(rule, Gt):
            floor = float(cast(float, rule.gt))
            low = SMALLEST_TIMEOUT if isinstance(LoopLimits.model_fields[name].default, float) else floor + 1
        elif isinstance(rule, Le):
            high = float(cast(float, rule.le))
    return low, high


class PreferencesDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, *, settings: Any, schema: SettingsSchema, keys: KeyActions,
                 tools: Sequence[tuple[str, str]] = (), test_connection: ConnectionTester | None = None,
                 mcp: McpHooks | None = None, tool_defaults: Mapping[str, str] | None = None,
                 folder_chooser: FolderChooser = choose_folder) -> None:
        """``tool_defaults``: each tool's own approval policy ("ask" or "allow"), shown with "tool's default"."""
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.setAccessibleName("Preferences")
        self.resize(820, 560)
        self.schema = schema
        self.original = settings.model_copy(deep=True)
        self._live_sections: dict[str, Callable[[], Any]] = {}
        self.keys = keys

        self.keyring_notice = plain_label("")
        self.keyring_notice.setObjectName("paneNotice")
        self.keyring_notice.setWordWrap(True)
        self.keyring_notice.setAccessibleName("Keyring status")
        problem = keys.keyring_problem()
        self.keyring_notice.setText(f"{problem} Keys you enter here are kept in memory for this session only."
                                    if problem else "")
        self.keyring_notice.setVisible(problem is not None)

        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Preferences sections")
        self.providers = ProvidersTab(settings.providers, settings.default_provider, keys, test_connection,
                                      provider_model=schema.provider_model)
        self.tabs.addTab(self.providers, "Providers")
        self.tabs.addTab(self._search_tab(settings), "Search")
        self.tabs.addTab(self._tools_tab(settings, tools, tool_defaults or {}), "Tools")
        self.workspace = WorkspaceTab(settings.workspace_folders, settings.tools.approval,
                                      settings.workspace_writable, chooser=folder_chooser)
        self.tabs.addTab(self.workspace, "Workspace")
        self.mcp_servers = McpServersTab(settings.mcp_servers, keys, mcp or McpHooks())
        self.tabs.addTab(self.mcp_servers, "MCP servers")
        self.chat_defaults = ChatDefaultsTab(settings.chat.system_prompt, schema.max_system_prompt_chars)
        self.chat_defaults.changed.connect(self.revalidate)
        self.tabs.addTab(self.chat_defaults, "Chat")
        self.tabs.addTab(self._appearance_tab(settings), "Appearance")
        self.usage = UsageTab({model: price.model_dump() for model, price in settings.usage.prices.items()},
                              settings.usage.monthly_budget_usd)
        self.tabs.addTab(self.usage, "Usage")

        self.summary = error_label()
        self.summary.setAccessibleName("Problems to fix")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.keyring_notice)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.buttons)
        self.providers.changed.connect(self.revalidate)
        self.mcp_servers.changed.connect(self.revalidate)
        self.usage.changed.connect(self.revalidate)
        self.finished.connect(self.mcp_servers.detach)
        for box in self.findChildren(QAbstractSpinBox):
            # the style sheets cannot indent a spin box's text (Qt ignores its left padding): match the line edits
            box.lineEdit().setTextMargins(SPIN_TEXT_INDENT_PX, 0, 0, 0)
        self.revalidate()

    # --- tabs ---------------------------------------------------------------------------------------
    def add_live_tab(self, widget: QWidget, title: str, section: str, current: Callable[[], Any]) -> None:
        """A tab whose changes apply at once (Local models): OK keeps settings ``section`` as ``current()``."""
        self.tabs.addTab(widget, title)
        self._live_sections[section] = current

    def _search_tab(self, settings: Any) -> QWidget:
        chosen = settings.search
        self.search_backend = QComboBox()
        self.search_backend.setAccessibleName("Search backend")
        for backend in ("", *self.schema.search_backends):
            self.search_backend.addItem(SEARCH_TITLES[backend], backend)
        self.search_backend.setCurrentIndex(max(0, self.search_backend.findData(chosen.backend or "")))
        self.search_key = KeyRow(self.keys, "Search key")
        self.result_count = QSpinBox()
        self.result_count.setAccessibleName("Result count")
        self.result_count.setRange(1, self.schema.max_search_results)
        self.result_count.setValue(chosen.result_count)
        self.safe_search = QComboBox()
        self.safe_search.setAccessibleName("Safe search")
        self.safe_search.addItems(["off", "moderate", "strict"])
        self.safe_search.setCurrentText(chosen.safe_search)
        self.searxng_url = QLineEdit(chosen.base_urls.get("searxng", ""))
        self.searxng_url.setAccessibleName("SearXNG base URL")
        self.searxng_url.setPlaceholderText("https://searx.example.org")
        self.searxng_error = error_label()
        self.searxng_error.setAccessibleName("SearXNG base URL problem")
        self._other_base_urls = {k: v for k, v in chosen.base_urls.items() if k != "searxng"}
        url_box = QWidget()
        url_column = QVBoxLayout(url_box)
        url_column.setContentsMargins(0, 0, 0, 0)
        url_column.addWidget(self.searxng_url)
        url_column.addWidget(self.searxng_error)

        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow("Backend", self.search_backend)
        form.addRow("Key", self.search_key)
        form.addRow("", self.search_key.status)
        form.addRow("SearXNG URL", url_box)
        form.addRow("Results", self.result_count)
        form.addRow("Safe search", self.safe_search)
        self.search_backend.currentIndexChanged.connect(self._backend_chosen)
        self.searxng_url.textChanged.connect(self.revalidate)
        self._backend_chosen()
        return tab

    def _backend_chosen(self) -> None:
        backend = self.search_backend.currentData()
        self.search_key.set_entry(f"search:{backend}" if backend and backend != "searxng" else "")
        if not backend:
            self.search_key.status.setText("DuckDuckGo needs no key.")
        elif backend == "searxng":
            self.search_key.status.setText("SearXNG needs no key; give its base URL.")
        self.searxng_url.setEnabled(backend == "searxng")
        self.revalidate()

    def _tools_tab(self, settings: Any, tools: Sequence[tuple[str, str]],
                   tool_defaults: Mapping[str, str]) -> QWidget:
        self.tool_table = QTableWidget(len(tools), 2)
        self.tool_table.setAccessibleName("Tools")
        self.tool_table.setHorizontalHeaderLabels(["Tool", "Approval"])
        self.tool_table.horizontalHeader().setStretchLastSection(True)
        self.tool_table.verticalHeader().hide()
        self.tool_checks: dict[str, QCheckBox] = {}
        self.tool_policies: dict[str, QComboBox] = {}
        for index, (name, description) in enumerate(tools):
            check = QCheckBox(name)
            check.setChecked(settings.tools.enabled.get(name, True))
            check.setToolTip(description)
            check.setAccessibleName(f"Offer {name}")
            policy = QComboBox()
            policy.setAccessibleName(f"Approval for {name}")
            for value, title in APPROVAL_CHOICES:
                own = tool_defaults.get(name) if not value else None
                policy.addItem(f"{title} ({own})" if own else title, value)
            policy.setCurrentIndex(max(0, policy.findData(settings.tools.approval.get(name, ""))))
            self.tool_table.setCellWidget(index, 0, check)
            self.tool_table.setCellWidget(index, 1, policy)
            self.tool_checks[name] = check
            self.tool_policies[name] = policy
        self.tool_table.resizeColumnsToContents()
        self._unlisted_tools = settings.tools.model_copy(deep=True)

        limits = QGroupBox("Loop limits")
        limits_form = QFormLayout(limits)
        self.limit_fields: dict[str, QSpinBox | QDoubleSpinBox] = {}
        for name, field in LoopLimits.model_fields.items():
            low, high = limit_bounds(name)
            box: QSpinBox | QDoubleSpinBox
            if isinstance(field.default, float):
                box = QDoubleSpinBox()
                box.setDecimals(1)
            else:
                box = QSpinBox()
            if isinstance(box, QSpinBox):
                box.setRange(int(low), int(high))
            else:
                box.setRange(low, high)
            box.setValue(getattr(settings.limits, name))
            box.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
            box.setAccessibleName(LIMIT_TITLES.get(name, name))
            box.setToolTip(field.description or "")
            self.limit_fields[name] = box
            if isinstance(box, QSpinBox):
                box.setGroupSeparatorShown(True)  # 2,000,000 rather than 2000000
            hint = QLabel(f"default {readable(field.default)}, {readable(low)}–{readable(high)}")
            hint.setObjectName("paneStatus")
            row = QHBoxLayout()
            row.addWidget(box)
            row.addWidget(hint, 1)
            limits_form.addRow(LIMIT_TITLES.get(name, name), row)

        approval_hint = QLabel(APPROVAL_HINT)
        approval_hint.setObjectName("paneStatus")
        approval_hint.setWordWrap(True)
        tab = QWidget()
        column = QVBoxLayout(tab)
        column.addWidget(self.tool_table, 1)
        column.addWidget(approval_hint)
        column.addWidget(limits)
        return tab

    def _appearance_tab(self, settings: Any) -> QWidget:
        self.theme = QComboBox()
        self.theme.setAccessibleName("Theme")
        for value, title in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            self.theme.addItem(title, value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.ui.theme)))
        self.font_size = QSpinBox()
        self.font_size.setAccessibleName("Font size")
        self.font_size.setRange(self.schema.min_font_size, self.schema.max_font_size)
        self.font_size.setSuffix(" pt")
        self.font_size.setValue(settings.ui.font_size)
        tab = QWidget()
        form = QFormLayout(tab)
        form.addRow("Theme", self.theme)
        form.addRow("Chat font size", self.font_size)
        return tab

    # --- validation and result ----------------------------------------------------------------------
    def problems(self) -> list[str]:
        found = (self.providers.all_problems() + self.mcp_servers.all_problems() + self.chat_defaults.problems()
                 + self.usage.all_problems())
        searxng_problem = self._searxng_problem()
        if searxng_problem:
            found.append(f"Search: SearXNG URL: {searxng_problem}")
        return found

    def _searxng_problem(self) -> str | None:
        url = self.searxng_url.text().strip()
        if url and not url.startswith(("http://", "https://")):
            return "must start with http:// or https://"
        if not url and self.search_backend.currentData() == "searxng":
            return "SearXNG needs the base URL of your instance"
        return None

    def revalidate(self) -> None:
        if not hasattr(self, "ok_button"):
            return  # still building the tabs
        searxng_problem = self._searxng_problem()
        self.searxng_error.setText(searxng_problem or "")
        self.searxng_error.setVisible(searxng_problem is not None)
        found = self.problems()
        self.summary.setText("\n".join(found))
        self.summary.setVisible(bool(found))
        self.ok_button.setEnabled(not found)

    def _accept_if_valid(self) -> None:
        self.revalidate()
        if self.problems():
            return
        try:
            self.result_settings()
        except ValidationError as error:  # a rule only the whole settings model checks
            self.summary.setText(str(error))
            self.summary.show()
            return
        self.accept()

    def result_settings(self) -> Any:
        """The edited settings, validated; raises ValidationError when something is still wrong."""
        data: dict[str, Any] = self.original.model_dump()
        providers, default = self.providers.result()
        data["providers"] = [p.model_dump() for p in providers]
        data["default_provider"] = default
        base_urls = dict(self._other_base_urls)
        if self.searxng_url.text().strip():
            base_urls["searxng"] = self.searxng_url.text().strip()
        data["search"] = {"backend": self.search_backend.currentData() or None,
                          "result_count": self.result_count.value(), "safe_search": self.safe_search.currentText(),
                          "base_urls": base_urls}
        enabled = dict(self._unlisted_tools.enabled)
        approval = dict(self._unlisted_tools.approval)
        for name, check in self.tool_checks.items():
            enabled[name] = check.isChecked()
            policy = self.tool_policies[name].currentData()
            if policy:
                approval[name] = policy
            else:
                approval.pop(name, None)
        data["tools"] = {"enabled": {k: v for k, v in enabled.items() if not v},
                         "approval": self.workspace.apply_approval(approval)}
        data["workspace_folders"] = self.workspace.result_folders()
        data["workspace_writable"] = self.workspace.result_writable()
        data["limits"] = {name: box.value() for name, box in self.limit_fields.items()}
        data["mcp_servers"] = [server.model_dump() for server in self.mcp_servers.result()]
        data["ui"] = {"theme": self.theme.currentData(), "font_size": self.font_size.value()}
        data["chat"] = self.chat_defaults.result()
        data["usage"] = self.usage.result()
        data.update({section: current() for section, current in self._live_sections.items()})
        return self.schema.settings_model.model_validate(data)
