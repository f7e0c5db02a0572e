"""Preferences > Workspace: folders added and removed, each read-only or read-write, the reading and writing
tools' approval saved to their per-tool policies, and a mix of policies kept unless the user picks one."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.runs.tool_setup import tool_registry
from app.secrets.store import SecretStore
from app.session.chat_session import SETTINGS_SCHEMA, preference_keys
from app.settings import Settings
from tests.support.memory_keyring import MemoryKeyring
from tools.files import WRITE_TOOLS
from widgets.preferences_dialog import PreferencesDialog
from widgets.preferences_workspace import ACCESS_NOTE, FILE_TOOLS, READ_WRITE


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
    assert tab.access_box(0).currentText() == "Read-only"  # a new folder starts read-only
    tab.folders.selectRow(1)
    qtbot.mouseClick(tab.remove_button, Qt.MouseButton.LeftButton)
    tab.approval.setCurrentIndex(tab.approval.findData("allow"))
    settings = dialog.result_settings()
    assert settings.workspace_folders == [str(notes)]
    assert {name: settings.tools.approval[name] for name in FILE_TOOLS} == dict.fromkeys(FILE_TOOLS, "allow")

    registry = tool_registry(settings, lambda _name: None)  # what the next run offers
    assert all(registry.get(name) is not None and not registry.get(name).needs_approval for name in FILE_TOOLS)
    assert tool_registry(Settings(), lambda _name: None).get("read_file") is None


def test_the_tab_explains_access_and_marks_a_missing_folder(qtbot, tmp_path):
    dialog = make_dialog(qtbot, Settings(workspace_folders=[str(tmp_path / "gone")]), [])
    tab = dialog.workspace
    dialog.tabs.setCurrentWidget(tab)
    dialog.show()
    assert any(label.text() == ACCESS_NOTE and label.isVisible() for label in tab.findChildren(type(tab.status)))
    assert tab.folders.item(0, 2).text() == "folder not found"
    assert "offered for 1 folder;" in tab.status.text() and "no folder is read-write" in tab.status.text()


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
    assert result.workspace_writable == []


def test_the_mode_control_makes_a_folder_read_write_and_turns_the_write_tools_on(qtbot, tmp_path):
    notes, code = tmp_path / "notes", tmp_path / "code"
    notes.mkdir()
    code.mkdir()
    dialog = make_dialog(qtbot, Settings(workspace_folders=[str(notes), str(code)]), [])
    tab = dialog.workspace
    dialog.tabs.setCurrentWidget(tab)
    dialog.show()
    box = tab.access_box(1)
    assert box.isVisible() and box.accessibleName() == f"Access to {code}"
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Down)  # the user picks Read-write with the keyboard
    assert box.currentData() == READ_WRITE
    assert "write tools (write_file, edit_file) for 1 read-write folder." in tab.status.text()
    assert tab.write_approval.currentData() == "ask"  # writes ask by default
    settings = dialog.result_settings()
    assert settings.workspace_folders == [str(notes), str(code)] and settings.workspace_writable == [str(code)]
    registry = tool_registry(settings, lambda _name: None)
    assert all(registry.get(name) is not None and registry.get(name).needs_approval for name in WRITE_TOOLS)

    again = make_dialog(qtbot, settings, [])  # reopened: the mode is shown as saved
    assert [again.workspace.access_box(row).currentText() for row in range(2)] == ["Read-only", "Read-write"]
    again.workspace.folders.selectRow(1)
    qtbot.mouseClick(again.workspace.remove_button, Qt.MouseButton.LeftButton)  # removing it drops write access
    assert again.result_settings().workspace_writable == []


def test_the_write_tools_policy_is_its_own_choice(qtbot, tmp_path):
    settings = Settings(workspace_folders=[str(tmp_path)], workspace_writable=[str(tmp_path)])
    dialog = make_dialog(qtbot, settings, [])
    tab = dialog.workspace
    tab.write_approval.setCurrentIndex(tab.write_approval.findData("allow"))
    approval = dialog.result_settings().tools.approval
    assert approval == dict.fromkeys(WRITE_TOOLS, "allow")  # the reading tools keep their default
    registry = tool_registry(dialog.result_settings(), lambda _name: None)
    assert not registry.get("write_file").needs_approval and registry.get("read_file").needs_approval
