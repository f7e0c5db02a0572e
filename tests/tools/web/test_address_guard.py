"""The address guard: which hosts ``web_fetch`` may connect to, checked before any connection is made.

Refused addresses are never connected to: every refusal here happens before a socket is opened, so the private
and metadata addresses below are only ever parsed, not contacted.
"""

from __future__ import annotations

import ipaddress

import pytest

from tests.support.loopback import LoopbackServer, Response
from tools.web.address_guard import AddressGuard, AddressRefused, ResolutionFailed, address_kind, parse_networks
from tools.web.fetch import FetchFailed, WebFetch
from tools.web.settings import FetchSettings


class FakeResolver:
    """Answers from a table, the way a DNS server under someone else's control might."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append((host, port))
        if host not in self.table:
            raise OSError(-2, "Name or service not known")
        return self.table[host]


REFUSED_URLS = [
    ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://localhost:8080/admin", "localhost resolves to"),
    ("http://[::1]/", "::1 is a loopback address"),
    ("http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("http://172.16.0.1/", "172.16.0.1 is a private address"),
    ("http://192.168.1.1/router", "192.168.1.1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("http://0.0.0.0:8000/", "0.0.0.0 is an unspecified address"),
    ("http://[::ffff:10.0.0.1]/", "::ffff:10.0.0.1 is a private address"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://[fd00::1]/", "fd00::1 is a private address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://intranet.example/", "intranet.example resolves to 192.168.7.7, which is a private address"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED_URLS, ids=[u for u, _ in REFUSED_URLS])
async def test_local_and_special_addresses_are_refused(url: str, reason: str) -> None:
    resolver = FakeResolver({"intranet.example": ["192.168.7.7"], "localhost": ["127.0.0.1", "::1"]})
    fetcher = WebFetch(FetchSettings(), resolver=resolver)
    with pytest.raises(FetchFailed) as caught:
        await fetcher.fetch(url)
    message = str(caught.value)
    assert message.startswith("Refused ") and reason in message
    assert "web_fetch" in message  # says who refused and what would allow it


async def test_refusal_says_how_local_addresses_are_allowed() -> None:
    with pytest.raises(FetchFailed) as caught:
        await WebFetch(FetchSettings()).fetch("http://192.168.1.1/")
    assert "unless local addresses are allowed in Preferences > Web" in str(caught.value)
    with pytest.raises(FetchFailed) as caught:
        await WebFetch(FetchSettings()).fetch("http://0.0.0.0/")
    assert "web_fetch never connects to those" in str(caught.value)


async def test_real_loopback_server_is_not_contacted(loopback: LoopbackServer) -> None:
    loopback.always("GET", "/", Response.text("secret"))
    with pytest.raises(FetchFailed, match="loopback address"):
        await WebFetch(FetchSettings()).fetch(loopback.url + "/")
    assert loopback.count == 0


async def test_name_with_one_private_address_among_public_ones_is_refused() -> None:
    guard = AddressGuard(resolver=FakeResolver({"mixed.example": ["93.184.216.34", "10.0.0.8"]}))
    with pytest.raises(AddressRefused, match=r"10\.0\.0\.8, which is a private address"):
        await guard.check("mixed.example", 443)


async def test_public_name_returns_the_checked_address() -> None:
    resolver = FakeResolver({"example.org": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]})
    guard = AddressGuard(resolver=resolver)
    assert await guard.check("example.org", 443) == "93.184.216.34"
    assert resolver.asked == [("example.org", 443)]


async def test_unknown_name_is_a_resolution_failure() -> None:
    with pytest.raises(ResolutionFailed, match=r"could not find the server nowhere\.example"):
        await AddressGuard(resolver=FakeResolver({})).check("nowhere.example", 80)


async def test_allow_local_opens_local_but_not_special_addresses() -> None:
    guard = AddressGuard(allow_local=True)
    for host in ("127.0.0.1", "10.0.0.1", "::1", "fe80::1", "100.64.0.1"):
        assert await guard.check(host, 80) == host
    for host, kind in (("0.0.0.0", "unspecified"), ("169.254.169.254", "cloud metadata"),
                       ("224.0.0.1", "multicast"), ("240.0.0.1", "reserved")):
        with pytest.raises(AddressRefused, match=f"is an? {kind} address; web_fetch never connects"):
            await guard.check(host, 80)


async def test_allowed_networks_open_one_range_only() -> None:
    guard = AddressGuard(allowed_networks=parse_networks(["192.168.1.10/32"]))
    assert await guard.check("192.168.1.10", 80) == "192.168.1.10"
    with pytest.raises(AddressRefused):
        await guard.check("192.168.1.11", 80)


@pytest.mark.parametrize(("address", "kind"), [
    ("8.8.8.8", None),
    ("2606:4700:4700::1111", None),
    ("127.255.0.1", "loopback"),
    ("0.1.2.3", "unspecified"),
    ("::", "unspecified"),
    ("169.254.10.10", "link-local"),
    ("fd00:ec2::254", "cloud metadata"),
    ("100.100.100.200", "cloud metadata"),
    ("ff02::1", "multicast"),
    ("255.255.255.255", "reserved"),
    ("192.0.2.5", "reserved"),
    ("2001:db8::1", "reserved"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:8.8.8.8", None),
    ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
    ("2002:c0a8:101::1", "private"),  # 6to4 of 192.168.1.1
    ("fec0::1", "private"),
])
def test_address_kinds(address: str, kind: str | None) -> None:
    assert address_kind(ipaddress.ip_address(address)) == kind


async def test_https_request_is_pinned_to_the_checked_address_with_the_name_for_tls() -> None:
    """How the pinned connection is built, seen at the transport boundary (no TLS server runs in the tests):
    the URL carries the checked address, while Host and the TLS server name (httpcore's ``sni_hostname``
    extension, also used for certificate verification) carry the name."""
    import httpx

    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"Content-Type": "text/plain"}, stream=httpx.ByteStream(b"pinned"))

    resolver = FakeResolver({"otters.example": ["93.184.216.34"]})
    fetcher = WebFetch(FetchSettings(), resolver=resolver, transport=httpx.MockTransport(answer))
    page, _ = await fetcher.fetch("https://otters.example/page?q=1")
    assert page.text == "pinned" and page.url == "https://otters.example/page?q=1"
    (request,) = seen
    assert (request.url.host, request.url.scheme, request.url.raw_path) == ("93.184.216.34", "https", b"/page?q=1")
    assert request.headers["host"] == "otters.example"
    assert request.extensions["sni_hostname"] == "otters.example"
