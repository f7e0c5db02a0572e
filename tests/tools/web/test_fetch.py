"""``web_fetch`` against loopback servers: redirects, limits, content types, extraction, cache, refusals.

The loopback server's address is allowed through ``allowed_networks`` (127.0.0.1/32) the way a user would allow
one intranet host; everything else about the address policy stays at its defaults.
"""

from __future__ import annotations

import gzip
import zlib
from typing import Any

import pytest

from orchestration.tool_api import ToolArgumentsError, ToolContext, ToolOutput
from tests.support.loopback import Chunk, LoopbackServer, Response
from tests.tools.web.test_address_guard import FakeResolver
from tools.web.fetch import FetchFailed, WebFetch, web_fetch_tool
from tools.web.settings import FetchSettings

LOOPBACK_ONLY = ["127.0.0.1/32"]

ARTICLE = """<!doctype html>
<html><head><title>Sea otters | Nature Site</title>
<style>body { color: red }</style><script>var tracking = "pixel";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<main><article>
<h1>Sea otters</h1>
<p>Sea otters use <a href="/tools">stone tools</a> to open shells, a habit that is rare among mammals and that
researchers have studied for decades along the coasts of California and Alaska.</p>
<p>They float on their backs while eating, and groups rest together in rafts. <a href="javascript:alert(1)">A
script link</a> and a picture <img src="/otter.png" alt="an otter"> sit in this paragraph as well.</p>
<h2>Diet</h2>
<p>They eat <em>urchins</em>, crabs and clams, up to a quarter of their body weight every day, and need that much
because they have no blubber and keep warm by burning food.</p>
</article></main>
<footer>Copyright Nature Site <a href="/privacy">Privacy</a></footer>
</body></html>"""


def fetcher(resolver: FakeResolver | None = None, **changes: Any) -> WebFetch:
    settings: dict[str, Any] = {"allowed_networks": LOOPBACK_ONLY}
    settings.update(changes)
    return WebFetch(FetchSettings(**settings), resolver=resolver)


def html(text: str, **options: Any) -> Response:
    return Response.body(text, "text/html; charset=utf-8", **options)


def redirect(location: str, status: int = 302) -> Response:
    return Response(status=status, headers={"Location": location}, chunked=False)


async def read(server_url: str, **changes: Any) -> ToolOutput:
    output = await web_fetch_tool(FetchSettings(allowed_networks=LOOPBACK_ONLY, **changes)).invoke(
        _arguments(server_url), ToolContext(run_id="r", call_id="c"))
    assert isinstance(output, ToolOutput)
    return output


def _arguments(url: str) -> Any:
    return web_fetch_tool(FetchSettings()).validate({"url": url})


# --- extraction ---------------------------------------------------------------------------------------------


async def test_html_page_becomes_markdown_with_title_and_links(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/otters", html(ARTICLE))
    output = await read(loopback.url + "/otters#diet")
    assert not output.is_error
    text = output.text
    assert text.startswith(f"# Sea otters | Nature Site\nURL: {loopback.url}/otters\n\n")
    assert "# Sea otters\n" in text and "## Diet" in text
    assert f"[stone tools]({loopback.url}/tools)" in text
    assert "*urchins*" in text
    for unwanted in ("tracking", "color: red", "About us", "Privacy", "otter.png", "javascript"):
        assert unwanted not in text
    assert output.data == {"kind": "fetch", "url": f"{loopback.url}/otters", "title": "Sea otters | Nature Site",
                           "truncated": False, "requested_url": f"{loopback.url}/otters",
                           "content_type": "text/html"}
    request = loopback.requests[0]
    assert request.target == "/otters"  # no fragment sent
    assert request.header("host") == f"127.0.0.1:{loopback.port}"
    assert "text/html" in (request.header("accept") or "")
    assert request.header("accept-encoding") == "gzip, deflate"


async def test_xhtml_with_xml_declaration(loopback: LoopbackServer) -> None:
    page = ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X'
            '</title></head><body><p>Caf\u00e9 <a href="b.html">next page</a> and a sentence long enough to count as '
            'the content of this small page.</p></body></html>')
    loopback.add("GET", "/a/x.xhtml", Response.body(page.encode(), "application/xhtml+xml"))
    output = await read(loopback.url + "/a/x.xhtml")
    assert output.data["title"] == "X"
    assert "Café" in output.text and f"[next page]({loopback.url}/a/b.html)" in output.text


