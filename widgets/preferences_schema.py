"""What the Preferences dialog knows about the settings model: handed in by app/ (widgets never import app).

The dialog edits a copy of the settings object it is given and validates the result with ``settings_model``;
each provider form is validated with ``provider_model`` as the user types. The choices and ranges offered are
the settings' own, so the dialog cannot offer a value the settings file would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel


@dataclass(frozen=True)
class SettingsSchema:
    settings_model: type[BaseModel]
    provider_model: type[BaseModel]
    search_backends: tuple[str, ...]
    max_search_results: int
    min_font_size: int
    max_font_size: int
    max_system_prompt_chars: int = 100_000
