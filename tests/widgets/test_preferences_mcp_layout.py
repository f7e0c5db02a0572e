"""Preferences > MCP servers: the transport's own fields (stdio or http) line up with the rest of the form, in one
label column, instead of sitting in a nested form indented by its own labels."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from app.settings import Settings
from tests.widgets.test_polish_details import make_dialog
from tools.mcp import McpServerSettings


def left(widget: QWidget, dialog: QWidget) -> int:
    return widget.mapTo(dialog, widget.rect().topLeft()).x()


def test_transport_fields_share_the_forms_label_column(qtbot):
    dialog = make_dialog(qtbot, settings=Settings(mcp_servers=[McpServerSettings(name="time", command="uvx")]))
    dialog.resize(900, 600)
    dialog.tabs.setCurrentWidget(dialog.mcp_servers)
    dialog.show()
    qtbot.waitExposed(dialog)
    tab = dialog.mcp_servers
    column = left(tab.name, dialog)
    assert [left(field, dialog) for field in (tab.transport, tab.command, tab.cwd, tab.env, tab.secret_env)] == \
        [column] * 5
    assert not tab.url.isVisible() and tab.command.isVisible()

    tab.transport.setCurrentIndex(tab.transport.findData("http"))
    qtbot.waitUntil(lambda: tab.url.isVisible())
    assert not tab.command.isVisible() and not tab.secret_env.isVisible()
    column = left(tab.name, dialog)  # the label column fits the labels shown
    assert [left(field, dialog) for field in (tab.transport, tab.url, tab.headers, tab.secret_headers)] == \
        [column] * 4
