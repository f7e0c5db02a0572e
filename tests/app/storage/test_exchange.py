"""Export to JSON and Markdown; JSON imports back as an equal conversation, and bad files are refused clearly."""

from __future__ import annotations

import json

import pytest

from app.storage.exchange import (
    ImportFileError,
    export_conversation,
    export_json,
    import_conversation,
    read_export,
)
from app.storage.export_fields import FIELD_CHARS, FIELDS_SHOWN, ignored_fields, ignored_note
from app.storage.markdown import export_markdown, fence
from app.storage.run_recorder import RunRecorder
from orchestration.events import (
    ContentDelta,
    Done,
    EventFactory,
    ReasoningDelta,
    RunStarted,
    ToolCallInfo,
    ToolCalls,
    ToolResult,
    Usage,
)


@pytest.fixture
def conversation(history):
    """A conversation with reasoning, a tool call and its output, an interrupted answer and a second branch."""
    cid = history.create_conversation("Cooking with numbers", provider="local", model="m",
                                      system_prompt="Be precise.")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("How many eggs for 3 cakes?")
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="local", model="m"))
    events.iteration = 1
    recorder(events.make(ReasoningDelta, content="Each cake needs 4."))
    recorder(events.make(ContentDelta, content="Let me multiply. "))
    recorder(events.make(ToolCalls, calls=[ToolCallInfo(id="call_1", name="calculate",
                                                        arguments='{"expression": "3*4"}')]))
    recorder(events.make(Usage, input_tokens=9, output_tokens=4))
    recorder(events.make(ToolResult, id="call_1", name="calculate", result="3*4 = 12 ```", status="ok",
                         duration_ms=2, category="utility", visibility="hidden", data={"value": 12}))
    events.iteration = 2
    recorder(events.make(ContentDelta, content="You need 12 eggs."))
    recorder(events.make(Done, finish_reason="stop"))
    user = history.branch(cid)[0]
    again = RunRecorder(history, cid)
    ids = again.begin(None, reply_to=user.id)
    events = EventFactory(ids.run_id)
    events.iteration = 1
    again(events.make(ContentDelta, content="Twelve, I thi"))
    again(events.make(Done, finish_reason="cancelled"))
    return cid


def normalized(document: dict) -> dict:
    """An export without the ids and timestamps that an import renumbers."""
    document = json.loads(json.dumps(document))
    document.pop("exported_at")
    ids = {m["id"]: n for n, m in enumerate(document["messages"])}
    runs = {r["id"]: n for n, r in enumerate(document["runs"])}
    for m in document["messages"]:
        m["id"] = ids[m["id"]]
        m["parent_id"] = None if m["parent_id"] is None else ids[m["parent_id"]]
        m["run_id"] = None if m["run_id"] is None else runs[m["run_id"]]
    for r in document["runs"]:
        r["id"] = runs[r["id"]]
        r["user_message_id"] = ids[r["user_message_id"]]
    c = document["conversation"]
    c["current_leaf_id"] = ids[c["current_leaf_id"]]
    return document


def test_json_export_round_trips_through_import(history, conversation, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(export_json(history, conversation))
    document = read_export(path)
    assert len(document.messages) == 4 and len(document.runs) == 2
    imported = import_conversation(history, document)
    assert imported != conversation
    before = export_conversation(history, conversation).model_dump()
    after = export_conversation(history, imported).model_dump()
    assert normalized(after) == normalized(before)
    assert export_markdown(history, imported).replace(f"Conversation {imported}", "") == export_markdown(
        history, conversation).replace(f"Conversation {conversation}", "")
    import_conversation(history, read_export(path))  # importing twice gives two copies, no id clash
    assert len(history.list_conversations()) == 3


def test_export_holds_everything(history, conversation):
    data = json.loads(export_json(history, conversation))
    assert data["format"] == "parley.conversation" and data["version"] == 2
    assert data["conversation"]["system_prompt"] == "Be precise."
    tool_message = data["messages"][1]
    assert tool_message["reasoning"] == "Each cake needs 4."
    assert tool_message["tool_calls"][0] == {
        "call_id": "call_1", "name": "calculate", "arguments": '{"expression": "3*4"}', "text_offset": 17,
        "output": {"status": "ok", "content": "3*4 = 12 ```", "duration_ms": 2, "truncated": False,
                   "data": {"value": 12}}}
    assert [r["status"] for r in data["runs"]] == ["complete", "interrupted"]
    assert data["messages"][3]["status"] == "interrupted"


def test_markdown_shows_the_current_branch_readably(history, conversation):
    text = export_markdown(history, conversation)
    assert text.startswith("# Cooking with numbers\n")
    assert "## System\n\nBe precise." in text
    assert "## User\n\nHow many eggs for 3 cakes?" in text
    assert "Twelve, I thi" in text and "*This answer is interrupted (cancelled).*" in text
    assert "You need 12 eggs." not in text  # the other branch
    assert "2 messages on other branches" in text
    user = history.branch(conversation)[0]
    history.switch_branch(conversation, history.children(conversation, user.id)[0].id)
    text = export_markdown(history, conversation)
    assert "<details><summary>Reasoning</summary>\n\nEach cake needs 4." in text
    assert text.index("Let me multiply.") < text.index("**Tool call** `calculate`") < text.index("You need 12")
    assert "````\n3*4 = 12 ```\n````" in text


def test_fences_are_longer_than_the_backticks_inside():
    assert fence("a ``` b ````` c").startswith("``````\n")
    assert fence("plain", "json") == "```json\nplain\n```"


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "is not valid JSON"),
    ('{"format": "something.else"}', "is not a Parley conversation export"),
    ('{"format": "parley.conversation", "version": 1, "exported_at": 0, "conversation": {"title": "t", '
     '"created_at": 0, "updated_at": 0}, "messages": [{"id": 1, "parent_id": 7, "role": "user", "content": "x", '
     '"created_at": 0}]}', "parent 7 must be an earlier message"),
    ('{"format": "parley.conversation", "version": 1, "exported_at": 0, "conversation": {"title": "t", '
     '"created_at": 0, "updated_at": 0}, "messages": [{"id": 1, "role": "robot", "content": "x", "created_at": 0}]}',
     "messages[0].role"),
])
def test_bad_files_are_refused_naming_the_problem(history, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ImportFileError) as caught:
        read_export(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert history.list_conversations() == []


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ImportFileError, match=r"could not read .*nope\.json"):
        read_export(tmp_path / "nope.json")


