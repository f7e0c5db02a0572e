"""Settings: the validated model (model.py) and the settings file (store.py)."""

from app.settings.model import ProviderSettings, SearchSettings, Settings, ToolSettings, UiSettings
from app.settings.store import LoadedSettings, SettingsError, load_settings, save_settings

__all__ = [
    "LoadedSettings",
    "ProviderSettings",
    "SearchSettings",
    "Settings",
    "SettingsError",
    "ToolSettings",
    "UiSettings",
    "load_settings",
    "save_settings",
]
