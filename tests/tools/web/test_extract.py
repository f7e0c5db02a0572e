"""Readable text extraction: main content as Markdown, title, links made absolute, noise dropped."""

from __future__ import annotations

from tools.web.extract import extract, extract_html

BASE = "https://site.example/dir/page.html"


def test_short_page_falls_back_to_the_whole_body() -> None:
    page = extract_html(b"<html><head><title>Links</title></head><body><nav>menu</nav><ul>"
                        b"<li><a href='a.html'>First</a></li><li><a href='/b'>Second</a></li></ul>"
                        b"<script>x()</script></body></html>", BASE)
    assert page.title == "Links"
    assert page.text == "- [First](https://site.example/dir/a.html)\n- [Second](https://site.example/b)"


def test_title_falls_back_to_the_first_heading() -> None:
    page = extract_html(b"<html><body><h1>Heading  title</h1><p>Body text.</p></body></html>", BASE)
    assert page.title == "Heading title"


def test_base_href_is_honoured() -> None:
    page = extract_html(b"<html><head><base href='https://cdn.example/x/'></head><body>"
                        b"<p><a href='y'>y</a></p></body></html>", BASE)
    assert "[y](https://cdn.example/x/y)" in page.text


def test_mailto_kept_other_schemes_dropped() -> None:
    page = extract_html(b"<html><body><p><a href='mailto:a@b.example'>mail</a> <a href='data:text/html,x'>data</a>"
                        b" <a href='tel:123'>phone</a></p></body></html>", BASE)
    assert "[mail](mailto:a@b.example)" in page.text
    assert "data:" not in page.text and "tel:" not in page.text and "phone" in page.text


def test_meta_charset_without_header() -> None:
    body = "<html><head><meta charset='windows-1252'><title>Caf\u00e9</title></head><body><p>na\u00efve</p>" \
           "</body></html>"
    page = extract("html", body.encode("cp1252"), None, BASE)
    assert page.title == "Café" and "naïve" in page.text


def test_garbage_is_not_an_exception() -> None:
    assert not any(ord(c) < 9 for c in extract("html", b"\x00\x01\x02", None, BASE).text)
    assert extract("html", b"", None, BASE).title is None


def test_text_kinds() -> None:
    assert extract("text", "  caf\u00e9 \n".encode(), None, BASE).text == "café"
    assert extract("markdown", b"# T", "utf-8", BASE).text == "# T"
    assert extract("json", b'{"a":1}', None, BASE).text == '{\n  "a": 1\n}'


def test_json_nested_too_deep_is_passed_on_as_text() -> None:
    body = b"[" * 1_100 + b"]" * 1_100
    assert extract("json", body, None, "http://x/").text == body.decode()
