"""Preferences > Local models in the real window: the tab is there, a model added in it is saved at once and
offered in the composer's picker, and OK (which saves the rest of the dialog) keeps it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.engine.adapter import BUILTIN_PROVIDER
from app.paths import resolve_paths
from app.settings import load_settings
from tests.app.session.test_chat_session_preferences import open_window
from tests.support.gguf_files import write_gguf
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_local_models import LocalModelsTab


def test_a_model_added_in_the_tab_is_saved_offered_and_kept_by_ok(qtbot, qasync_loop, parley_home,
                                                                   tmp_path: Path) -> None:
    window, session = open_window(qtbot, MemoryKeyring())
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = session.preferences
    titles = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    tab = dialog.tabs.widget(titles.index("Local models"))
    assert isinstance(tab, LocalModelsTab)

    model = write_gguf(tmp_path / "Mine-Q8_0.gguf", file_type=7)
    tab.add_requested.emit(str(model))
    tab.default_chosen.emit("mine-q8_0")
    saved = load_settings(resolve_paths().settings).settings.engine
    assert [m.name for m in saved.models] == ["mine-q8_0"] and saved.default_model == "mine-q8_0"
    assert session.engine.settings.default_model == "mine-q8_0"

    dialog.font_size.setValue(15)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    saved = load_settings(resolve_paths().settings).settings
    assert saved.ui.font_size == 15 and [m.name for m in saved.engine.models] == ["mine-q8_0"]
    assert session.settings.engine.default_model == "mine-q8_0"
    assert window.composer.set_current_model(BUILTIN_PROVIDER, "mine-q8_0")  # offered in the picker
    session.history.close()
