"""``parley keys`` as real processes: a machine without a keyring gets a clear refusal and no plaintext file;
with a real Secret Service, a stored key is what `parley chat --provider` sends."""

from __future__ import annotations

import os

import pytest

from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

KEY = "test-key-not-real-e2e-keys-0099"


def test_no_keyring_refuses_with_a_clear_message_and_writes_no_file(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "run").mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBUS_") and k != "PYTHON_KEYRING_BACKEND"}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_RUNTIME_DIR=str(home / "run"))  # no session bus to be found anywhere
    result = run_parley("keys", "set", "openai", stdin=KEY, env=env, inherit_env=False)
    assert result.returncode == 1
    assert "No OS keyring is available" in result.stderr and "--api-key-env" in result.stderr
    status = run_parley("keys", "status", env=env, inherit_env=False)
    assert status.returncode == 1 and "cannot store keys" in status.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in files if KEY.encode() in p.read_bytes()]


@pytest.mark.secret_service
@pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)")
def test_stored_key_is_used_by_chat_provider():
    def model(request: Request) -> Response | None:
        return stream_response(f"auth={request.header('authorization') == f'Bearer {KEY}'}")

    with LoopbackServer(handler=model) as server:
        assert run_parley("providers", "add", "hosted", "--preset", "openai", "--base-url", server.url + "/v1",
                          "--model", "m").returncode == 0
        assert run_parley("keys", "status").returncode == 0
        stored = run_parley("keys", "set", "hosted", stdin=KEY)
        assert stored.returncode == 0 and KEY not in stored.stdout + stored.stderr
        listing = run_parley("keys", "list")
        assert "provider:hosted  keyring" in listing.stdout and KEY not in listing.stdout
        chat = run_parley("chat", "--provider", "hosted", "--no-save", "hi")
        assert chat.returncode == 0 and chat.stdout == "auth=True\n"
        assert run_parley("keys", "delete", "hosted").returncode == 0
        missing = run_parley("chat", "--provider", "hosted", "--no-save", "hi")
        assert missing.returncode == 2 and "parley keys set hosted" in missing.stderr
        assert server.count == 1


@pytest.mark.parametrize("backend", ["nope.Backend", "Backend", "json.JSONDecoder", "keyring.backends.nope.Keyring"])
def test_a_keyring_backend_that_cannot_be_loaded_is_explained_not_a_traceback(backend):
    env = {"PYTHON_KEYRING_BACKEND": backend}
    assert run_parley("providers", "add", "hosted", "--preset", "openai", "--model", "m").returncode == 0
    for command, code in ((["keys", "status"], 1), (["keys", "set", "hosted"], 1), (["keys", "list"], 0),
                          (["chat", "--provider", "hosted", "--no-save", "hi"], 1)):
        result = run_parley(*command, stdin=KEY, env=env)
        assert result.returncode == code, (command, result.stderr)
        assert "Traceback" not in result.stderr
        assert f"PYTHON_KEYRING_BACKEND={backend}" in result.stderr, (command, result.stderr)
        assert "cannot be loaded" in result.stderr
    with LoopbackServer(handler=lambda request: stream_response("fine")) as server:  # no keyring needed: fine
        one_off = run_parley("chat", "--base-url", server.url + "/v1", "--model", "m", "--api-key-env", "E2E_KEY",
                             "--no-save", "hi", env={**env, "E2E_KEY": KEY})
    assert (one_off.returncode, one_off.stdout) == (0, "fine\n"), one_off.stderr
