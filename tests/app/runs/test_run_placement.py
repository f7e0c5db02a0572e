"""Runs the message actions start, through the run service over real HTTP on loopback and a real SQLite file:
an edited question goes beside the original, another answer beside the first, and a continuation after Stop
follows the partial answer; each request carries the context of its place in the tree."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.runs.chat_recording import CONTINUE_PROMPT, NothingToContinueError, Placement, continuation
from app.runs.chat_turn import ChatSettings
from app.runs.run_service import RunService, run
from app.secrets import SecretStore
from app.settings import ProviderSettings, Settings
from app.storage import History
from app.storage.branches import versions
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response


@pytest.fixture
def history(tmp_path: Path):
    opened = History.open(tmp_path / "history.db")
    yield opened
    opened.close()


def answering(server: LoopbackServer, *answers: str) -> list[list[dict]]:
    """The server answers ``answers`` in turn; returns the list the requests' messages are collected in."""
    sent: list[list[dict]] = []
    queue = list(answers)

    def model(request: Request) -> Response:
        sent.append(json.loads(request.body)["messages"])
        return stream_response(queue.pop(0))

    server.handler = model
    return sent


def turn(server: LoopbackServer, history: History, prompt: str | None, conversation: int | None = None,
         placement: Placement | None = None) -> int:
    svc = RunService(Settings(providers=[ProviderSettings(id="local", base_url=server.url + "/v1",
                                                          default_model="m")], default_provider="local"),
                     SecretStore(MemoryKeyring()))
    prepared = svc.begin(svc.plan(prompt, ChatSettings(tools="none")), history, conversation, placement=placement)
    asyncio.run(run(prepared, lambda _event: None))
    assert prepared.conversation_id is not None
    return prepared.conversation_id


def shown(history: History, conversation: int) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in history.branch(conversation)]


def test_an_edited_question_is_a_new_version_with_the_context_before_it(loopback: LoopbackServer, history):
    sent = answering(loopback, "A1", "A2", "A2 for the edit")
    conversation = turn(loopback, history, "Q1")
    turn(loopback, history, "Q2", conversation)
    q2 = history.branch(conversation)[2].id
    turn(loopback, history, "Q2 edited", conversation, Placement("edit", q2))
    assert shown(history, conversation) == [("user", "Q1"), ("assistant", "A1"), ("user", "Q2 edited"),
                                             ("assistant", "A2 for the edit")]
    assert [m["content"] for m in sent[-1]] == ["Q1", "A1", "Q2 edited"]
    edited = history.branch(conversation)[2].id
    assert versions(history, conversation)[edited].ids == (q2, edited)


def test_regenerating_any_answer_makes_a_sibling_answer(loopback: LoopbackServer, history):
    sent = answering(loopback, "A1", "A2", "A1 again")
    conversation = turn(loopback, history, "Q1")
    turn(loopback, history, "Q2", conversation)
    q1 = history.branch(conversation)[0].id
    turn(loopback, history, None, conversation, Placement("answer", q1))
    assert shown(history, conversation) == [("user", "Q1"), ("assistant", "A1 again")]
    assert [m["content"] for m in sent[-1]] == ["Q1"]
    assert versions(history, conversation)[history.branch(conversation)[1].id].count == 2


def test_continuing_follows_the_partial_answer_and_asks_without_storing_the_request(loopback: LoopbackServer,
                                                                                    history):
    sent = answering(loopback, "Otters float", " on their backs.")
    conversation = turn(loopback, history, "How do otters sleep?")
    partial = history.branch(conversation)[-1]
    history.db.execute("UPDATE messages SET status = 'interrupted' WHERE id = ?", [partial.id])
    turn(loopback, history, None, conversation, Placement("continue", partial.id))
    branch = history.branch(conversation)
    assert [(m.role, m.content) for m in branch] == [("user", "How do otters sleep?"),
                                                     ("assistant", "Otters float"),
                                                     ("assistant", " on their backs.")]
    assert branch[2].parent_id == partial.id
    assert sent[-1][-1] == {"role": "user", "content": CONTINUE_PROMPT}
    assert sent[-1][-2]["content"] == "Otters float"
    runs = history.runs(conversation)
    assert runs[-1].user_message_id == branch[0].id, "the run still answers the question"


def test_continue_needs_an_answer_at_the_end_of_the_branch(history):
    conversation = history.create_conversation("t")
    with pytest.raises(NothingToContinueError, match="does not end with an answer"):
        continuation(history, conversation)
    history.add_message(conversation, "user", "Q")
    with pytest.raises(NothingToContinueError):
        continuation(history, conversation)
    answer = history.add_message(conversation, "assistant", "A")
    assert continuation(history, conversation) == Placement("continue", answer)
