"""One real llama-cpp-python server for the whole session (loading the model once), or a clean skip when
llama-cpp-python is not installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.llama_server import LlamaServer, llama_cpp_missing


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    missing = llama_cpp_missing()
    if missing:
        pytest.skip(missing)
    server = LlamaServer(tmp_path_factory.mktemp("llama") / "server.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()
