"""Exporting a conversation to JSON and importing it back, every branch included.

The JSON document (``format: parley.conversation``, ``version: 2``) holds the conversation's details and its
chat settings (app/storage/chat_settings.py: provider, model, system prompt, tools, reasoning effort,
temperature, output limit), every message with its reasoning, tool calls and their outputs, and a summary of each
run with its cost (no raw run events). Version 1 files (no chat settings but the system prompt, no costs) are
still read: their runs are priced on the next start like runs saved before costs were kept. It is
validated on import, so a hand-edited or truncated file is refused with the field that is wrong, and imported
in one transaction as a new conversation with new ids. A field this version does not know (a newer Parley added
it within format version 2) is left out and named (``export_fields.py``); a newer format version is refused.
API keys are never part of it: they are not stored in the history, and run errors were redacted when recorded.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import uuid
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from app.attachments.names import fit_name
from app.attachments.store import MissingAttachmentError
from app.errors import EnvironmentProblem, describe_os_error, describe_validation_error
from app.storage.attachments import MISSING_FILE, insert_rows, store_files
from app.storage.chat_settings import REASONING_EFFORTS, ChatSettingsStore, StoredChatSettings
from app.storage.errors import storage_errors
from app.storage.history import History, clean_title, now_ms
from app.storage.inserted import inserted_id
from app.storage.integrity import MAX_TIME_MS, SQLITE_MAX_INTEGER
from app.storage.records import AttachmentRecord, MessageStatus, RunStatus
from orchestration.bounded_json import JSONLimitError, loads_bounded
from orchestration.events import ToolStatus
from orchestration.messages import Attachment, DocumentPart, ImagePart
from orchestration.providers.chat_controls import MAX_OUTPUT_TOKENS_LIMIT, TEMPERATURE_MAX

EXPORT_FORMAT: Final = "parley.conversation"
EXPORT_VERSION: Final = 2
READABLE_VERSIONS = (1, 2)  # 2 added chat_settings and the runs' cost_usd / priced_at
# Largest export file `import` reads, in bytes.
MAX_IMPORT_BYTES = 512 * 1024 * 1024
# Numbers an import may hold: SQLite keeps integers in 64 bits, and times are epoch milliseconds up to the end of
# the year 9999 (what a date can show). Anything larger is refused naming the field, before anything is written.
Count = Annotated[int, Field(ge=0, le=SQLITE_MAX_INTEGER)]
TimeMs = Annotated[int, Field(ge=0, le=MAX_TIME_MS)]
MAX_TEMPERATURE = max(TEMPERATURE_MAX.values())  # the largest any wire format takes; the run checks the provider's


class ImportFileError(EnvironmentProblem):
    """The file cannot be imported; the message names the file and the problem."""


class _Exported(BaseModel):
    # A field this version does not know is kept aside, not refused: within one format version a newer Parley
    # only adds fields (docs/storage.md), so its exports import; export_fields.py names what was left out. (Up to
    # version 2 readers refused unknown fields, so 2's additions needed a new number; later additions do not.)
    model_config = ConfigDict(extra="allow")


class ExportedToolOutput(_Exported):
    status: ToolStatus
    content: str
    duration_ms: Count = 0
    truncated: bool = False
    data: Any = None


class ExportedToolCall(_Exported):
    call_id: str
    name: str
    arguments: str
    text_offset: Count = Field(description="where in the message text the call appeared")
    output: ExportedToolOutput | None = None


IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")  # the types Parley sends images as


class ExportedAttachment(_Exported):
    """An attached file with its bytes embedded (base64), so an import restores it into the store."""

    kind: Literal["image", "document"]
    name: str
    media_type: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: Count
    width: Count | None = None
    height: Count | None = None
    text: str | None = Field(None, description="a document's text as it was sent")
    note: str = ""
    data: str = Field(description="the stored file, base64")
    # The name's length in the file when it was longer than MAX_ATTACHMENT_NAME_CHARS and was cut (import_notes.py).
    _name_cut_from: int | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _content(self) -> ExportedAttachment:
        if (fitted := fit_name(self.name)) != self.name:
            self._name_cut_from, self.name = len(self.name), fitted
        try:
            raw = base64.b64decode(self.data, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"attachment {self.name!r}: data is not base64") from None
        if hashlib.sha256(raw).hexdigest() != self.sha256:
            raise ValueError(f"attachment {self.name!r}: data does not match its sha256")
        if self.kind == "image" and (not self.width or not self.height):
            raise ValueError(f"attachment {self.name!r}: an image needs width and height")
        if self.kind == "image" and self.media_type not in IMAGE_TYPES:
            raise ValueError(f"attachment {self.name!r}: media_type must be one of {', '.join(IMAGE_TYPES)}")
        return self

    @property
    def name_cut_from(self) -> int | None:
        """The name's length in the file, when it was cut to MAX_ATTACHMENT_NAME_CHARS; else None."""
        return self._name_cut_from

    def part(self) -> Attachment:
        if self.kind == "document":
            return DocumentPart(name=self.name, media_type=self.media_type, text=self.text or "", sha256=self.sha256,
                                size=self.size, note=self.note)
        return ImagePart(name=self.name, media_type=self.media_type, data=base64.b64decode(self.data),
                         sha256=self.sha256, width=self.width or 1, height=self.height or 1)