def test_an_imported_title_keeps_no_key_shaped_string(history, tmp_path):
    path = tmp_path / "keyed.json"
    path.write_text(json.dumps({
        "format": "parley.conversation", "version": 1, "exported_at": 0,
        "conversation": {"title": "my key sk-proj-Imported4Key9NotReal0000aaaa", "created_at": 0, "updated_at": 0},
        "messages": []}))
    conversation_id = import_conversation(history, read_export(path))
    assert history.conversation(conversation_id).title == "my key [redacted]"


def test_an_import_file_nested_too_deep_is_refused_naming_the_limit(history, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "parley.conversation", "messages": ' + "[" * 1_100 + "]" * 1_100 + "}")
    with pytest.raises(ImportFileError) as caught:
        read_export(path)
    assert f"{path} is nested more than 100 levels deep, over the limit of 100 for JSON" in str(caught.value)
    assert history.list_conversations() == []


def test_left_out_fields_are_counted_by_place_and_the_note_names_a_few_cut_short(history, conversation, tmp_path):
    document = json.loads(export_json(history, conversation))
    long_name = "y" * (FIELD_CHARS + 5)
    for n in range(FIELDS_SHOWN + 1):
        document["conversation"][f"new_{n}"] = n
    document["messages"][0]["tool_calls"] = [{"call_id": "c", "name": "calculate", "arguments": "{}", "text_offset": 0,
                                              "output": {"status": "ok", "content": "1", long_name: True}}]
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(document))
    read = read_export(path)
    found = ignored_fields(read)
    assert found[f"messages[].tool_calls[].output.{long_name}"] == 1 and found["conversation.new_0"] == 1
    note = ignored_note(read) or ""
    assert note.startswith(f"Left out {FIELDS_SHOWN + 2} fields") and note.endswith(" and 2 more.")
    assert long_name not in note
    assert ignored_note(export_conversation(history, conversation)) is None  # this version's own: nothing left out


def test_every_chat_setting_and_each_runs_cost_survive_export_and_import(history, conversation, tmp_path):
    """A round trip through a file into another history database (another machine): the conversation's chat
    settings (not only its system prompt) and what each run cost come back as they were."""
    from app.storage import History
    from app.storage.chat_settings import ChatSettingsStore, StoredChatSettings

    kept = StoredChatSettings(provider="work-openai", model="gpt-x", system_prompt="Be precise.",
                              tools=("calculate", "web_search"), reasoning_effort="high", temperature=0.3,
                              max_output_tokens=2048)
    ChatSettingsStore(history).save(conversation, kept)
    cost = RunRecorder(history, conversation)
    ids = cost.begin("And for 5 cakes?")
    events = EventFactory(ids.run_id)
    cost(events.make(RunStarted, provider="work-openai", model="gpt-x"))
    events.iteration = 1
    cost(events.make(ContentDelta, content="20 eggs."))
    cost(events.make(Usage, input_tokens=1200, output_tokens=30, cost_usd=0.0123))
    cost(events.make(Done, finish_reason="stop"))
    before = history.runs(conversation)
    assert [r.cost_usd for r in before][-1] == pytest.approx(0.0123) and before[-1].priced_at is not None

    path = tmp_path / "export.json"
    path.write_text(export_json(history, conversation))
    with History.open(tmp_path / "elsewhere" / "history.db") as other:
        imported = import_conversation(other, read_export(path))
        assert ChatSettingsStore(other).load(imported) == kept
        after = other.runs(imported)
        assert [(r.cost_usd, r.priced_at) for r in after] == [(r.cost_usd, r.priced_at) for r in before]
        assert normalized(export_conversation(other, imported).model_dump()) == normalized(
            export_conversation(history, conversation).model_dump())


def test_a_version_1_file_still_imports_and_its_runs_are_priced_later(history, conversation, tmp_path):
    data = json.loads(export_json(history, conversation))
    data["version"] = 1
    data.pop("chat_settings")
    for run in data["runs"]:
        run.pop("cost_usd")
        run.pop("priced_at")
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    imported = import_conversation(history, read_export(path))
    assert [r.priced_at for r in history.runs(imported)] == [None, None]  # app/usage/backfill.py prices them
    assert history.conversation(imported).system_prompt == "Be precise."


@pytest.mark.parametrize(("settings", "message"), [
    ({"reasoning_effort": "extreme"}, "chat_settings.reasoning_effort"),
    ({"temperature": -1}, "chat_settings.temperature"),
    ({"max_output_tokens": 0}, "chat_settings.max_output_tokens"),
    ({"tools": "calculate"}, "chat_settings.tools"),
])
def test_bad_chat_settings_in_a_file_are_refused_naming_the_field(history, conversation, tmp_path, settings,
                                                                  message):
    data = json.loads(export_json(history, conversation))
    data["chat_settings"] = settings
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ImportFileError, match=message.replace(".", r"\.")):
        read_export(path)
