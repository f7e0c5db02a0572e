"""Which certificate store a provider's HTTP client starts with.

httpx builds its TLS context when the client is made, loading certifi's bundle of about 150 certificates
(30 to 100 ms of a ``parley chat`` start). A provider reached over plain ``http://`` (Ollama, LM Studio,
llama.cpp or vLLM on this machine, a server on the LAN) never uses TLS: the transport follows no redirects,
so every request goes to that ``http://`` address. Only when a proxy is configured in the environment could
TLS still be spoken (to an ``https://`` proxy), so then the usual store is kept.

For such a provider the client gets a context with no certificates loaded that still requires them and checks
host names: if TLS were ever attempted with it, the handshake fails ("certificate verify failed"), it is never
accepted unverified.
"""

from __future__ import annotations

import ssl
import urllib.request
from urllib.parse import urlsplit


def needs_certificates(base_url: str) -> bool:
    """Whether a client for ``base_url`` may speak TLS: an ``https`` URL (or one without a usable scheme, which
    the transport reports itself), or any proxy set in the environment."""
    try:
        scheme = urlsplit(base_url.strip()).scheme.lower()
    except ValueError:  # not a URL (an unclosed IPv6 bracket): the transport says so at the first request
        return True
    if scheme != "http":
        return True
    return bool(urllib.request.getproxies())


def tls_verify(base_url: str) -> ssl.SSLContext | bool:
    """What to pass as httpx's ``verify``: True (its certifi store) when TLS may be used, else a context that
    holds no certificate and so refuses every TLS peer."""
    if needs_certificates(base_url):
        return True
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname are its defaults
