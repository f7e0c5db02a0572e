"""``parley models`` asks the provider the user set up, as ``parley chat`` does: the default provider with no
flags, a configured one by ``--provider NAME``. Before, both went to OpenAI's public API (or were refused as
an unknown preset). Real processes, a loopback server."""

from __future__ import annotations

from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Response

MODELS = Response.json({"object": "list", "data": [{"id": "alpha-7b", "object": "model"},
                                                   {"id": "beta-13b", "object": "model"}]})


def add_provider(name: str, server: LoopbackServer, *extra: str) -> None:
    added = run_parley("providers", "add", name, "--base-url", server.url + "/v1", "--model", "alpha-7b", *extra)
    assert added.returncode == 0, added.stderr


def test_models_with_no_flags_lists_the_default_provider():
    with LoopbackServer() as server:
        server.always("GET", "/v1/models", MODELS)
        add_provider("mine", server)
        listed = run_parley("models")
        assert server.count == 1
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["alpha-7b", "beta-13b"]


def test_models_provider_names_a_configured_provider():
    with LoopbackServer() as first, LoopbackServer() as second:
        first.always("GET", "/v1/models", Response.json({"data": [{"id": "first-only"}]}))
        second.always("GET", "/v1/models", MODELS)
        add_provider("first", first)
        add_provider("second", second, "--header", "X-Team: blue")
        listed = run_parley("models", "--provider", "second", "--json")
        assert first.count == 0
        assert second.requests[0].headers.get("x-team") == "blue"
    assert listed.returncode == 0, listed.stderr
    assert '"beta-13b"' in listed.stdout


def test_models_unknown_provider_names_the_configured_ones():
    with LoopbackServer() as server:
        add_provider("mine", server)
        listed = run_parley("models", "--provider", "nope")
    assert listed.returncode == 2
    assert "there is no provider 'nope'; configured: mine" in listed.stderr
    assert "--preset NAME" in listed.stderr


def test_models_with_nothing_set_up_says_what_it_can_list():
    listed = run_parley("models")
    assert listed.returncode == 2, listed.stderr
    assert "no provider is set up" in listed.stderr and "parley models --local" in listed.stderr
    assert "Could not reach" not in listed.stderr
