"""Which addresses ``web_fetch`` may connect to: public ones only, unless the user allowed local addresses.

A model may be asked by a web page (or by anyone who can put text in front of it) to fetch
``http://169.254.169.254/`` or ``http://192.168.1.1/admin``; the answer would read the user's own network on
their behalf. So before every connection, the first and each redirect's, the host is resolved and *every*
address it resolves to is checked:

* never allowed: unspecified (``0.0.0.0``, ``::``), multicast, reserved and documentation ranges, broadcast, and
  cloud metadata endpoints (``169.254.169.254``, ``fd00:ec2::254``, ``100.100.100.200``);
* allowed only with ``allow_local_addresses``: loopback, private (RFC 1918, IPv6 unique-local), link-local,
  and shared carrier-grade NAT space;
* always allowed: public addresses and the ranges in ``allowed_networks`` (for one trusted intranet host).

IPv6 addresses that embed an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4
``2002::/16``) are judged by the IPv4 address inside.

DNS rebinding: a name can resolve to a public address when checked and a private one when connected. The guard
returns the address it checked and the fetcher connects to that address (the URL's host is replaced by it,
while the ``Host`` header and the TLS server name stay the original name), so no second lookup happens.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]

METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254",
                                                                 "100.100.100.200"))
SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT, RFC 6598
NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
                                                          "fc00::/7", "fec0::/10"))
LOCAL_KINDS = frozenset({"loopback", "private", "link-local", "shared (carrier-grade NAT)"})


class AddressRefused(Exception):
    """The URL's host is not an address ``web_fetch`` may connect to; the message says which and why."""


class ResolutionFailed(Exception):
    """The host name could not be resolved."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from the operating system's resolver, in its order of preference."""
    import asyncio  # loaded with the run's event loop, not when the tools are built or listed

    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


def embedded_ipv4(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), else the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in NAT64_PREFIX:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def address_kind(address: IPAddress) -> str | None:
    """What kind of non-public address this is ("loopback", "private", ...), or None for a public one."""
    if address in METADATA_ADDRESSES:
        return "cloud metadata"
    inner = embedded_ipv4(address)
    if inner is not address:
        return address_kind(inner)
    if address.is_unspecified or (isinstance(address, ipaddress.IPv4Address) and address.packed[0] == 0):
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address in SHARED_ADDRESS_SPACE:
        return "shared (carrier-grade NAT)"
    if any(address in network for network in PRIVATE_NETWORKS):
        return "private"
    if not address.is_global or address.is_reserved:
        return "reserved"
    return None


def parse_networks(ranges: Iterable[str]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in ranges)


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


@dataclass
class AddressGuard:
    """Resolves a host and returns the one address to connect to, or refuses with a reason."""

    allow_local: bool = False
    allowed_networks: tuple[IPNetwork, ...] = ()
    resolver: Resolver = field(default=system_resolver)

    def problem(self, address: IPAddress) -> str | None:
        """Why ``address`` must not be fetched, or None when it may."""
        if any(address in network for network in self.allowed_networks):
            return None
        kind = address_kind(address)
        if kind is None or (self.allow_local and kind in LOCAL_KINDS):
            return None
        return kind

    def _refusal(self, host: str, address: IPAddress, kind: str, literal: bool) -> AddressRefused:
        where = host if literal else f"{host} resolves to {address}, which"
        if kind in LOCAL_KINDS:
            why = ("web_fetch reads only public addresses unless local addresses are allowed in "
                   "Preferences > Web")
        else:
            why = "web_fetch never connects to those"
        article = "an" if kind[0] in "aeiou" else "a"
        return AddressRefused(f"{where} is {article} {kind} address; {why}.")

    async def check(self, host: str, port: int) -> str:
        """The address to connect to for ``host``; ``AddressRefused`` or ``ResolutionFailed`` otherwise."""
        literal = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        is_literal = _is_address(literal)
        if is_literal:
            addresses = [ipaddress.ip_address(literal)]
        else:
            try:
                found = await self.resolver(literal, port)
            except (OSError, UnicodeError) as exc:
                raise ResolutionFailed(f"could not find the server {literal} ({exc})") from None
            addresses = [ipaddress.ip_address(text) for text in found if _is_address(text)]
        if not addresses:
            raise ResolutionFailed(f"could not find the server {literal} (no addresses)")
        for address in addresses:
            kind = self.problem(address)
            if kind is not None:
                raise self._refusal(literal, address, kind, is_literal)
        return str(addresses[0])
