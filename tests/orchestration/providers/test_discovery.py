"""discover_local_servers against loopback servers on ephemeral ports standing in for the usual ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from orchestration.providers import discovery
from orchestration.providers.discovery import LOCAL_PORTS, LocalServer, discover_local_servers
from tests.support.loopback import LoopbackServer, Response


def closed_port() -> int:
    with LoopbackServer() as server:
        return server.port


async def test_finds_the_servers_that_answer_and_skips_the_rest() -> None:
    async with LoopbackServer() as ollama, LoopbackServer() as lmstudio, LoopbackServer() as imposter, \
            LoopbackServer() as silent:
        ollama.always("GET", "/api/tags", Response.json({"models": [{"name": "qwen3:8b"}, {"name": "gemma3"}]}))
        lmstudio.always("GET", "/v1/models", Response.json({"data": [{"id": "qwen2.5-7b-instruct"}]}))
        imposter.always("GET", "/v1/models", Response.text("<html>a web app</html>"))
        silent.always("GET", "/v1/models", Response(hang_before_headers=True))
        ports = {"ollama-native": ollama.port, "lmstudio": lmstudio.port, "llamacpp": imposter.port,
                 "vllm": silent.port}
        found = await discover_local_servers(ports, probe_seconds=0.3)
        assert found == [
            LocalServer("ollama-native", "Ollama (native /api/chat)", f"http://127.0.0.1:{ollama.port}",
                         ["qwen3:8b", "gemma3"]),
            LocalServer("lmstudio", "LM Studio", f"http://127.0.0.1:{lmstudio.port}/v1", ["qwen2.5-7b-instruct"]),
        ]
        assert imposter.wait_for_requests(1) and silent.wait_for_requests(1)  # every port was probed


async def test_nothing_running() -> None:
    assert await discover_local_servers({"vllm": closed_port(), "llamacpp": closed_port()},
                                        probe_seconds=0.3) == []


def test_the_usual_ports() -> None:
    assert LOCAL_PORTS == {"ollama-native": 11434, "lmstudio": 1234, "llamacpp": 8080, "vllm": 8000}


async def test_a_listing_by_content_length_in_pieces_or_chunked_is_read_whole() -> None:
    listing = {"data": [{"id": f"model-{i}"} for i in range(300)]}  # several reads' worth
    async with LoopbackServer() as by_length, LoopbackServer() as chunked:
        by_length.always("GET", "/v1/models", Response.json(listing, chunked=False, chunk_size=1000,
                                                            chunk_delay=0.01))
        chunked.always("GET", "/v1/models", Response.json(listing, chunk_size=700))
        found = await discover_local_servers({"lmstudio": by_length.port, "vllm": chunked.port})
    assert [len(server.models) for server in found] == [300, 300]
    assert found[0].models[-1] == "model-299"


async def test_a_listing_past_the_limit_or_cut_short_does_not_count(monkeypatch) -> None:
    monkeypatch.setattr(discovery, "MAX_LISTING_BYTES", 1000)
    big = {"data": [{"id": f"model-{i}"} for i in range(100)]}
    async with LoopbackServer() as chunked, LoopbackServer() as by_length, LoopbackServer() as cut:
        chunked.always("GET", "/v1/models", Response.json(big, chunk_size=300))
        by_length.always("GET", "/v1/models", Response.json(big, chunked=False))
        cut.always("GET", "/v1/models", Response.json({"data": []}, chunked=False, close_abruptly=True,
                                                      headers={"Content-Length": "500"}))
        ports = {"lmstudio": chunked.port, "vllm": by_length.port, "llamacpp": cut.port}
        assert await discover_local_servers(ports, probe_seconds=1.0) == []


def test_blocking_discovery_probes_at_once_within_its_deadline() -> None:
    """The window's form (no event loop): every port at once against one deadline, so a server probed after two
    hanging ones is still found."""
    with LoopbackServer() as lmstudio, LoopbackServer() as silent, LoopbackServer() as silent_too:
        lmstudio.always("GET", "/v1/models", Response.json({"data": [{"id": "m"}]}))
        silent.always("GET", "/v1/models", Response(hang_before_headers=True))
        silent_too.always("GET", "/api/tags", Response(hang_before_headers=True))
        ports = {"ollama-native": silent_too.port, "vllm": silent.port, "lmstudio": lmstudio.port}
        found = discovery.find_local_servers(ports, probe_seconds=0.5)
    assert [server.preset for server in found] == ["lmstudio"]


def test_discovery_needs_no_http_client_library_or_asyncio(tmp_path) -> None:
    """Issue 17: a window with no provider runs discovery at start; it must not load httpx (and its SSL set-up),
    nor asyncio, which imports ssl (about 8 MB together; the window starts its loop when first needed)."""
    code = ("import sys\nfrom orchestration.providers.discovery import find_local_servers\n"
            "find_local_servers({'vllm': int(sys.argv[1])}, probe_seconds=0.3)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpcore', 'anyio', 'certifi',"
            " 'asyncio', 'ssl')))")
    done = subprocess.run([sys.executable, "-c", code, str(closed_port())], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[3], timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
