"""The Anthropic Messages adapter against the recorded bodies in ../shared/fixtures/providers: the fixtures are
all there, and the Anthropic HTTP error bodies become the right typed errors. The recorded streams themselves
(whole, byte by byte, re-chunked, over HTTP, cut off) are run by test_recorded_streams.py. Everything skips
when ../shared is absent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from orchestration.errors import BadRequestError, NotFoundError, ProviderError
from orchestration.providers.anthropic import AnthropicAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Sleeps, collect
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

STREAMS = pf.keys("anthropic-messages-stream")
HTTP_ERRORS = pf.keys("http-error-body", prefix=("anthropic/",))
PATH = "/v1/messages"


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def adapter(server: LoopbackServer, **kwargs: Any) -> AnthropicAdapter:
    return AnthropicAdapter(provider_from_preset("anthropic", base_url=server.url + "/v1",
                                                 api_key="test-key-not-real"), **kwargs)


def test_all_anthropic_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 11
    assert {"anthropic/error-400-invalid-request.json", "anthropic/error-404-not-found-model.json"} == set(
        HTTP_ERRORS)


ERROR_TYPES: dict[int, type[ProviderError]] = {400: BadRequestError, 404: NotFoundError}


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
    assert type(error) is ERROR_TYPES[exp["http_status"]]
    assert error.status == exp["http_status"] and error.body == raw.decode()
    assert error.message.startswith("Anthropic ")
    assert exp["body_json"]["error"]["message"] in error.message
    assert error.provider_code == exp["body_json"]["error"]["type"]
    assert loopback.count == 1 and sleeps.calls == []  # client errors are not retried
    json.loads(error.body)
