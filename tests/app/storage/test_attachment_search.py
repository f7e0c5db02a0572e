"""Attached files in history search: found by name and by the text the model was given, gone from the index
when their message, conversation or row goes, kept through export and import, cut at the named limit; and a
history from before migration 6 indexed afterwards, batch by batch."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from app.attachments import attachment_from_bytes
from app.storage import History
from app.storage.attachment_index import BackgroundIndexer, index_all, index_batch, pending_count, pending_upto
from app.storage.branches import delete_pair
from app.storage.connection import Database
from app.storage.exchange import export_json, import_conversation, read_export
from app.storage.migrations import ATTACHMENT_INDEX_CHARS, ATTACHMENT_NAME_INDEX_CHARS, MIGRATIONS, apply_migrations
from app.storage.run_recorder import RunRecorder
from app.storage.search import HistorySearch
from tests.support.attachment_files import image_bytes

CONTRACT = (b"Services agreement between Acme and the Buyer.\n"
            b"The supplier shall indemnify the purchaser against every claim.\n")


def ask(history: History, prompt: str, *files: tuple[str, bytes]) -> tuple[int, int]:
    """A conversation whose first question carries ``files``; (conversation id, message id)."""
    conversation_id = history.create_conversation(prompt)
    recorder = RunRecorder(history, conversation_id)
    recorder.begin(prompt, attachments=[attachment_from_bytes(name, data) for name, data in files])
    assert recorder.ids is not None
    return conversation_id, recorder.ids.user_message_id


def fts_consistent(history: History) -> None:
    """FTS5's own check: the index holds exactly what the content view shows (raises when it does not)."""
    history.db.execute("INSERT INTO attachments_fts (attachments_fts) VALUES ('integrity-check')")


def test_a_phrase_from_an_attached_document_finds_its_message(history: History):
    conversation_id, message_id = ask(history, "Summarise this", ("contract.txt", CONTRACT))
    ask(history, "Something else entirely")
    (hit,) = HistorySearch(history).search("indemnify purchaser")
    assert (hit.conversation_id, hit.message_id, hit.role) == (conversation_id, message_id, "user")
    assert hit.attachment_name == "contract.txt" and hit.attachment_id is not None
    assert hit.snippet.startswith("contract.txt: ") and "**indemnify**" in hit.snippet
    assert "**purchaser**" in hit.snippet


def test_the_file_name_finds_it_and_an_image_by_its_name(history: History):
    ask(history, "Read it", ("contract.pdf.txt", CONTRACT))
    ask(history, "Look", ("holiday-beach.png", image_bytes(8, 8)))
    (document,) = HistorySearch(history).search("contract")
    assert document.snippet == "**contract**.pdf.txt"
    (picture,) = HistorySearch(history).search("beach")
    assert picture.attachment_name == "holiday-beach.png" and picture.snippet == "holiday-**beach**.png"


def test_attachment_hits_rank_with_message_hits_after_titles(history: History):
    ask(history, "otters", ("notes.md", b"otters otters otters float"))
    hits = HistorySearch(history).search("otters")
    assert [(h.message_id is None, h.attachment_name) for h in hits] == [(True, None), (False, "notes.md"),
                                                                         (False, None)]


def test_deleting_the_conversation_the_question_or_the_row_removes_it_from_the_index(history: History):
    first, _ = ask(history, "one", ("a.txt", b"alpha marker"))
    second, question = ask(history, "two", ("b.txt", b"bravo marker"))
    third, _ = ask(history, "three", ("c.txt", b"charlie marker"))
    search = HistorySearch(history)
    assert len(search.search("marker")) == 3
    history.delete(first)
    delete_pair(history, second, question)
    assert [h.conversation_id for h in search.search("marker")] == [third]
    history.db.execute("DELETE FROM message_attachments")
    assert search.search("marker") == [] and search.search("c.txt") == []
    fts_consistent(history)


def test_export_then_import_keeps_the_attachment_searchable(history: History, tmp_path: Path):
    conversation_id, _ = ask(history, "Summarise this", ("contract.txt", CONTRACT))
    exported = tmp_path / "export.json"
    exported.write_text(export_json(history, conversation_id))
    history.delete(conversation_id)
    assert HistorySearch(history).search("indemnify") == []
    new_id = import_conversation(history, read_export(exported))
    (hit,) = HistorySearch(history).search("indemnify")
    assert hit.conversation_id == new_id and hit.attachment_name == "contract.txt"
    fts_consistent(history)


def test_a_file_gone_from_the_store_is_still_found_by_its_stored_text(history: History):
    ask(history, "Summarise this", ("contract.txt", CONTRACT))
    (sha256,) = [r[0] for r in history.db.execute("SELECT sha256 FROM message_attachments")]
    history.attachments.path(sha256).unlink()
    assert len(HistorySearch(history).search("indemnify")) == 1


