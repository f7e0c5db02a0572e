"""The default registry's web and file tools inside the real tool loop.

A scripted model searches and reads; the run events carry the structured results the search-results pane
shows, while the model gets the compact text. Refusals reach the model as results, and file tools, which need
approval, are denied in a run that cannot ask. The model is scripted (the engine boundary); the search service
and the page are real HTTP on loopback.
"""

from __future__ import annotations

from typing import Any

from orchestration.events import RunEvent, parse_event
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import ToolResultMessage, UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.support import search_wire
from tests.support.loopback import LoopbackServer, Response
from tests.tools.web.test_fetch import ARTICLE
from tools import FetchSettings, SearchSettings, WorkspaceSettings, default_registry

KEY = "test-key-not-real"


def keyring(entry: str) -> str | None:
    return KEY if entry == "search:brave" else None


async def run_script(steps: list[Step], registry: Any, tools: list[str]) -> tuple[list[RunEvent], ScriptedModel]:
    model = ScriptedModel(steps)
    events: list[RunEvent] = []
    await RunLoop(model, registry, events.append).run(
        RunRequest(model="m", messages=[UserMessage(content="How do sea otters eat?")], tool_names=tools))
    model.assert_exhausted()
    return events, model


async def test_search_then_fetch_fill_the_pane_and_the_answer(loopback: LoopbackServer) -> None:
    results = search_wire.brave_results()
    results["web"]["results"][0]["url"] = f"{loopback.url}/otters"
    loopback.add("GET", "/res/v1/web/search", Response.json(results))
    loopback.add("GET", "/otters", Response.body(ARTICLE, "text/html; charset=utf-8"))
    registry = default_registry(search=SearchSettings(backend="brave", brave_base_url=loopback.url),
                                fetch=FetchSettings(allowed_networks=["127.0.0.1/32"]), secret_lookup=keyring)
    events, model = await run_script([
        Step(calls=[("web_search", {"query": "how do sea otters eat", "count": 2})], call_ids=["s1"]),
        Step(calls=[("web_fetch", {"url": f"{loopback.url}/otters"})], call_ids=["f1"]),
        Step(text="They use stone tools to open shells."),
    ], registry, ["web_search", "web_fetch"])

    search_result, fetch_result = [e for e in events if e.type == "tool_result"]
    assert (search_result.name, search_result.status, search_result.category, search_result.visibility) == (
        "web_search", "ok", "search", "primary")
    assert search_result.data["kind"] == "search" and search_result.data["backend"] == "brave"
    assert search_result.data["query"] == "how do sea otters eat"
    assert [r["url"] for r in search_result.data["results"]] == [f"{loopback.url}/otters", search_wire.TOOLS_URL]
    assert set(search_result.data["results"][0]) == {"title", "url", "snippet", "backend", "published", "score"}

    assert fetch_result.data == {"kind": "fetch", "url": f"{loopback.url}/otters", "title": "Sea otters | Nature Site",
                                 "truncated": False, "requested_url": f"{loopback.url}/otters",
                                 "content_type": "text/html"}
    for event in (search_result, fetch_result):  # the data survives the event wire form (--json, the trace)
        assert parse_event(event.model_dump_json()) == event

    # The model saw compact text: numbered results with URLs, then the page as Markdown.
    search_message = model.requests[1].messages[-1]
    assert isinstance(search_message, ToolResultMessage)
    assert search_message.content.startswith("Brave Search: 2 results for 'how do sea otters eat'\n1. ")
    assert f"   {loopback.url}/otters" in search_message.content
    page_message = model.requests[2].messages[-1]
    assert isinstance(page_message, ToolResultMessage)
    assert "[stone tools](" in page_message.content
    assert "".join(e.content for e in events if e.type == "content") == "They use stone tools to open shells."
    assert events[-1].type == "done" and events[-1].finish_reason == "stop"
    assert loopback.requests[0].header("x-subscription-token") == KEY


async def test_refused_fetch_is_a_result_the_model_reads(loopback: LoopbackServer) -> None:
    registry = default_registry()  # default settings: local addresses are refused
    events, model = await run_script([
        Step(calls=[("web_fetch", {"url": "http://169.254.169.254/latest/meta-data/"})]),
        Step(text="I cannot read that address."),
    ], registry, ["web_fetch"])
    result = next(e for e in events if e.type == "tool_result")
    assert result.status == "error"
    assert "169.254.169.254 is a cloud metadata address; web_fetch never connects to those." in result.result
    assert result.data["kind"] == "fetch" and result.data["error"] == result.result
    assert isinstance(model.requests[1].messages[-1], ToolResultMessage)


async def test_file_tools_ask_for_approval_and_are_denied_without_an_approver(tmp_path: Any) -> None:
    (tmp_path / "notes.txt").write_text("private notes\n")
    registry = default_registry(workspace=WorkspaceSettings(folders=[tmp_path]))
    assert {"list_directory", "read_file", "search_files"} <= set(registry.names())
    events, _ = await run_script([
        Step(calls=[("read_file", {"path": "notes.txt"})]),
        Step(text="I was not allowed to read it."),
    ], registry, ["read_file"])
    result = next(e for e in events if e.type == "tool_result")
    assert result.status == "denied" and "needs the user's approval" in result.result
    assert "private notes" not in result.result