class ExportedMessage(_Exported):
    id: int
    parent_id: int | None = None
    run_id: str | None = None
    role: Literal["user", "assistant"]
    content: str
    reasoning: str = ""
    status: MessageStatus = "complete"
    finish_reason: str | None = None
    model: str | None = None
    usage: dict[str, Count] | None = None
    created_at: TimeMs
    tool_calls: list[ExportedToolCall] = Field(default_factory=list)
    attachments: list[ExportedAttachment] = Field(default_factory=list)


class ExportedRun(_Exported):
    id: str
    user_message_id: int | None = None
    provider: str | None = None
    model: str | None = None
    status: RunStatus
    finish_reason: str | None = None
    started_at: TimeMs
    ended_at: TimeMs | None = None
    iterations: Count = 0
    input_tokens: Count | None = 0  # null: unknown
    output_tokens: Count | None = 0
    reasoning_tokens: Count | None = 0
    cached_tokens: Count | None = 0
    error: dict[str, Any] | None = None
    cost_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = Field(
        None, description="what the run cost in US dollars; null: unknown, or not priced yet (see priced_at)")
    priced_at: TimeMs | None = Field(None, description="when cost_usd was worked out; null: not priced yet")


class ExportedChatSettings(_Exported):
    """The conversation's chat settings besides its system prompt (which is on ``conversation``)."""

    provider: str | None = Field(None, description="the provider's id in the settings")
    model: str | None = None
    tools: list[str] | None = Field(None, description="the tools offered; null: every tool the settings offer")
    reasoning_effort: Literal[REASONING_EFFORTS] | None = None  # type: ignore[valid-type]
    temperature: Annotated[float, Field(ge=0, le=MAX_TEMPERATURE, allow_inf_nan=False)] | None = None
    max_output_tokens: Annotated[int, Field(ge=1, le=MAX_OUTPUT_TOKENS_LIMIT)] | None = None


class ExportedConversation(_Exported):
    title: str
    created_at: TimeMs
    updated_at: TimeMs
    provider: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    pinned: bool = False
    archived: bool = False
    current_leaf_id: int | None = None


class ConversationExport(_Exported):
    format: Literal["parley.conversation"] = EXPORT_FORMAT
    version: Literal[1, 2] = EXPORT_VERSION
    exported_at: TimeMs
    conversation: ExportedConversation
    chat_settings: ExportedChatSettings | None = None  # version 2; null: none kept (the defaults apply)
    messages: list[ExportedMessage]
    runs: list[ExportedRun] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references(self) -> ConversationExport:
        seen: set[int] = set()
        for message in self.messages:
            if message.id in seen:
                raise ValueError(f"message id {message.id} appears twice")
            if message.parent_id is not None and message.parent_id not in seen:
                raise ValueError(f"message {message.id}: parent {message.parent_id} must be an earlier message")
            seen.add(message.id)
        leaf = self.conversation.current_leaf_id
        if leaf is not None and leaf not in seen:
            raise ValueError(f"conversation.current_leaf_id {leaf} is not one of the messages")
        run_ids = {run.id for run in self.runs}
        if len(run_ids) != len(self.runs):
            raise ValueError("run ids must be unique")
        for run in self.runs:
            if run.user_message_id is not None and run.user_message_id not in seen:
                raise ValueError(f"run {run.id!r}: user_message_id {run.user_message_id} is not one of the messages")
        for message in self.messages:
            if message.run_id is not None and message.run_id not in run_ids:
                raise ValueError(f"message {message.id}: run_id {message.run_id!r} is not one of the runs")
        return self


