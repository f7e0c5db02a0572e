"""Numbered schema migrations, recorded in the database's ``schema_migrations`` table.

Each migration is plain SQL, applied once, in order, in its own transaction together with the row that
records it, so a crash mid-migration leaves the previous schema intact. A migration is never edited after
release; changes go in a new one. A database written by a newer Parley (a version we do not know) is refused
rather than touched. docs/storage.md describes the schema.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from app.storage.connection import Database


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    rebuilds_tables: bool = False  # run with foreign keys off, then checked with foreign_key_check


class SchemaTooNewError(Exception):
    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"schema version {found} is newer than this Parley knows ({known})")
        self.found = found
        self.known = known


_FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

INITIAL_SCHEMA = f"""
CREATE TABLE conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    provider TEXT,
    model TEXT,
    system_prompt TEXT,
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    current_leaf_id INTEGER REFERENCES messages(id) ON DELETE SET NULL
);

CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    user_message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
    provider TEXT,
    model TEXT,
    status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'complete', 'interrupted', 'error')),
    finish_reason TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    iterations INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    owner_pid INTEGER
);
CREATE INDEX runs_conversation ON runs(conversation_id);
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';

CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'complete'
        CHECK (status IN ('streaming', 'complete', 'interrupted', 'error')),
    finish_reason TEXT,
    model TEXT,
    usage TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX messages_conversation ON messages(conversation_id, id);
CREATE INDEX messages_parent ON messages(parent_id);
CREATE INDEX messages_run ON messages(run_id);
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';

CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    text_offset INTEGER NOT NULL CHECK (text_offset >= 0)
);
CREATE INDEX tool_calls_message ON tool_calls(message_id, position);

CREATE TABLE tool_outputs (
    tool_call_id INTEGER PRIMARY KEY REFERENCES tool_calls(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error', 'timeout', 'denied')),
    content TEXT NOT NULL,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    truncated INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
    data TEXT
);

CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages', content_rowid='id', tokenize='{_FTS_TOKENIZER}');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE VIRTUAL TABLE conversations_fts USING fts5(
    title, content='conversations', content_rowid='id', tokenize='{_FTS_TOKENIZER}');
CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
    INSERT INTO conversations_fts(rowid, title) VALUES (new.id, new.title);
END;
CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
    INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.id, old.title);
END;
CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN
    INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.id, old.title);
    INSERT INTO conversations_fts(rowid, title) VALUES (new.id, new.title);
END;
"""

# Token counts a provider did not report are unknown (NULL), not 0. SQLite cannot drop NOT NULL in place, so
# the runs table is rebuilt (SQLite's documented procedure: new table, copy, drop, rename), with foreign keys
# off so that dropping the old table does not cascade into run_events and messages (``rebuilds_tables``).
NULLABLE_TOKENS = """
CREATE TABLE runs_new (
    id TEXT PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    user_message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
    provider TEXT,
    model TEXT,
    status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'complete', 'interrupted', 'error')),
    finish_reason TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    iterations INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER,
    output_tokens INTEGER,
    reasoning_tokens INTEGER,
    cached_tokens INTEGER,
    error TEXT,
    owner_pid INTEGER
);
INSERT INTO runs_new SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_conversation ON runs(conversation_id);
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';
"""

# The chat settings a conversation keeps besides its system prompt (on the conversation row): the provider's
# id in the settings and the model (conversations.provider holds the display name its runs record), the tools
# it offers, reasoning effort, temperature and output-token limit. No row: the defaults (the default provider,
# every tool the settings offer, the provider's own effort, no temperature or limit sent).
CHAT_SETTINGS = """
CREATE TABLE conversation_settings (
    conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
    provider TEXT,
    model TEXT,
    tools TEXT,
    reasoning_effort TEXT CHECK (reasoning_effort IN ('off', 'minimal', 'low', 'medium', 'high')),
    temperature REAL CHECK (temperature >= 0),
    max_output_tokens INTEGER CHECK (max_output_tokens > 0),
    updated_at INTEGER NOT NULL
);
"""

# Files attached to user messages: the file itself lives once in the attachment store under its SHA-256
# (app/attachments/store.py); a document's text as sent is kept here, so continuing a conversation sends it
# again without reading the file.
MESSAGE_ATTACHMENTS = """
CREATE TABLE message_attachments (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('image', 'document')),
    name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    size INTEGER NOT NULL CHECK (size >= 0),
    width INTEGER,
    height INTEGER,
    text TEXT,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX message_attachments_message ON message_attachments(message_id, position);
