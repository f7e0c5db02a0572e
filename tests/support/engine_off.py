"""Settings with the built-in engine turned off, for tests about a machine where nothing can answer yet (where
llama-cpp-python is installed, the engine would otherwise answer for a missing provider)."""

from __future__ import annotations

from app.engine.settings import EngineSettings
from app.paths import resolve_paths
from app.settings import Settings, save_settings


def save_engine_off() -> None:
    """Write settings.json under the current PARLEY_HOME with ``engine.enabled`` false."""
    save_settings(Settings(engine=EngineSettings(enabled=False)), resolve_paths().settings)
