"""The chat settings a conversation keeps, so reopening it (also after a restart, also from ``parley chat -c``)
sends the next message the same way: the system prompt (on the conversation's row, where replay and export read
it), and the provider's id, model, tools it offers, reasoning effort, temperature and output-token limit
(``conversation_settings``, migration 3; the conversation row's provider is the display name runs record).

The run service saves them whenever a message is sent in a saved conversation; the window also saves them when
the user changes a control of an open conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.storage.errors import guarded
from app.storage.history import History, now_ms
from app.storage.integrity import read_record
from app.storage.records import loads_or_none
from app.storage.transactions import write_transaction

REASONING_EFFORTS = ("off", "minimal", "low", "medium", "high")


@dataclass(frozen=True)
class StoredChatSettings:
    provider: str | None = None  # the provider's id in the settings
    model: str | None = None
    system_prompt: str | None = None  # None or "": no system prompt
    tools: tuple[str, ...] | None = None  # the tools offered; None: every tool the settings offer
    reasoning_effort: str | None = None  # one of REASONING_EFFORTS; None: never chosen
    temperature: float | None = None  # None: the provider's default
    max_output_tokens: int | None = None  # None: the provider's default


def _tools(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError(f"tools must be a list of tool names, not {value!r}")
    return tuple(value)


def _settings(conversation: dict[str, Any], row: dict[str, Any] | None) -> StoredChatSettings:
    extra: dict[str, Any] = {}
    if row is not None:
        effort, temperature = row["reasoning_effort"], row["temperature"]
        if effort is not None and effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning effort {effort!r} is not one of {', '.join(REASONING_EFFORTS)}")
        if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)):
            raise ValueError(f"temperature {temperature!r} is not a number")
        extra = dict(provider=row["provider"], model=row["model"] or conversation["model"],
                     tools=_tools(loads_or_none(row["tools"])), reasoning_effort=effort,
                     temperature=None if temperature is None else float(temperature),
                     max_output_tokens=row["max_output_tokens"])
    return StoredChatSettings(**{"model": conversation["model"], "system_prompt": conversation["system_prompt"],
                                 **extra})


class ChatSettingsStore:
    """Reads and writes one conversation's chat settings in ``history``'s database."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.path: Path = history.path

    @guarded("read the conversation's chat settings")
    def load(self, conversation_id: int) -> StoredChatSettings:
        """Raises NotFoundError for a wrong id, DamagedDatabaseError for a row Parley never writes."""
        conversation = self.history.conversation(conversation_id)
        rows = list(self.history.db.query(
            "SELECT conversation_id AS id, provider, model, tools, reasoning_effort, temperature, max_output_tokens, "
            "updated_at FROM conversation_settings WHERE conversation_id = ?", [conversation_id]))
        base = {"model": conversation.model, "system_prompt": conversation.system_prompt}
        row = rows[0] if rows else None
        if row is None:
            return _settings(base, None)
        return read_record(self.path, "conversation_settings", row, lambda: _settings(base, row))

    @guarded("save the conversation's chat settings")
    def save(self, conversation_id: int, settings: StoredChatSettings) -> None:
        """All of ``settings``, in one transaction; ``updated_at`` of the conversation is left alone (it orders
        the list by new messages)."""
        if settings.reasoning_effort is not None and settings.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning effort must be one of {', '.join(REASONING_EFFORTS)}")
        tools = None if settings.tools is None else json.dumps(list(settings.tools))
        db = self.history.db
        with write_transaction(db):
            self.history.conversation(conversation_id)  # NotFoundError for a wrong id
            db.execute("UPDATE conversations SET system_prompt = ? WHERE id = ?",
                       [settings.system_prompt or None, conversation_id])
            db.execute(
                "INSERT INTO conversation_settings (conversation_id, provider, model, tools, reasoning_effort, "
                "temperature, max_output_tokens, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (conversation_id) DO UPDATE SET provider = excluded.provider, model = excluded.model, "
                "tools = excluded.tools, reasoning_effort = excluded.reasoning_effort, "
                "temperature = excluded.temperature, max_output_tokens = excluded.max_output_tokens, "
                "updated_at = excluded.updated_at",
                [conversation_id, settings.provider, settings.model, tools, settings.reasoning_effort,
                 settings.temperature, settings.max_output_tokens,
                 now_ms()])
