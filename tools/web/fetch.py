"""``web_fetch``: read one web page for the model, safely, and hand the pane a "read" entry.

What it does, in order:

1. The URL must be http or https with a host; anything else is refused by scheme.
2. Before each connection (the first and every redirect, at most ``max_redirects``) the host is resolved and
   checked by ``AddressGuard``; the connection goes to the checked address (see address_guard.py on DNS
   rebinding), with the original name in the ``Host`` header and as the TLS server name. Proxy environment
   variables are ignored, because a proxy would resolve the name itself, after the check.
3. The answer must be HTML, XHTML, plain text, Markdown or JSON; any other type is refused by name.
4. The body is read raw and decoded here (``decode.py``) so both limits hold: ``max_bytes`` on the wire and
   ``max_decompressed_bytes`` after gzip/deflate. A page past either limit is cut there with a note, not refused.
   The whole fetch, redirects included, must finish within ``timeout`` seconds.
5. ``extract.py`` turns the body into Markdown with title and links; the model gets at most
   ``max_output_chars`` of it, with a visible note when cut.

Successful pages are cached for ``cache_ttl`` seconds by URL. Every failure is an error result whose text says
what was refused or what went wrong; ``data`` (``{"kind": "fetch", "url", "title", "truncated"}``) feeds the
search-results pane, which lists fetched pages as "read".
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.registry import Tool
from tools.web.address_guard import (
    AddressGuard,
    AddressRefused,
    ResolutionFailed,
    Resolver,
    parse_networks,
    system_resolver,
)
from tools.web.cache import TTLCache
from tools.web.decode import ACCEPT_ENCODING, BoundedDecoder, CorruptContent, UnsupportedEncoding
from tools.web.extract_types import ContentKind
from tools.web.settings import FetchSettings

if TYPE_CHECKING:  # httpx loads when a page is first fetched, not when the tool list is built
    import httpx

NAME = "web_fetch"
MAX_URL_CHARS = 2048
CONNECT_TIMEOUT = 10.0  # seconds per connection attempt, within the overall FetchSettings.timeout
OUTPUT_OVERHEAD_CHARS = 1_000  # title, URL and notes around the page text
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CONTENT_KINDS: dict[str, ContentKind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "application/json": "json",
    "text/json": "json",
}
ACCEPT = ("text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.8,"
          "*/*;q=0.1")
READABLE_TYPES = "HTML, XHTML, plain text, Markdown and JSON"
SNIFF_BYTES = 512


class FetchFailed(Exception):
    """The page was refused or could not be read; the message is for the model and the user."""


@dataclass(frozen=True)
class FetchedPage:
    requested_url: str
    url: str  # after redirects
    title: str | None
    text: str
    content_type: str
    cut_note: str | None = None  # set when a size limit cut the download


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:.3g} MiB" if count >= 1024 * 1024 else f"{count / 1024:.3g} KiB"


def parse_url(text: str) -> httpx.URL:
    """An http(s) URL without fragment, or FetchFailed saying what is wrong with it."""
    import httpx

    try:
        url = httpx.URL(text.strip())
    except httpx.InvalidURL as exc:
        raise FetchFailed(f"{text!r} is not a valid URL ({exc}).") from None
    if not url.scheme:
        raise FetchFailed(f"{text!r} has no scheme; web_fetch reads http and https URLs such as https://{text}.")
    if url.scheme not in ("http", "https"):
        raise FetchFailed(f"web_fetch reads only http and https URLs, not {url.scheme}: ({text}).")
    if not url.host:
        raise FetchFailed(f"{text!r} has no host name.")
    return url.copy_with(fragment=None)


def content_kind(media_type: str) -> ContentKind | None:
    if media_type in CONTENT_KINDS:
        return CONTENT_KINDS[media_type]
    if media_type.startswith("application/") and media_type.endswith("+json"):
        return "json"
    return None


def sniff_kind(head: bytes) -> ContentKind | None:
    """A guess for a body served without Content-Type: HTML by its opening tag, text when it decodes."""
    start = head[:SNIFF_BYTES].lstrip().lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    if b"\x00" in head[:SNIFF_BYTES]:
        return None
    try:
        head[:SNIFF_BYTES].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < SNIFF_BYTES - 4:  # a character cut at the end of the sample is fine
            return None
    return "text"


def _charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return text_codec(value.strip().strip('"').strip("'"))
    return None


def text_codec(charset: str) -> str | None:
    """Python's name for ``charset`` when it is a text encoding that can decode with replacement; None for an
    unknown name and for codecs that are not text encodings or cannot replace what they cannot read (base64,
    rot13, idna, punycode, undefined, ...)."""
    try:
        name = codecs.lookup(charset).name
        b"a\x80\xff".decode(name, "replace")
    except (LookupError, UnicodeError, ValueError):
        return None
    return name


def _status_problem(url: httpx.URL, status: int, reason: str) -> str:
    reason_text = f" {reason}" if reason else ""
    base = f"{url} answered HTTP {status}{reason_text}"
    if status in (401, 403):
        return f"{base}: the page needs a login or refuses automated readers."
    if status in (404, 410):
        return f"{base}: the page does not exist. Check the URL or search for the page."
    if status == 429:
        return f"{base}: the site is rate limiting. Do not fetch it again now."
    if status >= 500:
        return f"{base}: the site has a server error. Try again later."
    return f"{base}."


class FetchArguments(ToolArguments):
    url: str = Field(max_length=MAX_URL_CHARS, description="The http or https URL of the page to read.")

    @field_validator("url")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise PydanticCustomError("empty_url", "web_fetch needs a URL")
        return value


class WebFetch:
    """The handler behind ``web_fetch``: address guard, limits, extraction and the page cache."""

    def __init__(self, settings: FetchSettings, resolver: Resolver | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.transport = transport  # None: real connections; tests may hand in httpx.MockTransport
        self.guard = AddressGuard(settings.allow_local_addresses, parse_networks(settings.allowed_networks),
                                  resolver or system_resolver)
        self.cache: TTLCache[FetchedPage] = TTLCache(settings.cache_ttl, settings.cache_entries, clock)

    # --- network ------------------------------------------------------------------------------------
    async def _connect(self, client: httpx.AsyncClient, url: httpx.URL, requested: httpx.URL) -> httpx.Response:
        import httpx

        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            address = await self.guard.check(host, port)
        except AddressRefused as exc:
            what = str(url) if url == requested else f"the redirect from {requested} to {url}"
            raise FetchFailed(f"Refused {what}: {exc}") from None
        except ResolutionFailed as exc:
            raise FetchFailed(f"Could not fetch {url}: {exc}.") from None
        headers = {"Host": url.netloc.decode("ascii"), "User-Agent": self.settings.user_agent, "Accept": ACCEPT,
                   "Accept-Encoding": ACCEPT_ENCODING}
        extensions: dict[str, Any] = {}
        if url.scheme == "https" and address != host.strip("[]"):
            extensions["sni_hostname"] = host
        request = client.build_request("GET", url.copy_with(host=address), headers=headers,
                                       extensions=extensions)
        try:
            return await client.send(request, stream=True)
        except httpx.TimeoutException:
            raise FetchFailed(f"{url} did not answer in time.") from None
        except httpx.HTTPError as exc:
            raise FetchFailed(f"Could not connect to {url.host} ({str(exc) or type(exc).__name__}).") from None

    def _redirect_target(self, url: httpx.URL, location: str) -> httpx.URL:
        import httpx

        try:
            target = url.join(location)
        except httpx.InvalidURL:
            raise FetchFailed(f"{url} redirected to an invalid address {location!r}.") from None
        if target.scheme not in ("http", "https"):
            raise FetchFailed(f"{url} redirected to {target}, which is not http or https; web_fetch does not "
                              "follow it.")
        return target.copy_with(fragment=None)

    async def _read(self, response: httpx.Response, url: httpx.URL, requested: httpx.URL) -> FetchedPage:
        import httpx

        settings = self.settings
        if response.status_code >= 300:
            raise FetchFailed(_status_problem(url, response.status_code, response.reason_phrase))
        content_type = response.headers.get("content-type", "")
        media_type = content_type.split(";", 1)[0].strip().lower()
        kind = content_kind(media_type) if media_type else None
        if media_type and kind is None:
            raise FetchFailed(f"{url} is {media_type} content; web_fetch reads only {READABLE_TYPES}.")
        try:
            decoder = BoundedDecoder(response.headers.get("content-encoding"), settings.max_decompressed_bytes)
        except UnsupportedEncoding as exc:
            raise FetchFailed(f"{url} was sent with Content-Encoding {exc}, which web_fetch does not read.") from None
        body = bytearray()
        downloaded = 0
        cut_note = None
        try:
            async for chunk in response.aiter_raw():
                room = settings.max_bytes - downloaded
                downloaded += len(chunk)
                body += decoder.feed(chunk[:room])
                if downloaded > settings.max_bytes:
                    cut_note = (f"only the first {_size(settings.max_bytes)} of the page were downloaded "
                                "(download limit); the rest is missing")
                    break
                if decoder.exceeded:
                    break
            body += decoder.flush()
        except CorruptContent as exc:
            raise FetchFailed(f"{url} sent compressed content that could not be decoded ({exc}).") from None
        except httpx.TimeoutException:
            raise FetchFailed(f"{url} stopped sending the page before it was complete (timed out).") from None
        except httpx.HTTPError as exc:
            raise FetchFailed(f"{url} broke off while sending the page ({str(exc) or type(exc).__name__}).") from None
        if decoder.exceeded:
            cut_note = (f"only the first {_size(settings.max_decompressed_bytes)} of the decompressed page were "
                        "read (decompressed size limit); the rest is missing")
        if kind is None:
            kind = sniff_kind(bytes(body[:SNIFF_BYTES]))
            if kind is None:
                raise FetchFailed(f"{url} has no Content-Type and does not look like text; web_fetch reads only "
                                  f"{READABLE_TYPES}.")
            media_type = "text/html" if kind == "html" else "text/plain"
        import asyncio  # loaded with the run's event loop, not when the tools are built or listed

        from tools.web.extract import extract  # lxml, readability and markdownify load on the first fetch

        page = await asyncio.to_thread(extract, kind, bytes(body), _charset(content_type), str(url))
        return FetchedPage(requested_url=str(requested), url=str(url), title=page.title, text=page.text,
                           content_type=media_type, cut_note=cut_note)

    async def _fetch(self, requested: httpx.URL) -> FetchedPage:
        import httpx

        timeouts = httpx.Timeout(self.settings.timeout, connect=min(self.settings.timeout, CONNECT_TIMEOUT))
        # No keep-alive: each connection is made to one checked address and must not be reused for another name.
        async with httpx.AsyncClient(timeout=timeouts, follow_redirects=False, trust_env=False,
                                     limits=httpx.Limits(max_keepalive_connections=0),
                                     transport=self.transport) as client:
            url = requested
            for redirects in range(self.settings.max_redirects + 1):
                response = await self._connect(client, url, requested)
                try:
                    location = response.headers.get("location")
                    if response.status_code not in REDIRECT_STATUSES or not location:
                        return await self._read(response, url, requested)
                finally:
                    await response.aclose()
                if redirects == self.settings.max_redirects:
                    raise FetchFailed(f"{requested} redirected more than {self.settings.max_redirects} times "
                                      f"(last to {location}); web_fetch stopped following.")
                url = self._redirect_target(url, location)
        raise AssertionError("unreachable: the loop returns or raises")

    async def fetch(self, text: str) -> tuple[FetchedPage, bool]:
        """The page at ``text`` and whether it came from the cache; FetchFailed otherwise."""
        url = parse_url(text)
        key = str(url)
        cached = self.cache.get(key)
        if cached is not None:
            return cached, True
        import asyncio

        try:
            async with asyncio.timeout(self.settings.timeout):
                page = await self._fetch(url)
        except TimeoutError:
            raise FetchFailed(f"{url} did not finish loading within {self.settings.timeout:g} s.") from None
        self.cache.put(key, page)
        return page, False

    # --- the tool -----------------------------------------------------------------------------------
    def render(self, page: FetchedPage) -> ToolOutput:
        limit = self.settings.max_output_chars
        lines = [f"# {page.title}"] if page.title else []
        lines.append(f"URL: {page.url}")
        if page.url != page.requested_url:
            lines.append(f"(redirected from {page.requested_url})")
        if page.cut_note:
            lines.append(f"[note: {page.cut_note}]")
        text = page.text or "(the page has no readable text)"
        truncated = len(text) > limit
        if truncated:
            text = (text[:limit] + f"\n[truncated: showing {limit:,} of {len(page.text):,} characters of the page "
                    "text; the rest was not read]")
        data = {"kind": "fetch", "url": page.url, "title": page.title, "truncated": truncated or bool(page.cut_note),
                "requested_url": page.requested_url, "content_type": page.content_type}
        return ToolOutput(text="\n".join(lines) + "\n\n" + text, data=data)

    async def __call__(self, arguments: FetchArguments, context: ToolContext) -> ToolOutput:
        try:
            page, _ = await self.fetch(arguments.url)
        except FetchFailed as exc:
            message = str(exc)
            return ToolOutput(text=message, is_error=True, data={"kind": "fetch", "url": arguments.url,
                                                                  "title": None, "truncated": False,
                                                                  "error": message})
        return self.render(page)


def web_fetch_tool(settings: FetchSettings, resolver: Resolver | None = None,
                   clock: Callable[[], float] = time.monotonic) -> Tool:
    fetcher = WebFetch(settings, resolver, clock)
    return Tool(
        name=NAME,
        description="Read a web page (http or https) and return its main text as Markdown with its title, final "
        f"URL and links. Long pages are cut at {settings.max_output_chars:,} characters. Reads HTML, plain text, "
        "Markdown and JSON; local and private network addresses are refused.",
        arguments=FetchArguments,
        handler=fetcher.__call__,
        category="search",
        visibility="primary",
        parallel_safe=True,
        needs_approval=False,
        timeout=settings.timeout + 5,
        max_output_chars=settings.max_output_chars + OUTPUT_OVERHEAD_CHARS,
    )
