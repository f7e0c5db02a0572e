"""The OpenAI Chat Completions adapter against real recorded provider bodies: the fixtures are all there, an
OpenRouter quirk, and the OpenAI-compatible HTTP error bodies becoming the right typed errors. The recorded
streams themselves (whole, byte by byte, re-chunked, over HTTP) are run by test_recorded_streams.py.
Everything skips when ../shared is absent.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.engine import ModelRequest, ResponseComplete
from orchestration.errors import (
    BadRequestError,
    NotFoundError,
    ProviderError,
    RateLimitError,
    mentions_tools,
)
from orchestration.messages import ReasoningPart, UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import read_openai_chat
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

CHAT = pf.keys("openai-chat-completions-stream")
HTTP_ERRORS = pf.keys("http-error-body", prefix=("openai/", "openrouter/", "groq/", "deepseek/", "ollama/"))
PATH = "/v1/chat/completions"


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def config_for(key: str, server: LoopbackServer, **overrides: Any) -> ProviderConfig:
    return ProviderConfig(id=key.split("/")[0], base_url=server.url + "/v1", **overrides)


# --- recordings --------------------------------------------------------------------------------------

def test_all_chat_fixtures_are_found() -> None:
    pf.require()
    assert len(CHAT) == 29
    assert {k.split("/")[0] for k in CHAT} >= {"openai", "openrouter", "groq", "deepseek", "mistral", "xai",
                                               "zai", "llamacpp", "ollama"}


def test_openrouter_reasoning_is_not_doubled() -> None:
    """OpenRouter sends each reasoning piece twice (``reasoning`` and ``reasoning_details``)."""
    key = "openrouter/chat-reasoning-details-claude-sonnet-4.5.sse"
    pf.require()
    outcome = read_openai_chat(key, [pf.body(key)])
    reasoning = outcome.reasoning
    assert reasoning == "This is a simple arithmetic question. 2+2 equals 4."
    final = outcome.events[-1]
    assert isinstance(final, ResponseComplete)
    [part] = [p for p in final.message.parts if isinstance(p, ReasoningPart)]
    assert part.details[0]["signature"].startswith("Et0BCkgIChACGAIqQA2s")


# --- HTTP error bodies -------------------------------------------------------------------------------

ERROR_TYPES: dict[int, type[ProviderError]] = {400: BadRequestError, 404: NotFoundError, 429: RateLimitError}


def test_http_error_fixtures_are_found() -> None:
    pf.require()
    assert {"groq/error-400-tool-use-failed.json", "deepseek/error-400-invalid-request.json",
            "ollama/error-400-model-does-not-support-tools.json",
            "openai/error-404-model-not-found-chat.json"} <= set(HTTP_ERRORS)


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    status = exp["http_status"]
    loopback.always("POST", PATH, Response(status=status, headers={"Content-Type": pf.content_type(key)},
                                           chunks=[raw]))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    adapter = OpenAIChatAdapter(config_for(key, loopback), sleep=sleep)
    with pytest.raises(ProviderError) as caught:
        async for _ in adapter.stream(ModelRequest(model="m", messages=[UserMessage(content="hi")])):
            pass
    await adapter.aclose()
    error = caught.value
    assert type(error) is ERROR_TYPES[status]
    assert error.status == status
    assert error.body == raw.decode()
    body_error = exp["body_json"]["error"]
    provider_message = body_error["message"] if isinstance(body_error, dict) else body_error
    assert provider_message in error.message
    assert error.partial is None
    if error.retryable:  # 429: tried max_attempts times, backing off in between
        assert loopback.count == 3 and len(sleeps) == 2
    else:
        assert loopback.count == 1 and sleeps == []
    if key.startswith(("groq/", "ollama/")):
        assert mentions_tools(error)  # the loop retries these once without tools
