"""Providers (where requests go, with what credentials) and wire-format adapters (what is sent).

``adapter_for`` picks the adapter for a provider's kind from its registration (wire_formats.py); several
providers share one adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestration.providers.wire_formats import WIRE_KINDS, UnsupportedKindError, wire_format

if TYPE_CHECKING:  # the adapters (and httpx) load when one is asked for, not when the kinds are listed
    import httpx

    from orchestration.engine import ChatAdapter
    from orchestration.providers.config import ProviderConfig

ADAPTER_KINDS = WIRE_KINDS
__all__ = ["ADAPTER_KINDS", "UnsupportedKindError", "adapter_for"]


def adapter_for(config: ProviderConfig, client: httpx.AsyncClient | None = None) -> ChatAdapter:
    """The adapter for ``config``'s kind; UnsupportedKindError for a kind that is not registered."""
    return wire_format(config.kind).adapter_class()(config, client)
