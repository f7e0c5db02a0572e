"""Small things seen in the real window: the keyring's name, plurals, readable limits, styled spin boxes,
placeholders that do not look like values, and where the export dialog starts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from keyring.backends.SecretService import Keyring as SecretServiceKeyring
from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QLineEdit, QSpinBox, QVBoxLayout, QWidget

from app.secrets.probe import backend_display_name
from app.secrets.store import SecretStore
from app.session.chat_session import SETTINGS_SCHEMA, export_start_path, preference_keys
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings
from tests.support.loopback import Response
from tests.support.memory_keyring import MemoryKeyring
from tests.widgets.test_preferences_dialog import loopback_models
from tests.widgets.test_theme import themed_app  # noqa: F401  (the fixture)
from tools.mcp import ServerStatus
from widgets.preferences_dialog import PreferencesDialog
from widgets.preferences_mcp import describe_status, row_problems
from widgets.theme import apply_theme


def make_dialog(qtbot, **kwargs) -> PreferencesDialog:
    dialog = PreferencesDialog(schema=SETTINGS_SCHEMA, settings=kwargs.pop("settings", Settings()),
                               keys=preference_keys(SecretStore(MemoryKeyring())), **kwargs)
    qtbot.addWidget(dialog)
    return dialog


def test_the_status_bar_names_the_keyring_for_people(qtbot, parley_home):
    window, session = build_window(secrets=SecretStore(SecretServiceKeyring()), discover=False)
    qtbot.addWidget(window)
    assert window.keyring_label.text() == "Keyring: Secret Service"
    session.history.close()
    assert backend_display_name("keyring.backends.macOS.Keyring") == "macOS Keychain"
    assert backend_display_name("tests.support.memory_keyring.MemoryKeyring") == "MemoryKeyring"


def test_one_model_is_not_models(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "only-one"}]}))
    settings = Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1")])
    dialog = make_dialog(qtbot, settings=settings, test_connection=loopback_models)
    dialog.providers.test_connection()
    qasync_loop.run_until_complete(asyncio.wait_for(dialog.providers.test_task, 5))
    assert dialog.providers.test_result.text() == "Connected: 1 model. only-one"


def test_one_mcp_tool_is_not_tools():
    status = ServerStatus("time", "stdio", "running", tools=("get_current_time",))
    assert describe_status(status) == "running, 1 tool"
    assert describe_status(ServerStatus("time", "stdio", "running", tools=("a", "b"))) == "running, 2 tools"


def test_limits_read_as_numbers_and_the_tools_default_is_named(qtbot):
    dialog = make_dialog(qtbot, tools=[("web_search", "Search"), ("write_file", "Write")],
                         tool_defaults={"web_search": "allow", "write_file": "ask"})
    hints = " ".join(label.text() for label in dialog.findChildren(QWidget, "paneStatus") if hasattr(label, "text"))
    assert "e+" not in hints
    assert "1,000–2,000,000" in hints and "default 60,000" in hints
    assert dialog.limit_fields["turn_output_chars"].text() == "60,000"
    assert dialog.tool_policies["web_search"].itemText(0) == "tool's default (allow)"
    assert dialog.tool_policies["write_file"].itemText(0) == "tool's default (ask)"
    assert "“tool's default” is the tool's own setting" in hints


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_spin_boxes_are_drawn_like_the_other_fields(qtbot, themed_app, mode):  # noqa: F811
    apply_theme(themed_app, mode)
    dialog = make_dialog(qtbot)
    dialog.tabs.setCurrentIndex(dialog.tabs.count() - 1)  # Appearance: the font size spin box
    dialog.show()
    qtbot.waitExposed(dialog)
    spin = dialog.font_size
    field = QLineEdit("12 pt")
    host = QWidget()
    qtbot.addWidget(host)
    QVBoxLayout(host).addWidget(field)
    host.show()
    qtbot.waitExposed(host)
    spin_image, field_image = spin.grab().toImage(), field.grab().toImage()
    middle = spin.height() // 2
    assert spin_image.pixelColor(0, middle) == field_image.pixelColor(0, field.height() // 2), "the same border"
    assert spin_image.pixelColor(4, middle) == field_image.pixelColor(4, field.height() // 2), "the same surface"
    assert spin.lineEdit().textMargins().left() > 0, "text does not touch the border"


def test_the_empty_mcp_form_shows_descriptions_not_example_values(qtbot):
    dialog = make_dialog(qtbot)
    tab = dialog.mcp_servers
    tab.add()
    placeholders = {name: getattr(tab, name).placeholderText()
                    for name in ("command", "cwd", "env", "secret_env", "url", "headers", "secret_headers")}
    assert all(text and text[0].isupper() for text in placeholders.values()), placeholders
    stdio = {"name": "s", "transport": "stdio", "enabled": True, "command": "server", "cwd": "", "env": "",
             "secret_env": placeholders["secret_env"], "url": "", "headers": "", "secret_headers": ""}
    assert "secret_env" in row_problems(stdio)[1], "typed in, the placeholder would not be a valid value"
    http = {**stdio, "transport": "http", "secret_env": "", "url": placeholders["url"]}
    assert "url" in row_problems(http)[1]


def test_the_export_dialog_starts_in_the_documents_folder():
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    start = Path(export_start_path("parley-run-1.json"))
    assert start == Path(documents) / "parley-run-1.json"
    assert start.is_absolute()


def test_spin_boxes_show_group_separators(qtbot):
    dialog = make_dialog(qtbot)
    assert all(box.isGroupSeparatorShown() for box in dialog.limit_fields.values() if isinstance(box, QSpinBox))


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_selected_timeline_row_has_no_framed_box_in_its_indent(qtbot, themed_app, mode):  # noqa: F811
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

    apply_theme(themed_app, mode)
    tree = QTreeWidget()  # as the inspector's timeline: model calls with their tool calls indented below
    qtbot.addWidget(tree)
    tree.setHeaderLabels(["Step", "Status"])
    call = QTreeWidgetItem(["Model call 1", "tool_calls"])
    tree.addTopLevelItem(call)
    tool = QTreeWidgetItem(["web_search", "ok"])
    call.addChild(tool)
    tree.expandAll()
    tree.resize(400, 200)
    tree.show()
    qtbot.waitExposed(tree)
    tree.setCurrentItem(tool)
    qtbot.wait(20)
    row = tree.visualItemRect(tool)
    image = tree.viewport().grab().toImage()
    highlight = themed_app.palette().highlight().color()  # the accent the old box was drawn in
    indent = [image.pixelColor(x, y) for x in range(0, row.left()) for y in range(row.top(), row.bottom())]
    assert indent
    assert not [c for c in indent if abs(c.red() - highlight.red()) + abs(c.green() - highlight.green())
                + abs(c.blue() - highlight.blue()) < 40], QColor(highlight).name()


def test_fixed_height_fields_sit_beside_their_labels(qtbot):
    dialog = make_dialog(qtbot, settings=Settings(providers=[ProviderSettings(id="local",
                                                                              base_url="http://127.0.0.1:1/v1")]))
    dialog.resize(900, 600)  # taller than the form needs: the spare room must not open a gap above a field
    dialog.show()
    qtbot.waitExposed(dialog)
    field = dialog.providers.headers  # "Extra headers": a fixed-height box in a form row
    label = dialog.providers.form.labelForField(field.parentWidget())
    top = field.mapTo(dialog, field.rect().topLeft()).y()
    assert abs(top - label.mapTo(dialog, label.rect().topLeft()).y()) <= 8, top


def test_the_mcp_form_has_no_gap_between_the_transport_fields_and_the_secret_value(qtbot):
    from tools.mcp import McpServerSettings

    dialog = make_dialog(qtbot, settings=Settings(mcp_servers=[McpServerSettings(name="time", command="uvx")]))
    dialog.resize(900, 600)
    dialog.tabs.setCurrentWidget(dialog.mcp_servers)
    dialog.show()
    qtbot.waitExposed(dialog)
    tab = dialog.mcp_servers
    above = tab.secret_env.mapTo(dialog, tab.secret_env.rect().bottomLeft()).y()  # the last stdio field
    below = tab.secret_name.mapTo(dialog, tab.secret_name.rect().topLeft()).y()  # the "Secret value" row
    assert 0 < below - above <= 24, below - above
