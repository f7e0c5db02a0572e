"""``parley chat`` with a key put into the real Secret Service by another tool (``secret-tool store``, else the
keyring library) after Parley noted "no key" for that provider: the run looks in the keyring once before refusing,
sends the key, and the note says "stored" from then on. Before, the note's "no key" refused every later chat with
"needs an API key" until the key was stored through Parley (app/secrets/key_index.py)."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from app.paths import resolve_paths
from app.secrets.key_index import KEY_INDEX_NAME
from tests.support.cli_process import run_parley
from tests.support.keyring_elsewhere import remove, store_elsewhere
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

pytestmark = [
    pytest.mark.secret_service,
    pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)"),
]


def test_a_key_added_with_another_tool_after_the_note_said_none_is_sent(parley_home):
    provider = f"hosted{uuid.uuid4().hex[:6]}"
    entry = f"provider:{provider}"
    key = f"test-key-not-real-{uuid.uuid4().hex}"

    def model(request: Request) -> Response | None:
        if request.header("authorization") != f"Bearer {key}":
            return Response.json({"error": {"message": "missing or wrong key"}}, status=401)
        return stream_response("answered with the key")

    note = resolve_paths().config_dir / KEY_INDEX_NAME
    with LoopbackServer(handler=model) as server:
        assert run_parley("providers", "add", provider, "--preset", "openai", "--base-url", server.url + "/v1",
                          "--model", "m").returncode == 0
        try:
            missing = run_parley("chat", "--provider", provider, "--no-save", "hi")
            assert missing.returncode == 2 and f"parley keys set {provider}" in missing.stderr
            assert json.loads(note.read_text())["entries"][entry] is False
            store_elsewhere(entry, key)
            chat = run_parley("chat", "--provider", provider, "--no-save", "hi")
            assert (chat.returncode, chat.stdout) == (0, "answered with the key\n"), chat.stderr
            assert json.loads(note.read_text())["entries"][entry] is True
            assert server.count == 1  # the refused chat sent nothing
        finally:
            remove(entry)
