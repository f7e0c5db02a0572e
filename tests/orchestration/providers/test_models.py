"""list_models per wire format over loopback HTTP: request shapes, paging, filtering and errors."""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.errors import AuthenticationError, MalformedResponseError
from orchestration.providers import UnsupportedKindError
from orchestration.providers.models import ModelInfo, list_models
from orchestration.providers.presets import provider_from_preset
from tests.support.loopback import LoopbackServer, Response


def config(preset: str, server: LoopbackServer, suffix: str, **kwargs: Any) -> Any:
    return provider_from_preset(preset, base_url=server.url + suffix, api_key="test-key-not-real", **kwargs)


@pytest.mark.parametrize("preset", ["openai", "openai-responses", "groq"])
async def test_openai_style(preset: str, loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1/models", Response.json({"object": "list", "data": [{"id": "gpt-x"}, {"id": "o9"}]}))
    assert await list_models(config(preset, loopback, "/v1")) == [ModelInfo("gpt-x"), ModelInfo("o9")]
    assert loopback.requests[0].header("authorization") == "Bearer test-key-not-real"


async def test_anthropic_pages_by_after_id(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "claude-a", "display_name": "Claude A"}],
                                                     "has_more": True, "last_id": "claude-a"}),
                 Response.json({"data": [{"id": "claude-b", "display_name": "Claude B"}], "has_more": False,
                                "last_id": "claude-b"}))
    models = await list_models(config("anthropic", loopback, "/v1"))
    assert models == [ModelInfo("claude-a", "Claude A"), ModelInfo("claude-b", "Claude B")]
    first, second = loopback.requests
    assert first.query == {"limit": ["1000"]} and second.query == {"limit": ["1000"], "after_id": ["claude-a"]}
    assert first.header("x-api-key") == "test-key-not-real" and first.header("anthropic-version")


async def test_gemini_pages_and_keeps_generating_models(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1beta/models", Response.json({"models": [
        {"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
         "supportedGenerationMethods": ["generateContent", "countTokens"]},
        {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]}],
        "nextPageToken": "p2"}), Response.json({"models": [{"name": "models/gemini-3-pro"}]}))
    models = await list_models(config("gemini", loopback, "/v1beta"))
    assert models == [ModelInfo("gemini-2.5-flash", "Gemini 2.5 Flash"), ModelInfo("gemini-3-pro")]
    assert loopback.requests[1].query["pageToken"] == ["p2"]
    assert loopback.requests[0].header("x-goog-api-key") == "test-key-not-real"


async def test_ollama_tags(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/api/tags", Response.json({"models": [{"name": "qwen3:8b", "model": "qwen3:8b"},
                                                               {"name": "llama3.1"}]}))
    cfg = provider_from_preset("ollama-native", base_url=loopback.url)
    assert await list_models(cfg) == [ModelInfo("qwen3:8b"), ModelInfo("llama3.1")]
    assert loopback.requests[0].header("authorization") is None


async def test_cohere_chat_models(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1/models", Response.json({"models": [{"name": "command-a-03-2025"}],
                                                     "next_page_token": "t"}),
                 Response.json({"models": [{"name": "command-r"}]}))
    assert await list_models(config("cohere", loopback, "")) == [ModelInfo("command-a-03-2025"),
                                                                  ModelInfo("command-r")]
    assert loopback.requests[0].query == {"endpoint": ["chat"], "page_size": ["1000"]}
    assert loopback.requests[1].query["page_token"] == ["t"]


async def test_errors_are_typed(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1/models", Response.json({"error": {"message": "bad key"}}, status=401),
                 Response.json({"unexpected": True}))
    with pytest.raises(AuthenticationError) as caught:
        await list_models(config("anthropic", loopback, "/v1"))
    assert caught.value.message.startswith("The Anthropic API key was rejected (401).")
    with pytest.raises(MalformedResponseError) as malformed:
        await list_models(config("anthropic", loopback, "/v1"))
    assert "'data'" in malformed.value.message


async def test_an_unknown_kind_is_an_error_not_an_openai_request(loopback: LoopbackServer) -> None:
    # the model list once fell back to OpenAI's GET /models for a kind no adapter speaks
    loopback.add("GET", "/v1/models", Response.json({"object": "list", "data": [{"id": "gpt-x"}]}))
    config = provider_from_preset("openai", base_url=loopback.url + "/v1").model_copy(update={"kind": "mystery"})
    with pytest.raises(UnsupportedKindError, match="'mystery' is not supported; available: openai, anthropic"):
        await list_models(config)
    assert loopback.requests == []
