"""Settings for ``web_search`` and ``web_fetch``: which backend, where it lives, and every limit, with defaults.

The app's settings embed these models (Preferences > Search and > Web); tests build them directly to point the
tools at loopback servers. Keys are not settings: they live in the keyring under ``search:<backend id>``.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SearchBackendId = Literal["duckduckgo", "tavily", "brave", "exa", "searxng"]
SafeSearch = Literal["off", "moderate", "strict"]

MAX_RESULT_COUNT = 20  # the most any supported backend returns in one request (Brave and Tavily cap at 20)
DEFAULT_RESULT_COUNT = 5
DEFAULT_SEARCH_TIMEOUT = 15.0  # seconds for one search request, connecting included

DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024  # 2 MiB on the wire
DEFAULT_MAX_DECOMPRESSED_BYTES = 10 * 1024 * 1024  # 10 MiB after gzip/deflate decoding
DEFAULT_FETCH_TIMEOUT = 20.0  # seconds for the whole fetch, redirects included
DEFAULT_MAX_REDIRECTS = 5
DEFAULT_CACHE_TTL = 600.0  # 10 minutes
DEFAULT_CACHE_ENTRIES = 64
DEFAULT_FETCH_OUTPUT_CHARS = 20_000  # the page text the model gets; the rest is cut with a visible note


class SearchSettings(BaseModel):
    """Which search backend ``web_search`` uses and how."""

    model_config = ConfigDict(extra="forbid")

    backend: SearchBackendId = Field("duckduckgo", description="the search service; DuckDuckGo needs no key")
    result_count: int = Field(DEFAULT_RESULT_COUNT, ge=1, le=MAX_RESULT_COUNT,
                              description="results per search when the model does not ask for a number")
    safe_search: SafeSearch = "moderate"
    timeout: float = Field(DEFAULT_SEARCH_TIMEOUT, gt=0, le=120, description="seconds per search request")
    tavily_base_url: str = "https://api.tavily.com"
    brave_base_url: str = "https://api.search.brave.com"
    exa_base_url: str = "https://api.exa.ai"
    searxng_base_url: str | None = Field(None, description="your SearXNG instance, e.g. http://localhost:8888; "
                                         "required for the searxng backend")
    duckduckgo_region: str = Field("wt-wt", description="ddgs region code; wt-wt is no region")
    duckduckgo_engines: str = Field("duckduckgo", description="ddgs backends to query: 'duckduckgo', a "
                                    "comma-separated list, or 'auto'")

    @field_validator("tavily_base_url", "brave_base_url", "exa_base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        return _http_url(value)

    @field_validator("searxng_base_url")
    @classmethod
    def _optional_base_url(cls, value: str | None) -> str | None:
        return _http_url(value) if value is not None and value.strip() else None


def _http_url(value: str) -> str:
    value = value.strip().rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"{value!r} must start with http:// or https://")
    return value


class FetchSettings(BaseModel):
    """Limits and address policy of ``web_fetch``."""

    model_config = ConfigDict(extra="forbid")

    max_bytes: int = Field(DEFAULT_MAX_DOWNLOAD_BYTES, ge=1024, description="bytes downloaded per page")
    max_decompressed_bytes: int = Field(DEFAULT_MAX_DECOMPRESSED_BYTES, ge=1024,
                                        description="bytes after decompression per page")
    timeout: float = Field(DEFAULT_FETCH_TIMEOUT, gt=0, le=300, description="seconds for the whole fetch")
    max_redirects: int = Field(DEFAULT_MAX_REDIRECTS, ge=0, le=20)
    allow_local_addresses: bool = Field(False, description="allow loopback, private and link-local addresses")
    allowed_networks: list[str] = Field(default_factory=list, description="CIDR ranges always allowed, e.g. "
                                        "an intranet server's 192.168.1.10/32")
    cache_ttl: float = Field(DEFAULT_CACHE_TTL, ge=0, description="seconds a fetched page is reused; 0 turns "
                             "the cache off")
    cache_entries: int = Field(DEFAULT_CACHE_ENTRIES, ge=1)
    max_output_chars: int = Field(DEFAULT_FETCH_OUTPUT_CHARS, ge=500, description="page text given to the model")
    user_agent: str = "Mozilla/5.0 (compatible; Parley/0.1; web_fetch)"

    @field_validator("allowed_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for item in value:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(f"{item!r} is not an address range such as 192.168.1.10/32") from None
        return value
