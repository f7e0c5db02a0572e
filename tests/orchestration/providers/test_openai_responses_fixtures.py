"""The OpenAI Responses adapter against the recorded bodies in ../shared/fixtures/providers: the fixtures are
all there, and the Responses HTTP error bodies become typed errors. The recorded streams themselves (OpenAI,
OpenRouter and DeepSeek recordings and the AI SDK chunk file; whole, byte by byte, re-chunked, over HTTP, cut
off) are run by test_recorded_streams.py. Everything skips when ../shared is absent.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.errors import BadRequestError
from orchestration.providers.openai_responses import OpenAIResponsesAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Sleeps, collect
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

STREAMS = pf.keys("openai-responses-stream")
HTTP_ERRORS = [k for k in pf.keys("http-error-body", prefix=("openai/",)) if "responses" in k] or [pf.ABSENT]
PATH = "/v1/responses"


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def adapter(server: LoopbackServer, **kwargs: Any) -> OpenAIResponsesAdapter:
    config = provider_from_preset("openai-responses", base_url=server.url + "/v1", api_key="test-key-not-real")
    return OpenAIResponsesAdapter(config, **kwargs)


def test_all_responses_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 10
    assert set(HTTP_ERRORS) == {"openai/error-400-invalid-param-responses.json",
                                "openai/error-400-model-not-found-responses.json"}


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    loopback.always("POST", PATH, Response(status=exp["http_status"],
                                           headers={"Content-Type": pf.content_type(key)}, chunks=[raw]))
    sleeps = Sleeps()
    outcome = await collect(adapter(loopback, sleep=sleeps))
    error = outcome.error
    assert type(error) is BadRequestError and error.status == 400
    assert exp["body_json"]["error"]["message"] in error.message
    assert error.message.startswith("OpenAI (Responses API) rejected the request (400).")
    assert loopback.count == 1 and sleeps.calls == []