def export_conversation(history: History, conversation_id: int) -> ConversationExport:
    conversation = history.conversation(conversation_id)
    messages = [
        ExportedMessage(
            id=m.id, parent_id=m.parent_id, run_id=m.run_id, role=m.role, content=m.content, reasoning=m.reasoning,
            status=m.status, finish_reason=m.finish_reason, model=m.model, usage=m.usage, created_at=m.created_at,
            tool_calls=[ExportedToolCall(
                call_id=c.call_id, name=c.name, arguments=c.arguments, text_offset=c.text_offset,
                output=None if c.output is None else ExportedToolOutput(
                    status=c.output.status, content=c.output.content, duration_ms=c.output.duration_ms,
                    truncated=c.output.truncated, data=c.output.data))
                for c in m.tool_calls],
            attachments=[_exported_attachment(history, a) for a in m.attachments])
        for m in history.all_messages(conversation_id)
    ]
    runs = [ExportedRun(id=r.id, user_message_id=r.user_message_id, provider=r.provider, model=r.model,
                        status=r.status, finish_reason=r.finish_reason, started_at=r.started_at, ended_at=r.ended_at,
                        iterations=r.iterations, input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                        reasoning_tokens=r.reasoning_tokens, cached_tokens=r.cached_tokens, error=r.error,
                        cost_usd=r.cost_usd, priced_at=r.priced_at)
            for r in history.runs(conversation_id)]
    return ConversationExport(
        exported_at=now_ms(),
        conversation=ExportedConversation(
            title=conversation.title, created_at=conversation.created_at, updated_at=conversation.updated_at,
            provider=conversation.provider, model=conversation.model, system_prompt=conversation.system_prompt,
            pinned=conversation.pinned, archived=conversation.archived,
            current_leaf_id=conversation.current_leaf_id),
        chat_settings=_exported_settings(history, conversation_id), messages=messages, runs=runs)


def _exported_settings(history: History, conversation_id: int) -> ExportedChatSettings | None:
    kept = ChatSettingsStore(history).load(conversation_id)
    if kept == StoredChatSettings(model=kept.model, system_prompt=kept.system_prompt):
        return None  # nothing kept besides the conversation row's model and system prompt
    return ExportedChatSettings(provider=kept.provider, model=kept.model,
                                tools=None if kept.tools is None else list(kept.tools),
                                reasoning_effort=kept.reasoning_effort, temperature=kept.temperature,
                                max_output_tokens=kept.max_output_tokens)


def _exported_attachment(history: History, record: AttachmentRecord) -> ExportedAttachment:
    """A file gone from the store (removed by hand) is exported as a text note saying so, so the rest of the
    conversation can still be exported."""
    try:
        data = history.attachments.read(record.sha256)
    except (MissingAttachmentError, OSError, ValueError):
        note = MISSING_FILE.format(name=record.name)
        data = note.encode("utf-8")
        return ExportedAttachment(kind="document", name=record.name, media_type="text/plain",
                                  sha256=hashlib.sha256(data).hexdigest(), size=len(data), text=note,
                                  data=base64.b64encode(data).decode("ascii"))
    return ExportedAttachment(kind=record.kind, name=record.name, media_type=record.media_type, sha256=record.sha256,
                              size=record.size, width=record.width, height=record.height, text=record.text,
                              note=record.note, data=base64.b64encode(data).decode("ascii"))


def export_json(history: History, conversation_id: int) -> str:
    return export_conversation(history, conversation_id).model_dump_json(indent=2) + "\n"


