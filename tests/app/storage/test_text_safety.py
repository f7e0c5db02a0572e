"""Text with lone surrogates (from a provider's JSON escapes, an import, undecodable bytes) is stored, with
U+FFFD in their place, instead of failing the whole write."""

from __future__ import annotations

from app.storage.run_recorder import RunRecorder
from app.storage.text_safety import storable
from orchestration.events import ContentDelta, Done, EventFactory


def test_storable_replaces_only_lone_surrogates():
    assert storable("plain é 😀") == "plain é 😀"
    assert storable("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert storable("\ud83d\ude00") == "\ufffd\ufffd"  # two code units of a pair are still two surrogates


def test_a_message_with_a_lone_surrogate_is_stored(history):
    cid = history.create_conversation("t\udc80")
    message_id = history.add_message(cid, "user", "what is \ud800?")
    assert history.message(message_id).content == "what is \ufffd?"
    assert history.conversation(cid).title == "t\ufffd"


def test_an_answer_with_a_lone_surrogate_is_recorded(history):
    cid = history.create_conversation("x")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("hi \udfff")
    events = EventFactory(ids.run_id)
    events.iteration = 1
    recorder(events.make(ContentDelta, content="answer \ud800 end"))
    recorder(events.make(Done, finish_reason="stop"))
    assert [m.content for m in history.branch(cid)] == ["hi \ufffd", "answer \ufffd end"]
