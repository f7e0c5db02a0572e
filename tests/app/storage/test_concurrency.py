"""Two writers on one history database (two Parley processes, here two connections and a thread): a writer waits
its turn instead of failing at once, reads what it writes on inside its own transaction, and a new message
never lands inside a run another live process is still answering."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.storage import History
from app.storage.replay import conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.events import ContentDelta, Done, EventFactory
from orchestration.messages import UserMessage

# How long the interleaved writer is given before the first one goes on: ample for a write that does not wait.
INTERLEAVE_S = 0.5


@pytest.fixture
def second(db_path: Path, history: History) -> Iterator[History]:
    """Another connection to the same file, as another Parley process would have."""
    with History.open(db_path) as other:
        yield other


class Interleaved:
    """Runs ``other_write`` on a thread just as ``history``'s connection starts ``statement``, gives it
    INTERLEAVE_S to finish (it cannot while this connection holds the write lock), then lets ``statement`` go
    on. On leaving the block the thread is waited for; ``errors`` holds what it raised."""

    def __init__(self, history: History, statement: str, other_write: Callable[[], object]) -> None:
        self.history, self.statement, self.other_write = history, statement, other_write
        self.errors: list[BaseException] = []
        self.thread: threading.Thread | None = None

    def _write(self) -> None:
        try:
            self.other_write()
        except BaseException as exc:  # reported to the test, not lost in the thread
            self.errors.append(exc)

    def _traced(self, sql: str) -> None:
        if self.thread is None and sql.lstrip().startswith(self.statement):
            self.thread = threading.Thread(target=self._write)
            self.thread.start()
            self.thread.join(INTERLEAVE_S)

    def __enter__(self) -> Interleaved:
        self.history.db.conn.set_trace_callback(self._traced)
        return self

    def __exit__(self, *exc: object) -> None:
        self.history.db.conn.set_trace_callback(None)
        assert self.thread is not None, f"{self.statement} was never run"
        self.thread.join(10)
        assert self.errors == []


def add_elsewhere(db_path: Path, cid: int, role: str, text: str) -> Callable[[], int]:
    """A message added by another process (its own connection, opened on the writing thread)."""
    def add() -> int:
        with History.open(db_path) as other:
            return other.add_message(cid, role, text)  # type: ignore[arg-type]
    return add


def test_a_writer_whose_reads_went_stale_waits_instead_of_failing_at_once(history, db_path):
    """Regenerating reads the user message, then writes the run: another process writing in between used to
    make that write fail at once with "locked by another program" (a stale read cannot be upgraded)."""
    cid = history.create_conversation("race")
    question = history.add_message(cid, "user", "What is 6*7?")
    with Interleaved(history, "INSERT INTO runs", add_elsewhere(db_path, cid, "assistant", "elsewhere")):
        ids = RunRecorder(history, cid).begin(None, reply_to=question)
    assert [r.id for r in history.runs(cid)] == [ids.run_id]
    assert [m.content for m in history.all_messages(cid)] == ["What is 6*7?", "elsewhere"]


def test_the_leaf_is_read_inside_the_writing_transaction(history, db_path):
    """Another process adds a message just as this one saves the user's message: one follows the other, and
    neither is left off the current branch."""
    cid = history.create_conversation("race")
    history.add_message(cid, "user", "first")
    with Interleaved(history, "INSERT INTO messages", add_elsewhere(db_path, cid, "assistant", "from B")):
        RunRecorder(history, cid).begin("from A")
    branch = [m.content for m in history.branch(cid)]
    assert branch == ["first", "from A", "from B"]


def run_elsewhere(history: History, cid: int, text: str) -> int:
    """A user message and a running run owned by another live process (our parent), as `parley chat` leaves them
    while its answer streams; returns the user message's id."""
    recorder = RunRecorder(history, cid)
    ids = recorder.begin(text)
    history.db.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", [os.getppid(), ids.run_id])
    return ids.user_message_id


def test_a_new_message_does_not_go_inside_a_run_another_process_is_answering(history, second):
    cid = history.create_conversation("two terminals")
    history.add_message(cid, "user", "first")
    answered = history.add_message(cid, "assistant", "first answer")
    theirs = run_elsewhere(second, cid, "their question")  # its answer is still streaming elsewhere

    point = history.resume_point(cid)
    assert point.message_id == answered
    context = conversation_messages(history, cid, upto=point)
    assert [m.content for m in context if isinstance(m, UserMessage)] == ["first"]
    recorder = RunRecorder(history, cid, resume=point)
    ids = recorder.begin("my question")
    mine = history.message(ids.user_message_id)
    assert mine.parent_id == answered  # beside their question, not under it
    assert history.message(theirs).parent_id == answered
    events = EventFactory(ids.run_id)
    events.iteration = 1
    recorder(events.make(ContentDelta, content="my answer"))
    recorder(events.make(Done, finish_reason="stop"))
    assert [m.content for m in history.branch(cid)] == ["first", "first answer", "my question", "my answer"]


def test_the_pinned_resume_point_is_kept_even_if_the_leaf_moved(history, second):
    """What was sent as the context is what the message is stored after."""
    cid = history.create_conversation("pinned")
    history.add_message(cid, "user", "first")
    point = history.resume_point(cid)
    second.add_message(cid, "assistant", "written meanwhile")
    ids = RunRecorder(history, cid, resume=point).begin("next")
    assert history.message(ids.user_message_id).parent_id == point.message_id


def test_own_runs_are_continued(history):
    """The window writes its user message first and then reads the context: its own run is not skipped."""
    cid = history.create_conversation("window")
    ids = RunRecorder(history, cid).begin("hello")
    assert history.resume_point(cid).message_id == ids.user_message_id
    assert [m.content for m in conversation_messages(history, cid)] == ["hello"]
