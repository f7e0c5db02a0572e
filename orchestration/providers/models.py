"""Listing a provider's models, for the preferences dialog and ``parley models``.

One request shape per wire format: OpenAI-style ``GET /models`` (also the Responses API), Anthropic
``GET /v1/models`` (paged by ``after_id``), Gemini ``GET /models`` (paged by ``pageToken``; only models that
can generate content), Ollama ``GET /api/tags`` and Cohere ``GET /v1/models?endpoint=chat``. Errors are the
same typed errors as a chat request's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from orchestration.errors import MalformedResponseError
from orchestration.providers.config import ProviderConfig
from orchestration.providers.transport import Sleep, Transport
from orchestration.providers.wire_formats import format_of

if TYPE_CHECKING:  # httpx is imported when a client is first made (providers/transport.py)
    import httpx

MAX_MODEL_PAGES = 20  # pages fetched at most from a paged model list
PAGE_SIZE = 1000  # models asked for per page where the API takes a size


@dataclass(frozen=True)
class ModelInfo:
    id: str  # the name to send as ``model``
    name: str | None = None  # a display name, when the provider gives one


async def list_models(config: ProviderConfig, client: httpx.AsyncClient | None = None,
                      sleep: Sleep = asyncio.sleep) -> list[ModelInfo]:
    """The provider's models, in the order it lists them; raises ``ProviderError`` subclasses."""
    lister = format_of(config).model_lister()  # UnsupportedKindError before any request
    transport = Transport(config, client, sleep=sleep)
    try:
        models: list[ModelInfo] = await lister(transport)
        return models
    finally:
        await transport.aclose()


def _items(transport: Transport, body: Any, key: str) -> list[dict[str, Any]]:
    items = body.get(key) if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise MalformedResponseError(f"{transport.name} answered the model list without a {key!r} list.",
                                     provider=transport.name, body=str(body)[:2000])
    return [item for item in items if isinstance(item, dict)]


async def list_openai(transport: Transport) -> list[ModelInfo]:
    body = await transport.request_json("GET", "models")
    return [ModelInfo(str(m["id"])) for m in _items(transport, body, "data") if m.get("id")]


async def list_anthropic(transport: Transport) -> list[ModelInfo]:
    models: list[ModelInfo] = []
    after: str | None = None
    for _ in range(MAX_MODEL_PAGES):
        query = f"models?limit={PAGE_SIZE}" + (f"&after_id={quote(after)}" if after else "")
        body = await transport.request_json("GET", query)
        models += [ModelInfo(str(m["id"]), m.get("display_name")) for m in _items(transport, body, "data")
                   if m.get("id")]
        after = body.get("last_id") if body.get("has_more") else None
        if not after:
            break
    return models


async def list_gemini(transport: Transport) -> list[ModelInfo]:
    models: list[ModelInfo] = []
    token: str | None = None
    for _ in range(MAX_MODEL_PAGES):
        query = f"models?pageSize={PAGE_SIZE}" + (f"&pageToken={quote(token)}" if token else "")
        body = await transport.request_json("GET", query)
        for model in _items(transport, body, "models"):
            methods = model.get("supportedGenerationMethods")
            if not model.get("name") or (isinstance(methods, list) and "generateContent" not in methods):
                continue
            models.append(ModelInfo(str(model["name"]).removeprefix("models/"), model.get("displayName")))
        token = body.get("nextPageToken") or None
        if not token:
            break
    return models


async def list_ollama(transport: Transport) -> list[ModelInfo]:
    body = await transport.request_json("GET", "api/tags")
    return [ModelInfo(str(m.get("model") or m["name"])) for m in _items(transport, body, "models")
            if m.get("model") or m.get("name")]


async def list_cohere(transport: Transport) -> list[ModelInfo]:
    models: list[ModelInfo] = []
    token: str | None = None
    for _ in range(MAX_MODEL_PAGES):
        query = f"v1/models?endpoint=chat&page_size={PAGE_SIZE}" + (f"&page_token={quote(token)}" if token else "")
        body = await transport.request_json("GET", query)
        models += [ModelInfo(str(m["name"])) for m in _items(transport, body, "models") if m.get("name")]
        token = body.get("next_page_token") or None
        if not token:
            break
    return models


