"""A stream that fails on a bad frame closes its body reader in the same task (found in the user pass).

The window's run printed "async generator ignored GeneratorExit" and an anyio "cancel scope in a different
task" traceback on stderr after an OpenAI-compatible server sent a frame that is not JSON: the body reader was
left suspended and closed later by the garbage collector, outside the task that opened the connection.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from orchestration.errors import MalformedResponseError
from orchestration.providers.transport import Transport
from tests.orchestration.providers.test_openai_chat_adapter import PATH, adapter_for, chunk, failure
from tests.support.loopback import LoopbackServer, Response


async def test_the_body_reader_is_closed_when_a_frame_is_not_json(loopback: LoopbackServer,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    readers: list[Any] = []
    original = Transport.iter_bytes

    def spied(self: Transport, response: Any) -> AsyncIterator[bytes]:
        reader = original(self, response)
        readers.append(reader)
        return reader

    monkeypatch.setattr(Transport, "iter_bytes", spied)
    loopback.add("POST", PATH, Response.sse([chunk({"content": "so far"}), "{not json", chunk({"content": "x"})],
                                            hang=True))
    error, _ = await failure(adapter_for(loopback))
    assert isinstance(error, MalformedResponseError)
    assert len(readers) == 1
    assert readers[0].ag_frame is None  # finished or closed, not left suspended for the garbage collector
