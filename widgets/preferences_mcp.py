"""The MCP servers tab: the configured servers with their live status, a form to add or edit one, and "Test".

Each server is edited as a dict of form values (the command line as one shell-like string, environment and
headers as lines) and turned into ``McpServerSettings`` on every change; each problem is shown under its field.
Secret environment variables and headers are only named here: their values go to the keyring through the
injected ``KeyActions`` under ``mcp:<server>:<NAME>``, and the tab only ever says whether one is stored. The tab
never connects itself: statuses, status changes and the "Test" probe come from the injected ``McpHooks``.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
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

from tools.mcp.settings import ENV_NAME_PATTERN, SERVER_NAME_PATTERN, McpServerSettings, secret_entry
from tools.mcp.status import ServerStatus
from widgets.form_errors import error_label, with_error
from widgets.list_form_tab import ListFormTab
from widgets.preferences_keys import KeyActions, KeyRow
from widgets.preferences_providers import parse_headers
from widgets.safe_text import plain_label

StatusListener = Callable[[ServerStatus], None]
HEADER_NAME_PATTERN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"  # an HTTP token (RFC 9110)
TOOLS_SHOWN = 12  # tool names listed in the test result line
FORM_FIELDS = ("name", "command", "env", "secret_env", "url", "headers", "secret_headers")
NEW_SERVER_NAME = "server"


@dataclass(frozen=True)
class McpHooks:
    """What the tab may ask of the app: the live statuses, change notifications, a one-off connection test and
    a reconnect of a running server (with the settings in use, not the edits)."""

    statuses: Callable[[], list[ServerStatus]] = list
    add_listener: Callable[[StatusListener], None] | None = None
    remove_listener: Callable[[StatusListener], None] | None = None
    probe: Callable[[McpServerSettings], Awaitable[ServerStatus]] | None = None
    reconnect: Callable[[str], None] | None = None


def server_row(server: McpServerSettings, *, new: bool = False) -> dict[str, Any]:
    command_line = shlex.join([server.command, *server.args]) if server.command else ""
    return {"name": server.name, "transport": server.transport, "command": command_line, "cwd": server.cwd or "",
            "env": "\n".join(f"{k}={v}" for k, v in server.env.items()), "secret_env": ", ".join(server.secret_env),
            "url": server.url or "", "headers": "\n".join(f"{k}: {v}" for k, v in server.headers.items()),
            "secret_headers": ", ".join(server.secret_headers), "enabled": server.enabled, "new": new,
            "original": None if new else server.name}


def parse_env(text: str) -> dict[str, str]:
    """``NAME=value`` lines; blank lines are skipped. Raises ValueError naming a bad line."""
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, equals, value = line.partition("=")
        if not equals or not re.fullmatch(ENV_NAME_PATTERN, name.strip()):
            raise ValueError(f"line {number} is not “NAME=value” with a valid variable name")
        env[name.strip()] = value
    return env


def parse_names(text: str, pattern: str, what: str) -> list[str]:
    names = [n for n in re.split(r"[\s,]+", text) if n]
    bad = [n for n in names if not re.fullmatch(pattern, n)]
    if bad:
        raise ValueError(f"not valid {what}: {', '.join(bad)}")
    return list(dict.fromkeys(names))


def row_problems(row: dict[str, Any]) -> tuple[McpServerSettings | None, dict[str, str]]:
    """The validated server, or the problems by form field."""
    problems: dict[str, str] = {}
    name = row["name"].strip()
    if not re.fullmatch(SERVER_NAME_PATTERN, name):
        problems["name"] = "use letters, digits, '_' or '-' (up to 32), starting with a letter or digit"
    fields: dict[str, Any] = {"name": name, "transport": row["transport"], "enabled": row["enabled"]}
    if row["transport"] == "stdio":
        try:
            parts = shlex.split(row["command"])
        except ValueError as error:  # an unclosed quote
            parts, problems["command"] = [], f"cannot split the command line: {error}"
        if not parts and "command" not in problems:
            problems["command"] = "a stdio server needs a command"
        fields.update(command=parts[0] if parts else None, args=parts[1:], cwd=row["cwd"].strip() or None)
        for field, parse in (("env", lambda: parse_env(row["env"])),
                             ("secret_env", lambda: parse_names(row["secret_env"], ENV_NAME_PATTERN,
                                                                "variable names"))):
            try:
                fields[field] = parse()
            except ValueError as error:
                problems[field] = str(error)
        clash = set(fields.get("env", {})) & set(fields.get("secret_env", []))
        if clash:
            problems["secret_env"] = f"{', '.join(sorted(clash))} is also a plain variable"
    else:
        url = row["url"].strip()
        if not re.fullmatch(r"https?://[^\s/?#]+\S*", url):
            problems["url"] = "give the server's URL, starting with http:// or https://"
        fields["url"] = url
        for field, parse in (("headers", lambda: parse_headers(row["headers"])),
                             ("secret_headers", lambda: parse_names(row["secret_headers"], HEADER_NAME_PATTERN,
                                                                    "header names"))):
            try:
                fields[field] = parse()
            except ValueError as error:
                problems[field] = str(error)
        clash = {h.lower() for h in fields.get("headers", {})} & {h.lower() for h in fields.get("secret_headers", [])}
        if clash:
            problems["secret_headers"] = f"{', '.join(sorted(clash))} is also a plain header"
    if problems:
        return None, problems
    try:
        return McpServerSettings.model_validate(fields), {}
    except ValidationError as error:  # a rule only the model knows; shown at the name
        return None, {"name": "; ".join(e["msg"].removeprefix("Value error, ") for e in error.errors())}


def _tools(count: int) -> str:
    return "1 tool" if count == 1 else f"{count:,} tools"


def describe_status(status: ServerStatus | None) -> str:
    if status is None:
        return "not connected yet (applies after OK)"
    text = status.state
    if status.state == "running":
        text += f", {_tools(len(status.tools))}"
    if status.message:
        text += f": {status.message}"
    return text


class McpServersTab(ListFormTab):
    KEY = "name"
    NOUN = "server"

    def __init__(self, servers: list[McpServerSettings], keys: KeyActions, hooks: McpHooks,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = [server_row(s) for s in servers]
        self.hooks = hooks
        self.test_task: asyncio.Future[None] | None = None
        self._loading = False
        self._statuses = {s.name: s for s in hooks.statuses()}

        left = self._build_list("MCP servers", "Add an MCP server", "Remove the MCP server")

        self.name = QLineEdit()
        self.name.setAccessibleName("Server name")
        self.enabled = QCheckBox("Enabled (connect on start)")
        self.enabled.setAccessibleName("Server enabled")
        self.transport = QComboBox()
        self.transport.setAccessibleName("Transport")
        self.transport.addItem("stdio (a command Parley starts)", "stdio")
        self.transport.addItem("http (streamable HTTP at a URL)", "http")
        self.command = QLineEdit()
        self.command.setAccessibleName("Command and arguments")
        self.command.setPlaceholderText("The program to start, then its arguments")
        self.cwd = QLineEdit()
        self.cwd.setAccessibleName("Working directory")
        self.cwd.setPlaceholderText("Empty: Parley's own working folder")
        self.env = QPlainTextEdit()
        self.env.setAccessibleName("Environment")
        self.env.setPlaceholderText("One NAME=value per line; secrets go under Secret variables")
        self.env.setFixedHeight(56)
        self.secret_env = QLineEdit()
        self.secret_env.setAccessibleName("Secret variables")
        self.secret_env.setPlaceholderText("Names of variables kept in the keyring, comma-separated")
        self.url = QLineEdit()
        self.url.setAccessibleName("Server URL")
        self.url.setPlaceholderText("The server's address, starting with http:// or https://")
        self.headers = QPlainTextEdit()
        self.headers.setAccessibleName("Headers")
        self.headers.setPlaceholderText("One Name: value per line; secrets go under Secret headers")
        self.headers.setFixedHeight(56)
        self.secret_headers = QLineEdit()
        self.secret_headers.setAccessibleName("Secret headers")
        self.secret_headers.setPlaceholderText("Names of headers kept in the keyring, comma-separated")
        self.secret_name = QComboBox()
        self.secret_name.setAccessibleName("Secret to set")
        self.secret_key = KeyRow(keys, "Secret value")
        self.status = plain_label("")
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Server status")
        self.reconnect_button = QPushButton("Reconnect")
        self.reconnect_button.setAccessibleName("Reconnect the MCP server")
        self.reconnect_button.setToolTip("Stop the server and connect it again with the settings in use (after a "
                                         "secret was stored or the server was fixed); edits apply after OK.")
        self.test_button = QPushButton("Test")
        self.test_button.setAccessibleName("Test the MCP server")
        self.test_button.setEnabled(hooks.probe is not None)
        self.test_result = plain_label("")
        self.test_result.setWordWrap(True)
        self.test_result.setAccessibleName("MCP test result")
        self.errors = {name: error_label() for name in FORM_FIELDS}

        # the transport's own rows sit in the form itself (one label column; a nested form indented them by its
        # own labels), and only the chosen transport's rows are shown
        self.transport_rows: dict[str, list[QWidget]] = {
            "stdio": [with_error(self.command, self.errors["command"]), self.cwd,
                      with_error(self.env, self.errors["env"]),
                      with_error(self.secret_env, self.errors["secret_env"])],
            "http": [with_error(self.url, self.errors["url"]), with_error(self.headers, self.errors["headers"]),
                     with_error(self.secret_headers, self.errors["secret_headers"])],
        }
        transport_labels = {"stdio": ["Command", "Working directory", "Environment", "Secret variables"],
                            "http": ["URL", "Headers", "Secret headers"]}

        secret_row = QHBoxLayout()
        secret_row.addWidget(self.secret_name)
        secret_row.addWidget(self.secret_key, 1)
        form = QFormLayout()
        form.addRow("Name", with_error(self.name, self.errors["name"]))
        form.addRow("", self.enabled)
        form.addRow("Transport", self.transport)
        for kind, fields in self.transport_rows.items():
            for label, field in zip(transport_labels[kind], fields, strict=True):
                form.addRow(label, field)
        self.form = form
        self._show_transport("stdio")
        form.addRow("Secret value", secret_row)
        form.addRow("", self.secret_key.status)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.reconnect_button)
        form.addRow("Status", status_row)
        form.addRow(self.test_button, self.test_result)
        self.form_widget = QWidget()
        self.form_widget.setLayout(form)

        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addWidget(self.form_widget, 3)

        for row in self.rows:
            self.list.addItem(self._item_text(row))
        self.list.currentRowChanged.connect(self._load)
        self.add_button.clicked.connect(lambda: self.add())
        self.remove_button.clicked.connect(self.remove_current)
        self.test_button.clicked.connect(self.test_server)
        self.reconnect_button.clicked.connect(self.reconnect_current)
        self.secret_name.currentIndexChanged.connect(self._secret_chosen)
        for signal in (self.name.textChanged, self.enabled.toggled, self.transport.currentIndexChanged,
                       self.command.textChanged, self.cwd.textChanged, self.env.textChanged,
                       self.secret_env.textChanged, self.url.textChanged, self.headers.textChanged,
                       self.secret_headers.textChanged):
            signal.connect(self._store_form)
        if hooks.add_listener is not None:
            hooks.add_listener(self.status_changed)
        self.list.setCurrentRow(0 if self.rows else -1)
        self._load(self.list.currentRow())

    def detach(self) -> None:
        """Stop listening for status changes (the dialog is closing)."""
        if self.hooks.remove_listener is not None:
            self.hooks.remove_listener(self.status_changed)
        if self.test_task is not None and not self.test_task.done():
            self.test_task.cancel()

    # --- the list and live status -------------------------------------------------------------------
    def _status_of(self, row: dict[str, Any]) -> ServerStatus | None:
        return None if row["new"] else self._statuses.get(row["original"])

    def _item_text(self, row: dict[str, Any]) -> str:
        status = self._status_of(row)
        state = "new" if status is None else status.state
        return f"{row['name'] or '(no name)'} — {state}"

    def status_changed(self, status: ServerStatus) -> None:
        """A listener on the app's MCP manager: refresh the list and the selected server's status line."""
        self._statuses[status.name] = status
        for index, row in enumerate(self.rows):
            self.list.item(index).setText(self._item_text(row))
        row = self.current()
        if row is not None:
            self.status.setText(describe_status(self._status_of(row)))
        self._update_reconnect()

    def _update_reconnect(self) -> None:
        row = self.current()
        status = None if row is None else self._status_of(row)
        self.reconnect_button.setEnabled(self.hooks.reconnect is not None and status is not None
                                         and status.state not in ("disabled", "starting"))

    def reconnect_current(self) -> None:
        row = self.current()
        if row is None or self.hooks.reconnect is None or self._status_of(row) is None:
            return
        self.reconnect_button.setEnabled(False)  # until the server reports its next state
        self.hooks.reconnect(row["original"])

    def add(self) -> None:
        taken = {r["name"] for r in self.rows}
        name, counter = NEW_SERVER_NAME, 1
        while name in taken:
            counter += 1
            name = f"{NEW_SERVER_NAME}-{counter}"
        self.rows.append({"name": name, "transport": "stdio", "command": "", "cwd": "", "env": "", "secret_env": "",
                          "url": "", "headers": "", "secret_headers": "", "enabled": True, "new": True,
                          "original": None})
        self.list.addItem(self._item_text(self.rows[-1]))
        self.list.setCurrentRow(len(self.rows) - 1)
        self.name.setFocus()
        self.name.selectAll()
        self.changed.emit()

    # --- the form -----------------------------------------------------------------------------------
    def _load(self, index: int) -> None:
        row = self.rows[index] if 0 <= index < len(self.rows) else None
        self.form_widget.setEnabled(row is not None)
        self.remove_button.setEnabled(row is not None)
        self._loading = True
        try:
            self.test_result.clear()
            if row is None:
                for field in (self.name, self.command, self.cwd, self.secret_env, self.url, self.secret_headers):
                    field.clear()
                self.env.clear()
                self.headers.clear()
                self.status.clear()
                self._fill_secret_names(None)
                return
            self.name.setText(row["name"])
            self.name.setToolTip("" if row["new"] else "Renaming moves the server's stored secrets to the new "
                                 "keyring entries and its tools' settings to the new names, on OK.")
            self.enabled.setChecked(row["enabled"])
            self.transport.setCurrentIndex(max(0, self.transport.findData(row["transport"])))
            self._show_transport(row["transport"])
            self.command.setText(row["command"])
            self.cwd.setText(row["cwd"])
            self.env.setPlainText(row["env"])
            self.secret_env.setText(row["secret_env"])
            self.url.setText(row["url"])
            self.headers.setPlainText(row["headers"])
            self.secret_headers.setText(row["secret_headers"])
            self.status.setText(describe_status(self._status_of(row)))
            self._fill_secret_names(row)
        finally:
            self._loading = False
            self._update_reconnect()
        self.show_problems()

    def _show_transport(self, kind: str) -> None:
        for transport, fields in self.transport_rows.items():
            for field in fields:
                self.form.setRowVisible(field, transport == kind)

    def _store_form(self) -> None:
        row = self.current()
        if self._loading or row is None:
            return
        row.update(enabled=self.enabled.isChecked(), transport=self.transport.currentData(),
                   command=self.command.text(), cwd=self.cwd.text(), env=self.env.toPlainText(),
                   secret_env=self.secret_env.text(), url=self.url.text(), headers=self.headers.toPlainText(),
                   secret_headers=self.secret_headers.text())
        row["name"] = self.name.text().strip()
        self._show_transport(row["transport"])
        self.list.currentItem().setText(self._item_text(row))
        self._loading = True
        self._fill_secret_names(row)
        self._loading = False
        self.show_problems()
        self.changed.emit()

    # --- secrets ------------------------------------------------------------------------------------
    def _fill_secret_names(self, row: dict[str, Any] | None) -> None:
        names: list[str] = []
        if row is not None:
            text, pattern = ((row["secret_env"], ENV_NAME_PATTERN) if row["transport"] == "stdio"
                             else (row["secret_headers"], HEADER_NAME_PATTERN))
            names = [n for n in re.split(r"[\s,]+", text) if n and re.fullmatch(pattern, n)]
        chosen = self.secret_name.currentText()
        self.secret_name.blockSignals(True)
        self.secret_name.clear()
        self.secret_name.addItems(list(dict.fromkeys(names)))
        if chosen in names:
            self.secret_name.setCurrentText(chosen)
        self.secret_name.blockSignals(False)
        self._secret_chosen()

    def _secret_chosen(self) -> None:
        row = self.current()
        secret = self.secret_name.currentText()
        # A renamed server keeps its secrets under the name in use until OK moves them.
        server = "" if row is None else row["original"] or row["name"].strip()
        valid_name = re.fullmatch(SERVER_NAME_PATTERN, server)
        self.secret_key.set_entry(secret_entry(server, secret) if secret and valid_name else "", clear=False)
        if not secret:
            self.secret_key.status.setText("Name a secret variable or header above to store its value.")

    # --- validation ---------------------------------------------------------------------------------
    def problems_of(self, index: int) -> dict[str, str]:
        row = self.rows[index]
        _, problems = row_problems(row)
        duplicate = None if "name" in problems else self.duplicate_problem(index)
        if duplicate:
            problems["name"] = duplicate
        return problems

    def all_problems(self) -> list[str]:
        return [f"MCP server {self.rows[i]['name'] or '(no name)'}: {field.replace('_', ' ')}: {message}"
                for i in range(len(self.rows)) for field, message in self.problems_of(i).items()]

    def result(self) -> list[McpServerSettings]:
        """The servers as edited (call only when ``all_problems()`` is empty)."""
        return [server for server, _ in (row_problems(r) for r in self.rows) if server is not None]

    # --- test ---------------------------------------------------------------------------------------
    def test_server(self) -> None:
        row = self.current()
        if row is None or self.hooks.probe is None:
            return
        server, _ = row_problems(row)
        if server is None:
            self.test_result.setText("Fix the marked fields first.")
            return
        if self.test_task is not None and not self.test_task.done():
            self.test_task.cancel()
        self.test_result.setText("Connecting…")
        self.test_button.setEnabled(False)
        self.test_task = asyncio.ensure_future(self._run_test(server, row))

    async def _run_test(self, server: McpServerSettings, row: dict[str, Any]) -> None:
        assert self.hooks.probe is not None
        try:
            status = await self.hooks.probe(server)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # an environment problem the probe did not turn into a status
            status = ServerStatus(server.name, server.transport, "failed", str(error))
        finally:
            self.test_button.setEnabled(True)
        if self.current() is not row:
            return
        if status.state != "running":
            self.test_result.setText(f"Failed: {status.message or status.state}")
            return
        shown = ", ".join(status.tools[:TOOLS_SHOWN]) + (f" and {len(status.tools) - TOOLS_SHOWN} more"
                                                         if len(status.tools) > TOOLS_SHOWN else "")
        self.test_result.setText(f"Connected: {_tools(len(status.tools))}: {shown}" if status.tools
                                 else "Connected, but the server lists no tools.")
