"""Building an adapter's provider config and request payload in its unit tests.

Each adapter's tests want the same helpers: ``HI``, the one-message conversation; a config from the format's
preset with a test key; and ``payload(cfg=None, **request)``, the body ``build_payload`` makes for a
``ModelRequest`` with a default model and ``HI`` (for another config when given). ``payload_maker`` builds the
last from the format's ``build_payload``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orchestration.engine import ModelRequest
from orchestration.messages import UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.presets import provider_from_preset

HI = [UserMessage(content="hi")]
TEST_KEY = "test-key-not-real"


def preset_config(preset: str, base_url: str, *, api_key: str | None = TEST_KEY) -> ProviderConfig:
    return provider_from_preset(preset, base_url=base_url, api_key=api_key)


def payload_maker(build_payload: Callable[[ModelRequest, ProviderConfig], dict[str, Any]],
                  config: Callable[[], ProviderConfig], model: str) -> Callable[..., dict[str, Any]]:
    """``payload(cfg=None, **request)``: the body for a request of ``model`` saying "hi", unless the fields say
    otherwise, for ``cfg`` (default: ``config()``)."""

    def payload(cfg: ProviderConfig | None = None, **request: Any) -> dict[str, Any]:
        request.setdefault("model", model)
        request.setdefault("messages", HI)
        return build_payload(ModelRequest(**request), cfg or config())

    return payload