def read_export(path: Path) -> ConversationExport:
    """Read and validate an export file; ImportFileError names the file and what is wrong."""
    try:
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise ImportFileError(f"{path} is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB; not imported")
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFileError(f"could not read {path} ({describe_os_error(exc)})") from exc
    try:
        data = loads_bounded(raw, what=str(path), max_bytes=MAX_IMPORT_BYTES)
    except JSONLimitError as exc:
        raise ImportFileError(f"{exc} Not imported.") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImportFileError(f"{path} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ImportFileError(f"{path} is not a Parley conversation export (expected \"format\": "
                              f"\"{EXPORT_FORMAT}\")")
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > EXPORT_VERSION:
        raise ImportFileError(f"{path} was exported by a newer version of Parley (export format version "
                              f"{version}); this version imports versions up to {EXPORT_VERSION}. Update Parley to "
                              "import it")
    try:
        return ConversationExport.model_validate(data)
    except ValidationError as exc:
        raise ImportFileError(f"{path} is not a valid Parley export: {describe_validation_error(exc)}") from exc


def _live_status(status: str) -> str:
    """A message or run exported while still running is imported as interrupted."""
    return "interrupted" if status in ("streaming", "running") else status


def import_conversation(history: History, document: ConversationExport) -> int:
    """Add the exported conversation as a new one (new ids) in one transaction; returns its id."""
    db = history.db
    c = document.conversation
    files = [a for m in document.messages for a in m.attachments]
    store_files(history.attachments, (base64.b64decode(a.data) for a in files), history.path)
    with storage_errors(history.path, "import the conversation"), db.atomic():
        conversation_id = inserted_id(db.execute(
            "INSERT INTO conversations (title, created_at, updated_at, provider, model, system_prompt, pinned, "
            "archived) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [clean_title(c.title), c.created_at, c.updated_at, c.provider, c.model, c.system_prompt, int(c.pinned),
             int(c.archived)]))
        run_ids = {run.id: uuid.uuid4().hex for run in document.runs}
        for run in document.runs:
            db.execute(
                "INSERT INTO runs (id, conversation_id, provider, model, status, finish_reason, started_at, ended_at, "
                "iterations, input_tokens, output_tokens, reasoning_tokens, cached_tokens, error, cost_usd, "
                "priced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_ids[run.id], conversation_id, run.provider, run.model, _live_status(run.status),
                 run.finish_reason, run.started_at, run.ended_at, run.iterations, run.input_tokens,
                 run.output_tokens, run.reasoning_tokens, run.cached_tokens,
                 None if run.error is None else json.dumps(run.error), run.cost_usd, run.priced_at])
        message_ids: dict[int, int] = {}
        for m in document.messages:
            new_id = inserted_id(db.execute(
                "INSERT INTO messages (conversation_id, parent_id, run_id, role, content, reasoning, status, "
                "finish_reason, model, usage, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [conversation_id, None if m.parent_id is None else message_ids[m.parent_id],
                 None if m.run_id is None else run_ids[m.run_id], m.role, m.content, m.reasoning,
                 _live_status(m.status), m.finish_reason, m.model, None if m.usage is None else json.dumps(m.usage),
                 m.created_at, m.created_at]))
            message_ids[m.id] = new_id
            insert_rows(db, new_id, [a.part() for a in m.attachments])
            for position, call in enumerate(m.tool_calls):
                call_row = db.execute(
                    "INSERT INTO tool_calls (message_id, position, call_id, name, arguments, text_offset) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [new_id, position, call.call_id, call.name, call.arguments, call.text_offset]).lastrowid
                if call.output is not None:
                    o = call.output
                    db.execute("INSERT INTO tool_outputs (tool_call_id, status, content, duration_ms, truncated, "
                               "data) VALUES (?, ?, ?, ?, ?, ?)",
                               [call_row, o.status, o.content, o.duration_ms, int(o.truncated),
                                None if o.data is None else json.dumps(o.data)])
        for run in document.runs:
            if run.user_message_id is not None:
                db.execute("UPDATE runs SET user_message_id = ? WHERE id = ?",
                           [message_ids[run.user_message_id], run_ids[run.id]])
        leaf = c.current_leaf_id
        db.execute("UPDATE conversations SET current_leaf_id = ? WHERE id = ?",
                   [None if leaf is None else message_ids[leaf], conversation_id])
        kept = document.chat_settings
        if kept is not None:
            db.execute(
                "INSERT INTO conversation_settings (conversation_id, provider, model, tools, reasoning_effort, "
                "temperature, max_output_tokens, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [conversation_id, kept.provider, kept.model, None if kept.tools is None else json.dumps(kept.tools),
                 kept.reasoning_effort, kept.temperature, kept.max_output_tokens, now_ms()])
    return conversation_id