async def test_charset_from_the_header(loopback: LoopbackServer) -> None:
    page = "<html><head><title>Été</title></head><body><p>Déjà vu, à côté de la forêt.</p></body></html>"
    loopback.add("GET", "/latin", Response.body(page.encode("latin-1"), "text/html; charset=ISO-8859-1"))
    output = await read(loopback.url + "/latin")
    assert output.data["title"] == "Été" and "Déjà vu, à côté de la forêt." in output.text


@pytest.mark.parametrize(("content_type", "body", "expected"), [
    ("text/plain; charset=utf-8", "plain words\nsecond line", "plain words\nsecond line"),
    ("text/markdown", "# Notes\n\n- [x](https://x.example/)", "# Notes\n\n- [x](https://x.example/)"),
    ("application/json", '{"b": [1, 2], "a": "\u00fc"}', '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "\u00fc"\n}'),
    ("application/ld+json", '{"@type": "Thing"}', '{\n  "@type": "Thing"\n}'),
    ("application/json", "not json {", "not json {"),
])
async def test_text_kinds_are_passed_through(loopback: LoopbackServer, content_type: str, body: str,
                                             expected: str) -> None:
    loopback.add("GET", "/doc", Response.body(body.encode(), content_type))
    output = await read(loopback.url + "/doc")
    assert not output.is_error
    assert output.text == f"URL: {loopback.url}/doc\n\n{expected}"
    assert output.data["title"] is None


@pytest.mark.parametrize("content_type", ["image/png", "application/pdf", "application/octet-stream",
                                          "video/mp4"])
async def test_other_content_types_are_refused_by_name(loopback: LoopbackServer, content_type: str) -> None:
    loopback.add("GET", "/file", Response.body(b"\x89PNG\r\n\x1a\n" * 100, content_type))
    output = await read(loopback.url + "/file")
    assert output.is_error
    assert output.text == (f"{loopback.url}/file is {content_type} content; web_fetch reads only HTML, XHTML, "
                           "plain text, Markdown and JSON.")
    assert output.data["error"] == output.text and output.data["kind"] == "fetch"


async def test_missing_content_type_is_sniffed(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/page", Response(chunks=[b"<!DOCTYPE html><html><head><title>Sniffed</title></head>"
                                                  b"<body><p>Found by its opening tag, not by a header.</p></body>"
                                                  b"</html>"]))
    loopback.add("GET", "/notes", Response(chunks=[b"just some notes"]))
    loopback.add("GET", "/blob", Response(chunks=[b"\x00\x01\x02binary"]))
    page = await read(loopback.url + "/page")
    assert page.data["title"] == "Sniffed" and page.data["content_type"] == "text/html"
    notes = await read(loopback.url + "/notes")
    assert notes.text.endswith("just some notes")
    blob = await read(loopback.url + "/blob")
    assert blob.is_error and "has no Content-Type and does not look like text" in blob.text


