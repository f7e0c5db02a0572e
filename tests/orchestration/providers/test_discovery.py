"""discover_local_servers against loopback servers on ephemeral ports standing in for the usual ones."""

from __future__ import annotations

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
