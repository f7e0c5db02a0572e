"""Model servers already running on this machine, found without blocking.

A first-time user without keys should see what is there: Ollama (11434), LM Studio (1234), llama.cpp's
server (8080) and vLLM (8000). Each port is probed concurrently on the loopback interface with a short
deadline; a server counts only when it answers its model-list endpoint with the expected JSON, so an
unrelated web app on 8080 is not mistaken for one. Ports are injectable so tests can use ephemeral ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from orchestration.bounded_json import loads_bounded
from orchestration.providers.presets import PRESETS

LOOPBACK_HOST = "127.0.0.1"
PROBE_TIMEOUT = 0.5  # seconds for one probe, connection and answer together
LOCAL_PORTS: dict[str, int] = {"ollama-native": 11434, "lmstudio": 1234, "llamacpp": 8080, "vllm": 8000}
"""Preset name -> the port its server listens on by default."""


@dataclass(frozen=True)
class LocalServer:
    preset: str  # the preset to configure it with
    title: str
    base_url: str
    models: list[str] = field(default_factory=list)


async def discover_local_servers(ports: Mapping[str, int] | None = None, *, host: str = LOOPBACK_HOST,
                                 probe_seconds: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """The servers that answered, in the order of ``ports``; never raises for a server that is absent."""
    ports = LOCAL_PORTS if ports is None else ports
    # Only plain http:// on this machine is probed and redirects are not followed, so no certificate is ever
    # checked: verify=False spares loading the CA bundle into an SSL context (about 4 MB and 100 ms at start).
    async with httpx.AsyncClient(timeout=probe_seconds, follow_redirects=False, trust_env=False,
                                 verify=False) as client:
        found = await asyncio.gather(*(_probe(client, preset, host, port, probe_seconds)
                                       for preset, port in ports.items()))
    return [server for server in found if server is not None]


async def _probe(client: httpx.AsyncClient, preset_name: str, host: str, port: int,
                 probe_seconds: float) -> LocalServer | None:
    preset = PRESETS[preset_name]
    base_url = f"http://{host}:{port}{urlsplit(preset.base_url).path}"
    native = preset.kind == "ollama"
    url = base_url.rstrip("/") + ("/api/tags" if native else "/models")
    try:
        response = await asyncio.wait_for(client.get(url), probe_seconds)
        body = loads_bounded(response.content, what=url) if response.status_code == 200 else None
    except (httpx.HTTPError, TimeoutError, ValueError):
        return None
    items = body.get("models" if native else "data") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return None
    key = "name" if native else "id"
    models = [str(item[key]) for item in items if isinstance(item, dict) and item.get(key)]
    return LocalServer(preset=preset_name, title=preset.title, base_url=base_url, models=models)
