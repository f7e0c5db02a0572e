"""Attachments in the history: stored once by content, read back with their message, removed with the last
conversation that uses them, embedded in the JSON export and restored by import, linked from Markdown."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from app.attachments import attachment_from_bytes
from app.storage import History
from app.storage.exchange import ImportFileError, export_json, import_conversation, read_export
from app.storage.markdown import export_markdown
from app.storage.migrations import MIGRATIONS, apply_migrations
from app.storage.replay import conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.messages import DocumentPart, ImagePart, UserMessage
from tests.support.attachment_files import image_bytes


def conversation_with(history: History, prompt: str, *attachments) -> int:
    conversation_id = history.create_conversation(prompt)
    RunRecorder(history, conversation_id).begin(prompt, attachments=list(attachments))
    return conversation_id


@pytest.fixture
def photo():
    return attachment_from_bytes("photo.png", image_bytes(10, 7))


@pytest.fixture
def notes():
    return attachment_from_bytes("notes [v2].md", b"# Otters\nThey float.")


def test_a_message_is_read_back_with_its_attachments(history: History, photo, notes):
    conversation_id = conversation_with(history, "Look", photo, notes)
    (message,) = history.branch(conversation_id)
    assert [(a.kind, a.name, a.position) for a in message.attachments] == [("image", "photo.png", 0),
                                                                          ("document", "notes [v2].md", 1)]
    (user,) = conversation_messages(history, conversation_id)
    assert isinstance(user, UserMessage) and user.attachments == [photo.part, notes.part]


def test_the_same_file_is_stored_once(history: History, photo):
    conversation_with(history, "one", photo)
    conversation_with(history, "two", photo)
    files = [p for p in history.attachments.root.rglob("*") if p.is_file()]
    assert files == [history.attachments.path(photo.part.sha256)]


def test_deleting_the_last_conversation_using_a_file_removes_it(history: History, photo, notes):
    first = conversation_with(history, "one", photo, notes)
    second = conversation_with(history, "two", photo)
    history.delete(first)
    assert history.attachments.path(photo.part.sha256).is_file()  # still used by the second
    assert not history.attachments.path(notes.part.sha256).exists()
    history.delete(second)
    assert not history.attachments.path(photo.part.sha256).exists()


def test_a_file_missing_from_the_store_becomes_a_note(history: History, photo):
    conversation_id = conversation_with(history, "Look", photo)
    history.attachments.path(photo.part.sha256).unlink()
    (user,) = conversation_messages(history, conversation_id)
    (part,) = user.attachments
    assert isinstance(part, DocumentPart) and "no longer in Parley's data folder" in part.text


def test_json_export_embeds_the_files_and_import_restores_them(history: History, photo, notes, tmp_path: Path):
    conversation_id = conversation_with(history, "Look", photo, notes)
    exported = tmp_path / "export.json"
    exported.write_text(export_json(history, conversation_id))
    history.delete(conversation_id)
    assert not history.attachments.path(photo.part.sha256).exists()
    new_id = import_conversation(history, read_export(exported))
    (user,) = conversation_messages(history, new_id)
    assert user.attachments == [photo.part, notes.part]
    assert history.attachments.read(notes.part.sha256) == notes.stored


def test_a_file_missing_from_the_store_is_exported_as_a_note(history: History, photo, tmp_path: Path):
    conversation_id = conversation_with(history, "Look", photo)
    history.attachments.path(photo.part.sha256).unlink()
    exported = tmp_path / "export.json"
    exported.write_text(export_json(history, conversation_id))
    new_id = import_conversation(history, read_export(exported))
    (user,) = conversation_messages(history, new_id)
    (part,) = user.attachments
    assert isinstance(part, DocumentPart) and part.name == "photo.png"
    assert "no longer in Parley's data folder" in part.text


def test_an_import_whose_file_does_not_match_its_hash_is_refused(history: History, photo, tmp_path: Path):
    conversation_id = conversation_with(history, "Look", photo)
    document = json.loads(export_json(history, conversation_id))
    document["messages"][0]["attachments"][0]["sha256"] = "../" + "a" * 61
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(ImportFileError, match=r"messages\[0\]\.attachments\[0\]\.sha256"):
        read_export(bad)
    document["messages"][0]["attachments"][0]["sha256"] = "b" * 64
    bad.write_text(json.dumps(document))
    with pytest.raises(ImportFileError, match="data does not match its sha256"):
        read_export(bad)


def test_markdown_links_the_stored_files(history: History, photo, notes):
    conversation_id = conversation_with(history, "Look", photo, notes)
    text = export_markdown(history, conversation_id)
    image_uri = history.attachments.path(photo.part.sha256).as_uri()
    notes_uri = history.attachments.path(notes.part.sha256).as_uri()
    assert f"- ![photo.png](<{image_uri}>) (image/png, " in text
    assert f"- [notes (v2).md](<{notes_uri}>) (text/markdown, 20 bytes)" in text
    assert isinstance(photo.part, ImagePart)


def test_migration_4_adds_attachments_to_a_version_3_database(tmp_path: Path):
    path = tmp_path / "history.db"
    old = Database(sqlite3.connect(path))
    apply_migrations(old, MIGRATIONS[:3])
    old.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'kept', 0, 0)")
    old.execute("INSERT INTO messages (id, conversation_id, role, content, created_at, updated_at) "
                "VALUES (1, 1, 'user', 'hello', 0, 0)")
    old.conn.commit()
    assert apply_migrations(old, MIGRATIONS[:4]) == [4]
    old.close()
    with History.open(path) as history:
        (message,) = history.all_messages(1)
        assert message.content == "hello" and message.attachments == ()
