"""A provider over plain http:// gets a client that never loads the certificate bundle (start-up, issue 17),
still talks to its real loopback server, and refuses TLS instead of accepting it unverified; https:// and
proxied set-ups keep httpx's own store."""

from __future__ import annotations

import ssl

import pytest

from orchestration.providers.config import ProviderConfig
from orchestration.providers.tls import needs_certificates, tls_verify
from orchestration.providers.transport import Transport
from tests.support.loopback import LoopbackServer, Response

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def bundle_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx loads its store (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR) through this one call."""

    def forbidden(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError("a certificate store was loaded for an http:// provider")

    monkeypatch.setattr(ssl, "create_default_context", forbidden)


async def test_an_http_provider_is_reached_without_loading_the_certificate_bundle(
        no_proxies: None, bundle_forbidden: None, loopback: LoopbackServer) -> None:
    loopback.add("POST", "/v1/chat/completions", Response.json({"ok": True}))
    transport = Transport(ProviderConfig(id="local", base_url=loopback.url + "/v1"))
    try:
        async with transport.stream("POST", "chat/completions", {"model": "m"}) as response:
            body = b"".join([chunk async for chunk in transport.iter_bytes(response)])
    finally:
        await transport.aclose()
    assert body == b'{"ok": true}'
    assert loopback.requests[0].json == {"model": "m"}


def test_the_context_for_plain_http_holds_no_certificate_and_still_verifies(no_proxies: None) -> None:
    context = tls_verify("http://127.0.0.1:11434/v1")
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0


@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "HTTPS://example.com", "ftp://host/v1", "host:80",
                                 "http://[::1/v1"])
def test_anything_but_plain_http_keeps_the_usual_store(no_proxies: None, url: str) -> None:
    assert needs_certificates(url)
    assert tls_verify(url) is True


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "https_proxy", "ALL_PROXY"])
def test_a_proxy_in_the_environment_keeps_the_usual_store(no_proxies: None, monkeypatch: pytest.MonkeyPatch,
                                                          variable: str) -> None:
    monkeypatch.setenv(variable, "https://proxy.example:3128")
    assert tls_verify("http://127.0.0.1:11434/v1") is True
