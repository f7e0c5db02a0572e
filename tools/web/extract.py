"""Readable text from a fetched page: the main content as Markdown, with its title and its links.

HTML goes through readability-lxml, which scores the page's blocks and keeps the article (navigation, footers,
sidebars, scripts and styles dropped) with links made absolute against the page's final URL; markdownify then
writes it as Markdown, so headings, lists, emphasis, code and links (``[text](url)``) survive. Images are
dropped (their URLs cost tokens and say little), and links that are not http(s) or mailto keep only their text.
When readability finds no article (a very short page, a page of links) the whole body is converted instead.

Plain text and Markdown are passed through; JSON is re-indented when it parses. The caller decides how much of
the result the model gets.
"""

from __future__ import annotations

import contextlib
import json
import re

import lxml.html
from lxml import etree
from markdownify import markdownify
from readability import Document
from readability.readability import Unparseable

from orchestration.bounded_json import loads_bounded
from tools.web.extract_types import ContentKind, ExtractedPage

NO_TITLE = "[no-title]"  # readability's placeholder when a page has no <title>
MIN_ARTICLE_CHARS = 80  # below this, readability's pick is not trusted and the whole body is used
_KEPT_SCHEMES = ("http://", "https://", "mailto:")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "iframe", "svg", "form", "nav", "footer", "header")
_BLANK_LINES = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_XML_INCOMPATIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # control characters lxml will not store
_PARSE_ERRORS = (Unparseable, etree.LxmlError, ValueError)  # what readability and lxml raise on odd markup


def _markdown(fragment_html: str) -> str:
    try:
        root = lxml.html.fragment_fromstring(_XML_INCOMPATIBLE.sub("", fragment_html), create_parent="div")
    except (*_PARSE_ERRORS, AssertionError):  # lxml asserts on a fragment that is a document without a body
        return ""
    for link in root.iter("a"):
        href = (link.get("href") or "").strip()
        if not href.lower().startswith(_KEPT_SCHEMES):
            link.attrib.pop("href", None)
    cleaned = lxml.html.tostring(root, encoding="unicode")
    text = markdownify(cleaned, heading_style="ATX", strip=["img"], escape_underscores=False,
                       escape_asterisks=False, bullets="-")
    text = _TRAILING_SPACE.sub("\n", text)
    return _BLANK_LINES.sub("\n\n", text).strip()


def _whole_body(document: lxml.html.HtmlElement) -> str:
    target = document.find("body")
    if target is None:  # only a head (or a frameset): nothing to read
        return ""
    for element in list(target.iter(*_DROPPED_TAGS)):
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)
    return str(lxml.html.tostring(target, encoding="unicode"))


def _title(document: Document, tree: lxml.html.HtmlElement | None) -> str | None:
    try:
        title = " ".join(document.title().split())
    except _PARSE_ERRORS:  # a malformed head; the first h1 is a fine substitute
        title = ""
    if title and title != NO_TITLE:
        return title
    if tree is not None:
        heading = tree.find(".//h1")
        if heading is not None:
            text = " ".join(heading.text_content().split())
            return text or None
    return None


def _parse(markup: bytes, url: str, charset: str | None) -> lxml.html.HtmlElement | None:
    """The page's tree; a charset Python knows but libxml2 does not is decoded here instead."""
    try:
        parser = lxml.html.HTMLParser(encoding=charset) if charset else None
    except LookupError:
        parser, markup_text = None, markup.decode(charset or "utf-8", errors="replace")
        try:
            return lxml.html.document_fromstring(markup_text, base_url=url)
        except _PARSE_ERRORS:
            return None
    try:
        return lxml.html.document_fromstring(markup, parser=parser, base_url=url)
    except _PARSE_ERRORS:
        return None


def extract_html(markup: bytes, url: str, charset: str | None = None) -> ExtractedPage:
    """The main content of an HTML or XHTML page as Markdown, with the page title.

    Without ``charset`` (from the Content-Type header) lxml follows the page's own ``<meta charset>``.
    """
    tree = _parse(markup, url, charset)
    if tree is None:
        return ExtractedPage(title=None, text="")
    with contextlib.suppress(ValueError):  # a base address lxml cannot store (control characters): left as written
        tree.make_links_absolute(url, resolve_base_href=True, handle_failures="discard")
    document = Document(lxml.html.tostring(tree, encoding="unicode"), url=url)
    title = _title(document, tree)
    try:
        article = _markdown(document.summary(html_partial=True))
    except _PARSE_ERRORS:
        article = ""
    if len(article) < MIN_ARTICLE_CHARS:
        whole = _markdown(_whole_body(tree))
        if len(whole) > len(article):
            article = whole
    return ExtractedPage(title=title, text=article)


def extract(kind: ContentKind, body: bytes, charset: str | None, url: str) -> ExtractedPage:
    """Readable text for a fetched body of the given kind."""
    if kind == "html":
        return extract_html(body, url, charset)
    text = body.decode(charset or "utf-8", errors="replace")
    if kind == "json":
        with contextlib.suppress(ValueError):  # not valid JSON: passed on as text
            text = json.dumps(loads_bounded(text, what=url), indent=2, ensure_ascii=False)
    return ExtractedPage(title=None, text=text.strip())
