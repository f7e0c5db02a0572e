"""The real window (no local-server discovery) with a provider on loopback whose answer streams two pieces and
then stalls: for tests of what Stop, quitting and the checkpoint timer do mid-answer."""

from __future__ import annotations

from typing import Any

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks

STALLED_ANSWER = "Otters use stones to crack shells"
STREAMED_BEFORE_STALL = "Otters use stone"  # the two 8-character pieces sent before the stream stalls


def open_window_on_a_stalled_stream(qasync_loop: Any, loopback: LoopbackServer) -> tuple[Any, Any]:
    """``(window, session)``, built on the running qasync loop, configured for ``loopback``."""
    first_pieces = stream_chunks(STALLED_ANSWER, piece=8)[:3]  # the role, then two pieces
    loopback.always("POST", "/v1/chat/completions", Response.sse(first_pieces, hang=True))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)

    async def open_on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    return qasync_loop.run_until_complete(open_on_the_loop())
