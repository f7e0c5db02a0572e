"""The session's default dialog factories, importing each dialog's module when it is first opened.

The add-provider and Preferences dialogs (with the MCP and local-model tabs) are never shown at start, so their
modules stay off the path to "ready" (issue 17; tests/app/test_start_path_imports.py). Tests pass their own
factories to ``ChatSession`` instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from widgets.add_provider_dialog import AddProviderDialog
    from widgets.preferences_dialog import PreferencesDialog


def add_provider_dialog(*args: Any, **kwargs: Any) -> AddProviderDialog:
    from widgets.add_provider_dialog import AddProviderDialog

    return AddProviderDialog(*args, **kwargs)


def preferences_dialog(*args: Any, **kwargs: Any) -> PreferencesDialog:
    from widgets.preferences_dialog import PreferencesDialog

    return PreferencesDialog(*args, **kwargs)
