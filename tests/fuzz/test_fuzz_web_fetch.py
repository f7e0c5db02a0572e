"""Fuzzing web_fetch's reading of a page: any body with any Content-Type, charset and encoding becomes readable
text or a FetchFailed message, never an exception (the extraction directly, and the whole tool over loopback)."""

from __future__ import annotations

import asyncio
import encodings.aliases
import gzip
from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from orchestration.tool_api import ToolContext, ToolOutput
from tests.fuzz.strategies import any_char, damaged_bytes, hostile_text
from tests.support.hypothesis_profiles import budget
from tests.support.loopback import LoopbackServer, Response
from tools.web.extract import extract
from tools.web.fetch import _charset, web_fetch_tool
from tools.web.settings import FetchSettings

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Sea otters</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Sea otters</h1><p>Sea otters use <a href="/tools">stone tools</a>
to open shells, a habit rare among mammals. Œufs, 東京, emoji 🦦.</p><ul><li>urchins</li><li>crabs</li></ul>
<pre><code>x = 1</code></pre><img src="/o.png"></article><footer>© site</footer></body></html>"""
# Codec names a server might send: real text encodings, and codecs Python has that are not text encodings.
CHARSETS = [
    *sorted(set(encodings.aliases.aliases.values())),
    "rot13", "base64", "hex", "zlib", "bz2", "uu", "quopri", "idna", "punycode", "undefined", "unicode_escape",
    "utf-7", "utf-32", "x-user-defined", "", "\"utf-8\"", "utf8;", "utf-8\x00"]
content_types = st.one_of(
    st.builds(lambda media, charset: f"{media}; charset={charset}",
              st.sampled_from(["text/html", "application/xhtml+xml", "text/plain", "text/markdown",
                               "application/json", "application/ld+json"]),
              st.one_of(st.sampled_from(CHARSETS), st.text(any_char, max_size=12))),
    st.sampled_from(["", "text/html", "text/html;", "text/html; charset", "application/octet-stream"]),
)
markup_fragments = st.sampled_from(["<", ">", "</p>", "<p>", "<a href='javascript:x'>", "<a href='//[::1'>",
                                    "<base href='http://[x'>", "<meta charset='rot13'>", "<meta charset='utf-16'>",
                                    "<?xml version='1.0' encoding='ebcdic'?>", "<![CDATA[", "&#0;", "&#xD800;",
                                    "&#1114112;", "<svg><script>", "<title></title>", "<table><td>", "\x00", "\x0c"])
bodies = st.one_of(
    damaged_bytes(PAGE),
    st.lists(st.one_of(markup_fragments, hostile_text), max_size=12).map(
        lambda parts: "".join(parts).encode("utf-8", "surrogatepass")),
    st.binary(max_size=120),
    st.builds(lambda text, codec: text.encode(codec, "replace"), st.just(PAGE),
              st.sampled_from(["utf-16", "utf-32", "latin-1", "cp1252", "shift_jis", "koi8-r", "utf-7"])),
)
KINDS = st.sampled_from(["html", "text", "markdown", "json"])


@given(KINDS, bodies, content_types)
@example("html", PAGE.encode(), "text/html; charset=rot13")
@example("text", b"plain", "text/plain; charset=base64")
@example("json", b'{"a": 1}', "application/json; charset=idna")
@example("html", PAGE.encode(), "text/html; charset=undefined")
@example("html", b"<html><body>&#xD800; \xff</body></html>", "text/html; charset=utf-8")
@example("text", b"\x80", "text/plain; charset=punycode")  # decodes only ASCII, even with errors="replace"
@example("html", b"<!doctype html><html><head", "")  # no body at all
@example("html", b"<base href>\x0c", "")  # a base lxml cannot resolve
def test_extraction_gives_text_for_any_body_and_charset(kind, body, content_type) -> None:
    page = extract(kind, body, _charset(content_type), "https://example.org/a/b.html")
    assert isinstance(page.text, str) and (page.title is None or isinstance(page.title, str))
    page.text.encode("utf-8")  # the result goes to the model, the history and the terminal


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as running:
        yield running


encodings_sent = st.sampled_from([None, "gzip", "deflate", "identity", "br", "gzip, gzip", "x-gzip"])


@budget(0.3)
@given(bodies, content_types, encodings_sent, st.booleans())
@example(PAGE.encode(), "text/html; charset=hex", None, False)
@example(b"\x1f\x8b\x08\x00garbage", "text/html", "gzip", False)
def test_web_fetch_answers_any_page_with_text_or_a_message(server, body, content_type, encoding, compress) -> None:
    if compress and encoding in ("gzip", "x-gzip"):
        body = gzip.compress(body)
    headers = {"Content-Encoding": encoding} if encoding else {}
    headers_with_type = {"Content-Type": content_type, **headers} if content_type else headers
    server.reset()
    server.always("GET", "/page", Response(headers=headers_with_type, chunks=[body] if body else []))
    tool = web_fetch_tool(FetchSettings(allowed_networks=["127.0.0.1/32"]))
    arguments = tool.validate({"url": server.url + "/page"})
    output = asyncio.run(tool.invoke(arguments, ToolContext(run_id="r", call_id="c")))
    assert isinstance(output, ToolOutput) and output.text
    output.text.encode("utf-8")


@pytest.mark.parametrize("charset", ["EUC-JP", "Shift_JIS_2004", "mac-roman", "cp437"])
def test_a_charset_python_knows_and_libxml2_does_not_still_reads(charset) -> None:
    text = "<html><body><p>東京 Œuf ÿ</p></body></html>" if "J" in charset else "<html><body><p>Œuf ÿ</p></body></html>"
    body = text.encode(charset, "replace")
    page = extract("html", body, _charset(f"text/html; charset={charset}"), "https://example.org/")
    assert page.text == body.decode(charset).removeprefix("<html><body><p>").removesuffix("</p></body></html>")


@pytest.mark.parametrize("charset", ["rot13", "base64", "hex", "idna", "punycode", "undefined", "zlib"])
def test_a_codec_that_is_not_a_text_encoding_is_ignored(charset) -> None:
    assert _charset(f"text/plain; charset={charset}") is None
    assert extract("text", b"plain words", _charset(f"text/plain; charset={charset}"), "https://e.org/").text == (
        "plain words")