def test_only_the_first_ATTACHMENT_INDEX_CHARS_of_a_huge_text_are_indexed(history: History):
    conversation_id, message_id = ask(history, "Huge", ("small.txt", b"placeholder"))
    filler = "lorem " * (ATTACHMENT_INDEX_CHARS // 6)
    text = "beginning " + filler + " tailword " + "ipsum " * 200_000  # 1.3 million characters, as an import may hold
    history.db.execute("UPDATE message_attachments SET text = ? WHERE message_id = ?", [text, message_id])
    search = HistorySearch(history)
    (hit,) = search.search("beginning")
    assert hit.conversation_id == conversation_id
    assert search.search("tailword") == [] and search.search("placeholder") == []
    assert len(search.search("lorem")) == 1
    fts_consistent(history)


def build_version_5(path: Path, attachments: int) -> None:
    """A history written by Parley before migration 6: one question per conversation, each with a document
    (every third an image without text)."""
    old = Database(sqlite3.connect(path))
    apply_migrations(old, MIGRATIONS[:5])
    for i in range(1, attachments + 1):
        old.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, 0, 0)",
                    [i, f"chat {i}"])
        old.execute("INSERT INTO messages (id, conversation_id, role, content, created_at, updated_at) "
                    "VALUES (?, ?, 'user', 'see attached', 0, 0)", [i, i])
        image = i % 3 == 0
        old.execute("INSERT INTO message_attachments (id, message_id, position, kind, name, media_type, sha256, "
                    "size, text) VALUES (?, ?, 0, ?, ?, ?, ?, 10, ?)",
                    [i, i, "image" if image else "document", f"file{i}.{'png' if image else 'txt'}",
                     "image/png" if image else "text/plain", f"{i:064x}",
                     None if image else f"document number{i} about quokkas"])
    old.conn.commit()
    old.close()


def test_migration_6_indexes_a_version_5_history_in_batches(tmp_path: Path):
    path = tmp_path / "history.db"
    build_version_5(path, 30)
    with History.open(path) as history:
        db = history.db
        assert db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 6
        assert pending_upto(db) == 30 and pending_count(db) == 30
        search = HistorySearch(history)
        assert search.search("quokkas") == []  # not indexed yet: the migration itself only made the index
        # meanwhile the user deletes one waiting row and attaches a new file: both handled by the triggers
        history.delete(15)
        new_conversation, _ = ask(history, "new", ("fresh.txt", b"fresh quokkas"))
        assert [h.conversation_id for h in search.search("quokkas")] == [new_conversation]
        assert pending_count(db) == 29
        assert index_batch(db, rows=7) == 7
        assert pending_upto(db) == 23 and pending_count(db) == 22
        assert index_batch(db, rows=200, chars=1) == 1  # a batch takes at least one row, whatever its size
        assert index_all(db) == 21 and pending_upto(db) == 0 and pending_count(db) == 0
        assert index_batch(db) == 0
        documents = {h.conversation_id for h in search.search("quokkas", limit=100)}
        assert documents == {i for i in range(1, 31) if i % 3 and i != 15} | {new_conversation}
        (image,) = search.search("file27")
        assert image.attachment_name == "file27.png" and image.conversation_id == 27
        history.delete(1)
        assert all(h.conversation_id != 1 for h in search.search("quokkas", limit=100))
        fts_consistent(history)


def test_an_id_freed_while_waiting_is_indexed_once(tmp_path: Path):
    """SQLite may give a new row the id of the newest row deleted before the backfill reached it: the new row is
    then below ``upto`` and is left to the backfill, never indexed twice."""
    path = tmp_path / "history.db"
    build_version_5(path, 4)
    with History.open(path) as history:
        history.delete(4)
        history.db.execute("INSERT INTO message_attachments (id, message_id, position, kind, name, media_type, "
                           "sha256, size, text) VALUES (4, 1, 1, 'document', 'late.txt', 'text/plain', ?, 1, "
                           "'wombats')", ["f" * 64])
        assert HistorySearch(history).search("wombats") == []
        index_all(history.db)
        (hit,) = HistorySearch(history).search("wombats")
        assert hit.attachment_name == "late.txt"
        fts_consistent(history)


def test_a_missing_view_is_named_as_damage(db_path: Path):
    with History.open(db_path):
        pass
    raw = sqlite3.connect(db_path)
    raw.execute("DROP VIEW attachments_indexed")
    raw.commit()
    raw.close()
    with pytest.raises(Exception, match="its view attachments_indexed"):
        History.open(db_path)


def test_a_row_another_program_wrote_with_bytes_that_are_not_utf8_does_not_break_search(history: History):
    conversation_id, message_id = ask(history, "hello")
    for position, text in enumerate([b"\xff\xfe not text but blobword", b"numbers\xc3 brokenword", 12345]):
        history.db.execute("INSERT INTO message_attachments (message_id, position, kind, name, media_type, sha256, "
                           "size, text) VALUES (?, ?, 'document', ?, 'text/plain', ?, 1, ?)",
                           [message_id, position, f"odd{position}.txt", f"{position:064x}", text])
    history.db.execute("UPDATE message_attachments SET text = CAST(text AS TEXT) WHERE position = 1")
    search = HistorySearch(history)
    (blob,) = search.search("blobword")
    assert blob.conversation_id == conversation_id and "**blobword**" in blob.snippet
    (broken,) = search.search("brokenword")
    assert "\ufffd" in broken.snippet and "**brokenword**" in broken.snippet
    (number,) = search.search("12345")
    assert number.attachment_name == "odd2.txt"
    history.delete(conversation_id)
    fts_consistent(history)