async def test_page_without_text(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/empty", html("<html><head><title>Nothing</title></head><body></body></html>"))
    output = await read(loopback.url + "/empty")
    assert not output.is_error and output.text.endswith("(the page has no readable text)")


# --- redirects ------------------------------------------------------------------------------------------------


async def test_redirects_are_followed_and_reported(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/old", redirect("/middle", 301))
    loopback.add("GET", "/middle", redirect(f"{loopback.url}/new?x=1#part", 307))
    loopback.add("GET", "/new", Response.text("arrived"))
    output = await read(loopback.url + "/old")
    assert output.text == f"URL: {loopback.url}/new?x=1\n(redirected from {loopback.url}/old)\n\narrived"
    assert (output.data["url"], output.data["requested_url"]) == (f"{loopback.url}/new?x=1", f"{loopback.url}/old")
    assert [r.target for r in loopback.requests] == ["/old", "/middle", "/new?x=1"]


async def test_five_redirects_are_followed_and_a_sixth_is_not(loopback: LoopbackServer) -> None:
    for hop in range(5):
        loopback.add("GET", f"/hop{hop}", redirect(f"/hop{hop + 1}"))
    loopback.add("GET", "/hop5", Response.text("end of five"))
    output = await read(loopback.url + "/hop0")
    assert output.text.endswith("end of five") and loopback.count == 6
    loopback.reset()
    for hop in range(7):
        loopback.add("GET", f"/hop{hop}", redirect(f"/hop{hop + 1}"))
    output = await read(loopback.url + "/hop0")
    assert output.is_error
    assert output.text == (f"{loopback.url}/hop0 redirected more than 5 times (last to /hop6); web_fetch stopped "
                           "following.")
    assert loopback.count == 6


async def test_redirect_limit_is_a_setting(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/a", redirect("/b"))
    output = await read(loopback.url + "/a", max_redirects=0)
    assert output.is_error and "redirected more than 0 times" in output.text


@pytest.mark.parametrize(("location", "reason"), [
    ("http://10.0.0.1/internal", "10.0.0.1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("http://intranet.example/", "intranet.example resolves to 10.9.8.7, which is a private address"),
    ("http://[::1]:8080/", "::1 is a loopback address"),
])
async def test_redirect_to_a_private_address_is_refused(loopback: LoopbackServer, location: str,
                                                        reason: str) -> None:
    loopback.add("GET", "/jump", redirect(location))
    resolver = FakeResolver({"intranet.example": ["10.9.8.7"]})
    with pytest.raises(FetchFailed) as caught:
        await fetcher(resolver=resolver).fetch(loopback.url + "/jump")
    assert str(caught.value).startswith("Refused ") and reason in str(caught.value)
    assert loopback.count == 1


@pytest.mark.parametrize("location", ["file:///etc/passwd", "ftp://files.example/x", "gopher://x.example/"])
async def test_redirect_to_another_scheme_is_refused(loopback: LoopbackServer, location: str) -> None:
    loopback.add("GET", "/jump", redirect(location))
    output = await read(loopback.url + "/jump")
    assert output.is_error
    assert "which is not http or https; web_fetch does not follow it" in output.text


# --- names and addresses --------------------------------------------------------------------------------------


async def test_connection_goes_to_the_checked_address_with_the_name_as_host(loopback: LoopbackServer) -> None:
    """DNS rebinding: the name is resolved once per hop and the connection uses that answer."""
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])

    class Rebinding(FakeResolver):
        async def __call__(self, host: str, port: int) -> list[str]:
            self.asked.append((host, port))
            return next(answers)

    resolver = Rebinding({})
    loopback.add("GET", "/page", Response.text("served to the checked address"))
    page, cached = await fetcher(resolver=resolver).fetch(f"http://otters.example:{loopback.port}/page")
    assert page.text == "served to the checked address" and not cached
    assert resolver.asked == [("otters.example", loopback.port)]
    assert loopback.requests[0].header("host") == f"otters.example:{loopback.port}"
    assert page.url == f"http://otters.example:{loopback.port}/page"


@pytest.mark.parametrize(("url", "message"), [
    ("file:///etc/passwd", "web_fetch reads only http and https URLs, not file:"),
    ("ftp://files.example/a.txt", "web_fetch reads only http and https URLs, not ftp:"),
    ("javascript:alert(1)", "web_fetch reads only http and https URLs, not javascript:"),
    ("example.com/page", "has no scheme; web_fetch reads http and https URLs such as https://example.com/page"),
    ("http://", "has no host name"),
])
async def test_urls_that_are_not_http_are_refused(url: str, message: str) -> None:
    with pytest.raises(FetchFailed) as caught:
        await fetcher().fetch(url)
    assert message in str(caught.value)


def test_empty_url_argument() -> None:
    with pytest.raises(ToolArgumentsError, match="web_fetch needs a URL"):
        web_fetch_tool(FetchSettings()).validate({"url": "  "})


async def test_unknown_host(loopback: LoopbackServer) -> None:
    with pytest.raises(FetchFailed, match=r"could not find the server nowhere\.example"):
        await fetcher(resolver=FakeResolver({})).fetch("http://nowhere.example/")


# --- limits ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunked", [True, False])
async def test_download_limit_cuts_the_page_with_a_note(loopback: LoopbackServer, chunked: bool) -> None:
    body = ("word " * 60_000).encode()  # 300,000 bytes
    loopback.add("GET", "/big", Response.body(body, "text/plain", chunk_size=16_384, chunked=chunked))
    output = await read(loopback.url + "/big", max_bytes=100 * 1024, max_output_chars=500_000)
    assert not output.is_error
    assert "[note: only the first 100 KiB of the page were downloaded (download limit); the rest is missing]" in (
        output.text)
    page_text = output.text.split("\n\n", 1)[1]
    assert len(page_text) <= 100 * 1024
    assert output.data["truncated"] is True


async def test_decompressed_limit_stops_a_compression_bomb(loopback: LoopbackServer) -> None:
    bomb = gzip.compress(b"a" * (20 * 1024 * 1024), compresslevel=9)  # 20 MiB in about 20 KB
    assert len(bomb) < 100 * 1024
    loopback.add("GET", "/bomb", Response.body(bomb, "text/plain", headers={"Content-Encoding": "gzip"}))
    output = await read(loopback.url + "/bomb", max_decompressed_bytes=64 * 1024, max_output_chars=500_000)
    assert "only the first 64 KiB of the decompressed page were read (decompressed size limit)" in output.text
    assert output.text.count("a") <= 64 * 1024 + 100


@pytest.mark.parametrize(("encoding", "compress"), [
    ("gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send it
])
async def test_compressed_pages_are_decoded(loopback: LoopbackServer, encoding: str, compress: Any) -> None:
    loopback.add("GET", "/z", Response.body(compress(b"compressed words"), "text/plain",
                                            headers={"Content-Encoding": encoding}))
    output = await read(loopback.url + "/z")
    assert output.text.endswith("\n\ncompressed words")


async def test_unadvertised_encoding_is_refused(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/br", Response.body(b"\x1b\x00", "text/html", headers={"Content-Encoding": "br"}))
    output = await read(loopback.url + "/br")
    assert output.is_error and "Content-Encoding br, which web_fetch does not read" in output.text


async def test_corrupt_compressed_body(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/bad", Response.body(b"not gzip at all", "text/plain", headers={"Content-Encoding": "gzip"}))
    output = await read(loopback.url + "/bad")
    assert output.is_error and "could not be decoded" in output.text


async def test_time_limit_covers_a_slow_page(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/slow", Response(headers={"Content-Type": "text/html"}, chunks=[b"<html>"], hang=True))
    output = await read(loopback.url + "/slow", timeout=0.4)
    assert output.is_error and output.text == f"{loopback.url}/slow did not finish loading within 0.4 s."


async def test_time_limit_covers_a_server_that_never_answers(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/silent", Response(hang_before_headers=True))
    output = await read(loopback.url + "/silent", timeout=0.3)
    assert output.is_error and "did not finish loading within 0.3 s" in output.text


async def test_output_is_cut_to_the_budget_with_a_note(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/long", Response.text("x" * 5_000))
    output = await read(loopback.url + "/long", max_output_chars=1_000)
    assert output.text.endswith("\n[truncated: showing 1,000 of 5,000 characters of the page text; the rest was not "
                                "read]")
    assert output.text.split("\n\n", 1)[1].split("\n")[0] == "x" * 1_000 and output.data["truncated"] is True


def test_tool_metadata_and_budget() -> None:
    tool = web_fetch_tool(FetchSettings(max_output_chars=5_000, timeout=12))
    assert (tool.name, tool.category, tool.visibility, tool.needs_approval) == ("web_fetch", "search", "primary",
                                                                               False)
    assert tool.max_output_chars is not None and tool.max_output_chars > 5_000
    assert tool.timeout is not None and tool.timeout > 12


# --- statuses -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "phrase"), [
    (404, "the page does not exist"),
    (403, "needs a login or refuses automated readers"),
    (429, "rate limiting"),
    (503, "server error. Try again later"),
    (418, "answered HTTP 418"),
])
async def test_error_statuses_say_what_happened(loopback: LoopbackServer, status: int, phrase: str) -> None:
    loopback.add("GET", "/p", Response.text("nope", status=status))
    output = await read(loopback.url + "/p")
    assert output.is_error and f"{loopback.url}/p answered HTTP {status}" in output.text and phrase in output.text


# --- cache ----------------------------------------------------------------------------------------------------


async def test_repeated_fetch_within_ten_minutes_comes_from_the_cache(loopback: LoopbackServer) -> None:
    now = [1000.0]
    web = WebFetch(FetchSettings(allowed_networks=LOOPBACK_ONLY), clock=lambda: now[0])
    loopback.always("GET", "/page", Response.text("first version"))
    first, cached_first = await web.fetch(loopback.url + "/page")
    now[0] += 599
    second, cached_second = await web.fetch(loopback.url + "/page#other-part")
    assert (cached_first, cached_second) == (False, True) and second == first
    assert loopback.count == 1
    now[0] += 2  # past 600 s
    _, cached_third = await web.fetch(loopback.url + "/page")
    assert cached_third is False and loopback.count == 2


async def test_failures_are_not_cached(loopback: LoopbackServer) -> None:
    web = fetcher()
    loopback.add("GET", "/flaky", Response.text("down", status=503), Response.text("up again"))
    with pytest.raises(FetchFailed):
        await web.fetch(loopback.url + "/flaky")
    page, cached = await web.fetch(loopback.url + "/flaky")
    assert page.text == "up again" and not cached


async def test_cache_can_be_turned_off(loopback: LoopbackServer) -> None:
    web = fetcher(cache_ttl=0)
    loopback.always("GET", "/page", Response.text("x"))
    await web.fetch(loopback.url + "/page")
    await web.fetch(loopback.url + "/page")
    assert loopback.count == 2


async def test_chunked_slow_body_within_time_is_read(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/drip", Response(headers={"Content-Type": "text/plain"},
                                          chunks=[Chunk(b"one ", 0.05), Chunk(b"two", 0.05)]))
    output = await read(loopback.url + "/drip")
    assert output.text.endswith("one two")


async def test_allow_local_addresses_opens_the_loopback_server(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/local", Response.text("a local page"))
    page, _ = await WebFetch(FetchSettings(allow_local_addresses=True)).fetch(loopback.url + "/local")
    assert page.text == "a local page"


async def test_refused_redirect_names_both_addresses(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/jump", redirect("http://192.168.1.1/admin"))
    output = await read(loopback.url + "/jump")
    assert output.is_error
    assert output.text == (f"Refused the redirect from {loopback.url}/jump to http://192.168.1.1/admin: 192.168.1.1 "
                           "is a private address; web_fetch reads only public addresses unless local addresses are "
                           "allowed in Preferences > Web.")
