"""The run recorder against the real loop and a scripted model: what is written before, during and after a run."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys

import pytest

from app.storage import History
from app.storage.run_recorder import CHECKPOINT_INTERVAL_S, RunRecorder
from orchestration.engine import TokenUsage
from orchestration.errors import AuthenticationError, StreamError
from orchestration.events import ContentDelta, Done, EventFactory, ReasoningDelta, RunStarted
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry

KEY = "test-key-not-real-canary-77"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def rows(path, sql, *params):
    """Read through a second connection, as another process (or a restarted app) would."""
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def run_loop(model: ScriptedModel, recorder: RunRecorder, prompt: str = "What is 6*7?"):
    ids = recorder.begin(prompt, provider="scripted", model="m")
    loop = RunLoop(model, default_registry(), recorder)
    request = RunRequest(model="m", messages=[UserMessage(content=prompt)], tool_names=["calculate"],
                         run_id=ids.run_id, conversation_id=str(recorder.conversation_id))
    return asyncio.run(loop.run(request))


def test_full_run_is_written_at_done_in_one_piece(history, db_path):
    cid = history.create_conversation("math")
    clock = FakeClock()  # never advances: no checkpoint, so everything must come from the final write

    def user_message_already_saved(request):
        assert rows(db_path, "SELECT role, content FROM messages") == [("user", "What is 6*7?")]
        assert rows(db_path, "SELECT status FROM runs") == [("running",)]

    model = ScriptedModel([
        Step(reasoning="Use the tool.", text=["Let me ", "compute. "], calls=[("calculate", {"expression": "6*7"})],
             usage=TokenUsage(input_tokens=10, output_tokens=5), check=user_message_already_saved),
        Step(text=["It is ", "42."], usage=TokenUsage(input_tokens=20, output_tokens=3, reasoning_tokens=1)),
    ])
    recorder = RunRecorder(history, cid, clock=clock)
    result = run_loop(model, recorder)
    model.assert_exhausted()
    assert result.finish_reason == "stop" and recorder.saved and recorder.save_error is None

    user, first, second = history.branch(cid)
    assert (user.role, user.content) == ("user", "What is 6*7?")
    assert (first.content, first.reasoning, first.status, first.finish_reason) == (
        "Let me compute. ", "Use the tool.", "complete", "tool_calls")
    assert first.usage == {"input_tokens": 10, "output_tokens": 5, "reasoning_tokens": 0, "cached_tokens": 0}
    (call,) = first.tool_calls
    assert (call.name, call.arguments) == ("calculate", '{"expression": "6*7"}')
    assert call.text_offset == len("Let me compute. ")
    assert (call.output.status, call.output.content) == ("ok", "6*7 = 42")
    assert (second.content, second.status, second.finish_reason, second.parent_id) == ("It is 42.", "complete", "stop",
                                                                                      first.id)
    (run,) = history.runs(cid)
    assert (run.status, run.finish_reason, run.iterations, run.user_message_id) == ("complete", "stop", 2, user.id)
    assert (run.input_tokens, run.output_tokens, run.reasoning_tokens) == (30, 8, 1)
    assert run.provider == "scripted" and run.model == "m" and run.ended_at >= run.started_at
    events = history.run_events(run.id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started" and events[-1] == {**events[-1], "type": "done",
                                                                  "finish_reason": "stop"}
    assert history.conversation(cid).current_leaf_id == second.id


def test_checkpoints_write_the_partial_answer_at_most_every_interval(history, db_path):
    cid = history.create_conversation("long answer")
    clock = FakeClock()
    recorder = RunRecorder(history, cid, clock=clock)
    ids = recorder.begin("Tell me a story")
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="p", model="m"))
    events.iteration = 1

    def streamed():
        return rows(db_path, "SELECT content, reasoning, status FROM messages WHERE role = 'assistant'")

    recorder(events.make(ReasoningDelta, content="Thinking."))
    recorder(events.make(ContentDelta, content="Once "))
    assert streamed() == []  # within the interval: still only in memory
    clock.now += CHECKPOINT_INTERVAL_S - 0.01
    recorder(events.make(ContentDelta, content="upon "))
    assert streamed() == []
    clock.now += 0.01
    recorder(events.make(ContentDelta, content="a time"))
    assert streamed() == [("Once upon a time", "Thinking.", "streaming")]
    clock.now += 1.0
    recorder(events.make(ContentDelta, content=", there"))
    assert recorder.checkpoint_if_due() is False
    assert streamed() == [("Once upon a time", "Thinking.", "streaming")]
    clock.now += 1.0  # no new event: the caller's timer asks
    assert recorder.checkpoint_if_due() is True
    assert streamed() == [("Once upon a time, there", "Thinking.", "streaming")]
    assert recorder.checkpoint_if_due() is False  # nothing new
    assert history.conversation(cid).current_leaf_id == rows(db_path, "SELECT MAX(id) FROM messages")[0][0]
    recorder(events.make(Done, finish_reason="stop"))
    assert streamed() == [("Once upon a time, there", "Thinking.", "complete")]
    assert rows(db_path, "SELECT COUNT(*) FROM messages")[0][0] == 2  # the checkpoint row was updated, not copied


async def test_cancelled_run_keeps_the_partial_answer_marked_interrupted(history):
    cid = history.create_conversation("stopped")
    model = ScriptedModel([Step(text=["partial ", "answer"], hang_after_output=True)])
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("Say something long")
    streamed: list[str] = []
    both_pieces = asyncio.Event()

    def emit(event):
        recorder(event)
        if event.type == "content":
            streamed.append(event.content)
            if len(streamed) == 2:
                both_pieces.set()

    loop = RunLoop(model, default_registry(), emit)
    task = asyncio.ensure_future(loop.run(RunRequest(model="m", messages=[UserMessage(content="x")],
                                                     run_id=ids.run_id)))
    await asyncio.wait_for(both_pieces.wait(), 5)
    task.cancel()
    result = await task
    assert result.finish_reason == "cancelled"
    user, answer = history.branch(cid)
    assert user.content == "Say something long"
    assert (answer.content, answer.status, answer.finish_reason) == ("partial answer", "interrupted", "cancelled")
    assert history.runs(cid)[0].status == "interrupted"


def test_failed_run_stores_what_arrived_with_the_redacted_error(history):
    cid = history.create_conversation("failing")
    error = StreamError(f"the connection dropped (request https://api.test/v1?key={KEY}, key {KEY})",
                        provider="p")
    model = ScriptedModel([Step(text=["Half an ", "answer"], error=error, error_after_output=True)])
    recorder = RunRecorder(history, cid, secrets=[KEY])
    result = run_loop(model, recorder)
    assert result.finish_reason == "error"
    _, answer = history.branch(cid)
    assert (answer.content, answer.status, answer.finish_reason) == ("Half an answer", "error", "error")
    run = history.runs(cid)[0]
    assert run.status == "error" and run.error["code"] == "stream_error"
    assert "the connection dropped" in run.error["message"] and KEY not in run.error["message"]
    assert KEY not in json.dumps(history.run_events(run.id))


def test_error_before_any_output_keeps_the_user_message_and_the_run(history):
    cid = history.create_conversation("rejected")
    model = ScriptedModel([Step(error=AuthenticationError("401: bad key", provider="p", status=401))])
    recorder = RunRecorder(history, cid)
    run_loop(model, recorder, "hello?")
    assert [(m.role, m.content) for m in history.branch(cid)] == [("user", "hello?")]
    run = history.runs(cid)[0]
    assert (run.status, run.error["status"], run.error["code"]) == ("error", 401, "authentication")


def test_known_secrets_never_reach_the_database(history, db_path):
    cid = history.create_conversation("leaky model")
    model = ScriptedModel([Step(text=[f"Your key is {KEY}", "."], reasoning=f"I saw {KEY}")])
    recorder = RunRecorder(history, cid, secrets=[KEY])
    run_loop(model, recorder, f"is {KEY} my key?")
    history.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert KEY.encode() not in db_path.read_bytes()
    assert "[redacted]" in history.branch(cid)[1].content


def test_a_key_split_across_streamed_pieces_is_not_stored_in_any_form(history, db_path):
    """The model echoes the key in small pieces; a checkpoint falls while only its start has arrived."""
    cid = history.create_conversation("echo")
    clock = FakeClock()
    recorder = RunRecorder(history, cid, secrets=[KEY], clock=clock)
    ids = recorder.begin("Say my key")
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="p", model="m"))
    events.iteration = 1
    pieces = ["Your key: ", KEY[:4], KEY[4:14], KEY[14:], " done"]
    for piece in pieces[:3]:
        recorder(events.make(ContentDelta, content=piece))
    clock.now += CHECKPOINT_INTERVAL_S
    assert recorder.checkpoint_if_due() is True
    [(partial,)] = rows(db_path, "SELECT content FROM messages WHERE role = 'assistant'")
    assert partial == "Your key: "  # the start of the key waits until it is known to be one
    for piece in pieces[3:]:
        recorder(events.make(ContentDelta, content=piece))
    recorder(events.make(Done, finish_reason="stop"))
    assert history.branch(cid)[1].content == "Your key: [redacted] done"
    stored = [json.loads(e[0]) for e in rows(db_path, "SELECT event FROM run_events WHERE run_id = ? ORDER BY seq",
                                               ids.run_id)]
    streamed = "".join(e["content"] for e in stored if e["type"] == "content")
    assert streamed == "Your key: [redacted] done"
    assert all(KEY[:9] not in json.dumps(e) for e in stored)


def test_an_answer_cut_off_inside_a_key_keeps_no_start_of_it(history):
    cid = history.create_conversation("cut")
    recorder = RunRecorder(history, cid, secrets=[KEY])
    ids = recorder.begin("Say my key")
    events = EventFactory(ids.run_id)
    events.iteration = 1
    recorder(events.make(ContentDelta, content="Your key: " + KEY[:15]))
    recorder(events.make(Done, finish_reason="cancelled"))
    answer = history.branch(cid)[1]
    assert (answer.content, answer.status) == ("Your key: ", "interrupted")


def test_full_disk_at_the_end_is_reported_not_raised_and_the_question_is_kept(history, db_path):
    cid = history.create_conversation("full disk")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("Please remember this question")
    pages = history.db.execute("PRAGMA page_count").fetchone()[0]
    history.db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: SQLITE_FULL on the next write
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="p", model="m"))
    events.iteration = 1
    recorder(events.make(ContentDelta, content="x" * 200_000))
    recorder(events.make(Done, finish_reason="stop"))
    assert not recorder.saved and recorder.save_error is not None
    assert "full" in str(recorder.save_error) and str(db_path) in str(recorder.save_error)
    assert rows(db_path, "SELECT role, content FROM messages") == [("user", "Please remember this question")]
    assert rows(db_path, "PRAGMA integrity_check") == [("ok",)]


def test_runs_of_dead_processes_are_marked_interrupted_on_open(db_path):
    with History.open(db_path) as history:
        cid = history.create_conversation("crashed")
        recorder = RunRecorder(history, cid, clock=FakeClock())
        ids = recorder.begin("question before the crash")
        events = EventFactory(ids.run_id)
        recorder(events.make(RunStarted, provider="p", model="m"))
        events.iteration = 1
        recorder(events.make(ContentDelta, content="partial"))
        assert recorder.checkpoint()
        live = history.create_conversation("live")
        RunRecorder(history, live).begin("still running in this process")
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
        history.db.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", [int(dead.stdout), ids.run_id])
    with History.open(db_path) as reopened:
        user, answer = reopened.branch(cid)
        assert (user.content, answer.content, answer.status) == ("question before the crash", "partial",
                                                                 "interrupted")
        assert reopened.runs(cid)[0].status == "interrupted"
        assert reopened.runs(live)[0].status == "running"  # its process (this one) is alive


def test_final_call_tool_requests_that_were_ignored_are_not_stored(history):
    from orchestration.limits import LoopLimits

    cid = history.create_conversation("forced")
    model = ScriptedModel([
        Step(calls=[("calculate", {"expression": "1+1"})]),
        Step(text="Done: 2.", calls=[("calculate", {"expression": "2+2"})]),
    ])
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("add")
    loop = RunLoop(model, default_registry(), recorder, limits=LoopLimits(max_iterations=1))
    asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="add")], tool_names=["calculate"],
                                    run_id=ids.run_id)))
    _, asked, final = history.branch(cid)
    assert [c.arguments for c in asked.tool_calls] == ['{"expression": "1+1"}']
    assert final.tool_calls == () and final.finish_reason == "max_iterations"


def test_begin_checks_its_input(history):
    cid = history.create_conversation("checks")
    other = history.create_conversation("other")
    recorder = RunRecorder(history, cid)
    with pytest.raises(ValueError, match="needs the user's text"):
        recorder.begin(None)
    foreign = history.add_message(other, "user", "elsewhere")
    with pytest.raises(ValueError, match="not a user message of conversation"):
        recorder.begin(None, reply_to=foreign)
    assert history.runs(cid) == []  # nothing half-written
    recorder.begin("first")
    with pytest.raises(RuntimeError, match="already being recorded"):
        recorder.begin("second")
    with pytest.raises(RuntimeError, match="before begin"):
        RunRecorder(history, cid)(EventFactory("r").make(ContentDelta, content="x"))


@pytest.mark.parametrize(("steps", "expected"), [
    ([Step(text="no usage reported")], (None, None, None, None)),
    ([Step(calls=[("calculate", {"expression": "1+1"})], usage=TokenUsage(input_tokens=4, output_tokens=2)),
      Step(text="2")], (None, None, None, None)),  # one call of two reported none: the total is unknown
    ([Step(text="counted", usage=TokenUsage(input_tokens=7, output_tokens=3))], (7, 3, 0, 0)),
], ids=["none", "one-of-two", "all"])
def test_tokens_a_provider_did_not_report_are_unknown_not_zero(history, db_path, steps, expected):
    cid = history.create_conversation("usage")
    model = ScriptedModel(steps)
    result = run_loop(model, RunRecorder(history, cid))
    model.assert_exhausted()
    (run,) = history.runs(cid)
    assert (run.input_tokens, run.output_tokens, run.reasoning_tokens, run.cached_tokens) == expected
    assert rows(db_path, "SELECT input_tokens, output_tokens, reasoning_tokens, cached_tokens FROM runs") == [expected]
    assert (result.usage is None) == (expected[0] is None)
    finished = [e for e in history.run_events(run.id) if e["type"] == "model_call_finished"]
    assert [f["input_tokens"] for f in finished] == [s.usage.input_tokens if s.usage else None for s in steps]