def test_a_huge_name_from_an_import_is_indexed_and_shown_only_to_ATTACHMENT_NAME_INDEX_CHARS(history: History):
    _, message_id = ask(history, "hello", ("short.txt", b"body"))
    name = "start " + "x" * ATTACHMENT_NAME_INDEX_CHARS + " farword.txt"
    history.db.execute("UPDATE message_attachments SET name = ? WHERE message_id = ?", [name, message_id])
    search = HistorySearch(history)
    (hit,) = search.search("start")
    assert hit.attachment_name == name[:ATTACHMENT_NAME_INDEX_CHARS]
    assert len(hit.snippet) < ATTACHMENT_NAME_INDEX_CHARS + 10
    assert search.search("farword") == []
    fts_consistent(history)


def test_without_its_pending_row_new_attachments_are_still_indexed(history: History):
    history.db.execute("DELETE FROM attachments_fts_pending")  # another program's doing
    ask(history, "hello", ("later.txt", b"numbat"))
    assert len(HistorySearch(history).search("numbat")) == 1 and index_batch(history.db) == 0
    fts_consistent(history)


def test_the_background_indexer_works_beside_a_writer_and_ends_once(tmp_path: Path):
    path = tmp_path / "history.db"
    build_version_5(path, 300)  # about ten batches
    done = threading.Event()
    reported: list[int] = []
    with History.open(path) as history:
        indexer = BackgroundIndexer(path, lambda rows: (reported.append(rows), done.set()))
        indexer.start()
        for conversation in range(1, 300, 7):  # the window's own writes meanwhile, on its own connection
            history.delete(conversation)
        ask(history, "new", ("fresh.txt", b"fresh quokkas"))
        assert done.wait(30)
        indexer.stop()
        assert not indexer.running and indexer.completed
        # rows deleted before their batch are skipped, rows deleted after it leave the index through the triggers
        assert reported == [indexer.indexed] and indexer.indexed <= 300 and pending_count(history.db) == 0
        expected = {i for i in range(1, 301) if i % 3 and (i - 1) % 7} | {301}
        assert {h.conversation_id for h in HistorySearch(history).search("quokkas", limit=500)} == expected
        fts_consistent(history)


def test_the_background_indexer_waits_out_a_lock_and_stops_when_told(tmp_path: Path, monkeypatch, caplog):
    path = tmp_path / "history.db"
    build_version_5(path, 6)
    monkeypatch.setattr("app.storage.database.BUSY_TIMEOUT_S", 0.05)
    done = threading.Event()
    with History.open(path) as history:
        history.db.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        indexer = BackgroundIndexer(path, lambda rows: done.set(), retry_s=0.05)
        indexer.start()
        assert not done.wait(0.5)
        history.db.execute("COMMIT")
        assert done.wait(10) and indexer.indexed == 6
        assert "attachment indexing paused" in caplog.text and "locked" in caplog.text
    stopped = BackgroundIndexer(path, lambda rows: pytest.fail("stopped before it began"))
    stopped.stop()
    assert not stopped.running


def test_an_import_cuts_an_overlong_attachment_name_to_the_limit_keeps_everything_else_and_says_so(
        history: History, tmp_path: Path):
    from app.attachments.limits import MAX_ATTACHMENT_NAME_CHARS
    from app.storage.import_notes import import_note

    conversation_id, _ = ask(history, "Read these", ("contract.txt", CONTRACT), ("short.md", b"# wombats\n"))
    document = json.loads(export_json(history, conversation_id))
    long_name = "minutes " + "m" * 5000 + ".txt"
    document["messages"][0]["attachments"][0]["name"] = long_name
    path = tmp_path / "long-name.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    imported = read_export(path)
    new_id = import_conversation(history, imported)
    rows = history.db.execute(
        "SELECT a.name, a.text, a.sha256 FROM message_attachments a JOIN messages m ON m.id = a.message_id "
        "WHERE m.conversation_id = ? ORDER BY a.position", [new_id]).fetchall()
    assert [name for name, _, _ in rows] == [long_name[:MAX_ATTACHMENT_NAME_CHARS - 5] + "….txt", "short.md"]
    assert len(rows[0][0]) == MAX_ATTACHMENT_NAME_CHARS
    assert rows[0][1] == CONTRACT.decode() and history.attachments.read(rows[0][2]) == CONTRACT
    (hit,) = [hit for hit in HistorySearch(history).search("indemnify") if hit.conversation_id == new_id]
    assert hit.attachment_name == rows[0][0]
    assert import_note(imported) == (f"Cut 1 attachment name longer than {MAX_ATTACHMENT_NAME_CHARS} characters "
                                     "to its start and extension (the longest had 5,012).")
    fts_consistent(history)
