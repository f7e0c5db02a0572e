"""Trying a provider before it is saved: list its models, or send it one tiny request.

The Add-a-provider dialog offers "List models" and "Test" for what the user has typed so far. Both run on the
asyncio loop (qasync in the window) and raise the provider's typed errors, whose messages the dialog shows.
"""

from __future__ import annotations

import re

from app.runs.provider_setup import provider_config
from app.settings import ProviderSettings
from app.settings.model import PROVIDER_ID_PATTERN
from orchestration.engine import ModelRequest, TextChunk
from orchestration.messages import UserMessage
from orchestration.providers import adapter_for
from orchestration.providers.config import ProviderConfig
from orchestration.providers.models import list_models

TEST_PROMPT = "Reply with the single word: ok"
TEST_MAX_OUTPUT_TOKENS = 16
"""The test request asks for at most this many tokens, so it costs next to nothing."""
TEST_REPLY_CHARS = 60
"""Characters of the model's reply quoted back in the test result."""
DRAFT_ID = "new-provider"
"""The id used for a provider whose name is not valid yet (only the request's logging sees it)."""


def draft_config(kind: str, preset: str, base_url: str, api_key: str, name: str = "") -> ProviderConfig:
    """The request settings of a provider as typed in the dialog (not saved anywhere)."""
    provider_id = name if re.match(PROVIDER_ID_PATTERN, name) else DRAFT_ID
    entry = ProviderSettings(id=provider_id, kind=kind, preset=preset, base_url=base_url.rstrip("/"))
    return provider_config(entry, api_key or None)


async def model_names(config: ProviderConfig) -> list[str]:
    """The ids of the models the server lists, in its order."""
    return [model.id for model in await list_models(config)]


async def trial_reply(config: ProviderConfig, model: str) -> str:
    """Send one tiny request to ``model`` and return the start of its reply ("" when it answered with no text)."""
    adapter = adapter_for(config)
    request = ModelRequest(model=model, messages=[UserMessage(content=TEST_PROMPT)],
                           max_output_tokens=TEST_MAX_OUTPUT_TOKENS)
    pieces: list[str] = []
    try:
        async for event in adapter.stream(request):
            if isinstance(event, TextChunk):
                pieces.append(event.text)
    finally:
        await adapter.aclose()
    reply = " ".join("".join(pieces).split())
    return reply if len(reply) <= TEST_REPLY_CHARS else reply[: TEST_REPLY_CHARS - 1] + "…"
