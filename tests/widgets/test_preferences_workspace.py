"""Preferences > Workspace: folders added and removed, read-only said plainly, the file tools' approval saved to
their per-tool policies, and a mix of policies kept unless the user picks one."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.chat_session import SETTINGS_SCHEMA, preference_keys
from app.secrets.store import SecretStore
from app.settings import Settings
from app.tool_setup import tool_registry
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_dialog import PreferencesDialog
from widgets.preferences_workspace import FILE_TOOLS, READ_ONLY_NOTE


def make_dialog(qtbot, settings: Settings, chosen: list[str]) -> PreferencesDialog:
    dialog = PreferencesDialog(schema=SETTINGS_SCHEMA, settings=settings,
                               keys=preference_keys(SecretStore(MemoryKeyring())),
                               folder_chooser=lambda _parent: chosen.pop(0) if chosen else None)
    qtbot.addWidget(dialog)
    return dialog


def test_folders_and_approval_round_trip_and_turn_the_file_tools_on(qtbot, tmp_path):
    notes, code = tmp_path / "notes", tmp_path / "code"
    notes.mkdir()
    code.mkdir()
    dialog = make_dialog(qtbot, Settings(), [str(notes), str(code), str(notes)])
    tab = dialog.workspace
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())].count("Workspace") == 1
    assert "not offered" in tab.status.text() and not tab.remove_button.isEnabled()
    for _ in range(3):
        qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    assert tab.result_folders() == [str(notes), str(code)]  # the same folder twice is refused
    assert "already a workspace folder" in tab.status.text()
    assert tab.folders.item(0, 1).text() == "Read-only"
    tab.folders.selectRow(1)
    qtbot.mouseClick(tab.remove_button, Qt.MouseButton.LeftButton)
    tab.approval.setCurrentIndex(tab.approval.findData("allow"))
    settings = dialog.result_settings()
    assert settings.workspace_folders == [str(notes)]
    assert {name: settings.tools.approval[name] for name in FILE_TOOLS} == dict.fromkeys(FILE_TOOLS, "allow")

    registry = tool_registry(settings, lambda _name: None)  # what the next run offers
    assert all(registry.get(name) is not None and not registry.get(name).needs_approval for name in FILE_TOOLS)
    assert tool_registry(Settings(), lambda _name: None).get("read_file") is None


def test_the_tab_says_the_tools_only_read_and_marks_a_missing_folder(qtbot, tmp_path):
    dialog = make_dialog(qtbot, Settings(workspace_folders=[str(tmp_path / "gone")]), [])
    tab = dialog.workspace
    dialog.tabs.setCurrentWidget(tab)
    dialog.show()
    assert any(label.text() == READ_ONLY_NOTE and label.isVisible() for label in tab.findChildren(type(tab.status)))
    assert tab.folders.item(0, 1).text() == "Read-only (folder not found)"
    assert "offered for 1 folder." in tab.status.text()


def test_different_policies_are_kept_unless_the_user_picks_one(qtbot):
    settings = Settings()
    settings.tools.approval = {"read_file": "allow", "web_fetch": "deny"}
    dialog = make_dialog(qtbot, settings, [])
    tab = dialog.workspace
    assert tab.approval.currentText().startswith("Per tool (") and "read_file: allow" in tab.approval.currentText()
    assert dialog.result_settings().tools.approval == {"read_file": "allow", "web_fetch": "deny"}
    tab.approval.setCurrentIndex(tab.approval.findData("ask"))
    assert dialog.result_settings().tools.approval == {"web_fetch": "deny", **dict.fromkeys(FILE_TOOLS, "ask")}


def test_an_untouched_tab_changes_nothing(qtbot):
    settings = Settings(workspace_folders=["/srv/data"])
    dialog = make_dialog(qtbot, settings, [])
    result = dialog.result_settings()
    assert result.workspace_folders == ["/srv/data"] and result.tools.approval == {}
