"""The Gemini adapter against the recorded bodies in ../shared/fixtures/providers: the fixtures of both stream
framings are all there, and the Gemini HTTP error bodies (one served as text/event-stream) become the right
typed errors. The recorded streams themselves (whole, byte by byte, re-chunked, over HTTP, cut off) are run by
test_recorded_streams.py. Everything skips when ../shared is absent.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.engine import ModelRequest
from orchestration.errors import NotFoundError, PermissionDeniedError, ProviderError
from orchestration.messages import UserMessage
from orchestration.providers.gemini import GeminiAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Sleeps, collect
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

SSE = pf.keys("gemini-streamGenerateContent-sse")
JSON_ARRAY = pf.keys("gemini-streamGenerateContent-json-array")
STREAMS = SSE + JSON_ARRAY if pf.available() else [pf.ABSENT]
HTTP_ERRORS = pf.keys("http-error-body", prefix=("gemini/",))


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def adapter(server: LoopbackServer, **kwargs: Any) -> GeminiAdapter:
    config = provider_from_preset("gemini", base_url=server.url + "/v1beta", api_key="test-key-not-real")
    return GeminiAdapter(config, **kwargs)


def path_for(model: str) -> str:
    return f"/v1beta/models/{model}:streamGenerateContent"


def test_all_gemini_fixtures_are_found() -> None:
    pf.require()
    assert (len(SSE), len(JSON_ARRAY)) == (7, 3)
    assert len(HTTP_ERRORS) == 3


ERROR_TYPES: dict[int, type[ProviderError]] = {403: PermissionDeniedError, 404: NotFoundError}


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    loopback.always("POST", path_for("gemini-2.0-flash"),
                    Response(status=exp["http_status"], headers={"Content-Type": pf.content_type(key)},
                             chunks=[raw]))
    sleeps = Sleeps()
    outcome = await collect(adapter(loopback, sleep=sleeps), ModelRequest(
        model="gemini-2.0-flash", messages=[UserMessage(content="hi")]))
    error = outcome.error
    assert type(error) is ERROR_TYPES[exp["http_status"]]
    assert error.status == exp["http_status"] and error.body == raw.decode()
    assert error.message.startswith("Google Gemini ")
    assert exp["body_json"]["error"]["message"] in error.message
    assert loopback.count == 1 and sleeps.calls == []


async def test_json_error_served_as_sse_with_status_200(loopback: LoopbackServer) -> None:
    """Gemini may answer an error body with text/event-stream and no SSE framing; it is still an error."""
    pf.require()
    raw = (pf.ROOT / "gemini/error-404-on-stream-endpoint-with-event-stream-content-type.json").read_bytes()
    loopback.add("POST", path_for("gemini-x"), Response(headers={"Content-Type": "text/event-stream"},
                                                        chunks=[raw[:50], raw[50:]]))
    outcome = await collect(adapter(loopback), ModelRequest(model="gemini-x", messages=[UserMessage(content="hi")]))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "is not found for API version v1beta" in outcome.error.message
    assert outcome.error.status == 404