CREATE INDEX message_attachments_sha256 ON message_attachments(sha256);
"""

# What each run cost (docs/usage.md). ``cost_usd`` NULL is unknown (a model without a price, or usage not
# reported); ``priced_at`` NULL marks a run recorded before costs existed (or imported), which
# app/usage/backfill.py prices from its stored usage when it first reads the history.
RUN_COSTS = """
ALTER TABLE runs ADD COLUMN cost_usd REAL;
ALTER TABLE runs ADD COLUMN priced_at INTEGER;
CREATE INDEX runs_started ON runs(started_at);
CREATE INDEX runs_unpriced ON runs(status) WHERE priced_at IS NULL;
"""

# Attached files in search (docs/storage.md "Search"): the first ATTACHMENT_NAME_INDEX_CHARS characters of each
# attachment's name and the first ATTACHMENT_INDEX_CHARS of its text as sent (a document's; an image has none).
# The FTS5 table takes its content from a view that cuts both at those limits, so snippets come from the same
# characters that were indexed and the text is not stored twice. A row is in the index when its id is above
# ``attachments_fts_pending.upto`` (0 if that row is missing): rows older than this migration (and only those)
# are indexed afterwards in small batches (app/storage/attachment_index.py), so migrating a large history does
# not block the window; the triggers leave the rows still waiting alone, so deleting one before its turn does
# not touch the index. The limits are frozen here: changing one needs a new migration.
ATTACHMENT_INDEX_CHARS = 100_000
ATTACHMENT_NAME_INDEX_CHARS = 1_000  # of a file's name (a file system allows 255 bytes; an import file, any)


def _indexed(row: str) -> str:
    """The values indexed for attachment ``row`` (``new``, ``old``, or empty for the table's own columns)."""
    prefix = f"{row}." if row else ""
    return (f"substr({prefix}name, 1, {ATTACHMENT_NAME_INDEX_CHARS}), "
            f"substr(coalesce({prefix}text, ''), 1, {ATTACHMENT_INDEX_CHARS})")


ATTACHMENT_SEARCH = f"""
CREATE VIEW attachments_indexed (id, name, text) AS SELECT id, {_indexed("")} FROM message_attachments;
CREATE VIRTUAL TABLE attachments_fts USING fts5(
    name, text, content='attachments_indexed', content_rowid='id', tokenize='{_FTS_TOKENIZER}');
CREATE TABLE attachments_fts_pending (upto INTEGER NOT NULL CHECK (upto >= 0));
INSERT INTO attachments_fts_pending (upto) SELECT coalesce(MAX(id), 0) FROM message_attachments;
CREATE TRIGGER attachments_fts_insert AFTER INSERT ON message_attachments
WHEN new.id > coalesce((SELECT upto FROM attachments_fts_pending), 0) BEGIN
    INSERT INTO attachments_fts(rowid, name, text) VALUES (new.id, {_indexed("new")});
END;
CREATE TRIGGER attachments_fts_delete AFTER DELETE ON message_attachments
WHEN old.id > coalesce((SELECT upto FROM attachments_fts_pending), 0) BEGIN
    INSERT INTO attachments_fts(attachments_fts, rowid, name, text) VALUES ('delete', old.id, {_indexed("old")});
END;
CREATE TRIGGER attachments_fts_update AFTER UPDATE OF name, text ON message_attachments
WHEN old.id > coalesce((SELECT upto FROM attachments_fts_pending), 0) BEGIN
    INSERT INTO attachments_fts(attachments_fts, rowid, name, text) VALUES ('delete', old.id, {_indexed("old")});
    INSERT INTO attachments_fts(rowid, name, text) VALUES (new.id, {_indexed("new")});
END;
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema: conversations, messages, tool calls and outputs, runs, run events, FTS5",
              INITIAL_SCHEMA),
    Migration(2, "token counts of runs may be unknown (NULL)", NULLABLE_TOKENS, rebuilds_tables=True),
    Migration(3, "per-conversation chat settings: tools, reasoning effort, temperature, output-token limit",
              CHAT_SETTINGS),
    Migration(4, "attachments of user messages, by content address", MESSAGE_ATTACHMENTS),
    Migration(5, "the cost of each run in US dollars", RUN_COSTS),
    Migration(6, "attached files' names and text in full-text search", ATTACHMENT_SEARCH),
)

LATEST_VERSION = MIGRATIONS[-1].version


MIGRATIONS_TABLE = "schema_migrations"


def current_version(db: Database) -> int:
    if MIGRATIONS_TABLE not in db.table_names():
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def apply_migrations(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Bring the schema up to date; returns the versions applied. Raises SchemaTooNewError for a newer file.

    Each migration runs under ``BEGIN IMMEDIATE`` and re-reads the version inside it, so two processes opening
    a new database at once do not both apply it.
    """
    db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
               "applied_at INTEGER NOT NULL)")
    known = migrations[-1].version if migrations else 0
    found = current_version(db)
    if found > known:
        raise SchemaTooNewError(found, known)
    applied = []
    for migration in migrations:
        if migration.version <= found:
            continue
        keys_were_on = bool(db.execute("PRAGMA foreign_keys").fetchone()[0])
        if migration.rebuilds_tables:
            db.execute("PRAGMA foreign_keys = OFF")  # only possible outside a transaction
        db.execute("BEGIN IMMEDIATE")
        try:
            found = current_version(db)
            if migration.version > found:
                db.executescript(migration.sql)
                if migration.rebuilds_tables and db.execute("PRAGMA foreign_key_check").fetchall():
                    raise sqlite3.IntegrityError(f"migration {migration.version} broke a foreign key")
                db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                           [migration.version, migration.name, int(time.time() * 1000)])
                applied.append(migration.version)
                found = migration.version
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise
        finally:
            if migration.rebuilds_tables and keys_were_on:
                db.execute("PRAGMA foreign_keys = ON")
    return applied
