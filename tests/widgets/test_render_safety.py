"""An answer is untrusted input: rendering it must never read a file or open a connection (issue 13).

The dangerous payloads are rendered in a child process (tests/support/render_child.py) through the real chat
view, laid out and painted: ``/dev/zero`` would end that process, a FIFO canary would block it forever (the
test opens nothing; only a reader of the FIFO blocks), and a loopback socket canary counts every connection.
A property test then feeds arbitrary markdown and HTML to the view in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from tests.support.socket_canary import SocketCanary
from widgets.chat_view import ChatMessage, ChatView
from widgets.markdown_render import render_markdown
from widgets.safe_text import SafeDocument, plain_label, plain_tooltip

REPO_ROOT = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT_S = 90


def attacks(fifo: str, url: str) -> list[str]:
    return [
        "![x](/dev/zero)",
        f"![x]({fifo})",
        f"![x](file://{fifo})",
        "![x](file:///dev/zero)",
        f"![x]({url}/inline.png)",
        f"![x][ref]\n\n[ref]: {fifo}",
        f"![x][web]\n\n[web]: {url}/reference.png",
        f'<img src="{fifo}">',
        '<img src="/dev/zero" width="10">',
        f'text <img src="{url}/inline-html.png"> text',
        f'<link rel="stylesheet" href="{fifo}">',
        f'<link rel="stylesheet" href="{url}/style.css">',
        f'<div style="background-image: url({fifo})">css</div>',
        f"<style>p {{ background: url({url}/css.png) }}</style>\n\nafter",
        f'<table background="{fifo}"><tr><td background="{url}/td.png">cell</td></tr></table>',
        f"| a |\n|---|\n| ![x]({fifo}) |",
        f"[![x]({url}/linked.png)]({url}/)",
        f"- item ![x]({fifo})\n  > quote <img src='{fifo}'>",
        f"```html\n<img src=\"{fifo}\">\n```",
    ]


def render_in_child(mode: str, payloads: list[str], tmp_path: Path) -> list[str]:
    source = tmp_path / f"{mode}.json"
    source.write_text(json.dumps(payloads), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "QT_QPA_PLATFORM": "offscreen"}
    process = subprocess.Popen([sys.executable, "-m", "tests.support.render_child", mode, str(source)],
                               cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        lines = out.splitlines()
        pytest.fail(f"rendering hung after {len(lines)} payloads; next: {payloads[len(lines)]!r}")
    lines = out.splitlines()
    assert process.returncode == 0, (
        f"renderer died (code {process.returncode}) after {len(lines)} payloads; "
        f"next: {payloads[min(len(lines), len(payloads) - 1)]!r}\n{err[-2000:]}")
    return lines


@pytest.mark.parametrize("mode", ["history", "stream"])
def test_no_answer_makes_the_view_read_a_file_or_connect(tmp_path, mode):
    fifo = tmp_path / "canary.fifo"
    os.mkfifo(fifo)
    with SocketCanary() as canary:
        payloads = attacks(str(fifo), canary.url)
        lines = render_in_child(mode, payloads, tmp_path)
        time.sleep(0.2)  # a connection attempt still in flight would arrive now
        connections = canary.count
    assert lines == [f"ok {i} refused=0" for i in range(len(payloads))]
    assert connections == 0


def test_images_show_as_a_link_or_placeholder_the_user_can_open(qapp):
    document = render_markdown("![a cat](https://example.org/cat.png) and ![local](/etc/passwd)")
    text = document.toPlainText()
    assert "[image: a cat — https://example.org/cat.png]" in text
    assert "[image: local — /etc/passwd]" in text
    hrefs = set()
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fmt = iterator.fragment().charFormat()
            if fmt.isAnchor():
                hrefs.add(fmt.anchorHref())
            iterator += 1
        block = block.next()
    assert hrefs == {"https://example.org/cat.png"}  # a local path is shown, never a link that opens it


def test_html_in_an_answer_is_shown_as_text(qapp):
    document = render_markdown('Hi <b>bold</b>\n\n<img src="x.png">\n\n<script>alert(1)</script>')
    text = document.toPlainText()
    assert "<b>bold</b>" in text and '<img src="x.png">' in text and "<script>alert(1)</script>" in text
    assert "ObjectReplacementCharacter" not in text and "\ufffc" not in text  # no image object was made


def test_only_http_links_open_and_only_after_a_click(qtbot):
    opened = []
    view = ChatView(open_url=opened.append)
    qtbot.addWidget(view)
    view.set_messages([ChatMessage("assistant", "[web](https://example.org) [file](file:///etc/passwd)")])
    assert opened == []
    from PySide6.QtCore import QUrl
    view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    view.anchorClicked.emit(QUrl("https://example.org"))
    assert [url.toString() for url in opened] == ["https://example.org"]


def test_safe_document_refuses_every_resource(qapp, tmp_path):
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QImage, QTextDocument

    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    document = SafeDocument()
    image = document.resource(QTextDocument.ResourceType.ImageResource.value, QUrl.fromLocalFile(str(secret)))
    sheet = document.resource(QTextDocument.ResourceType.StyleSheetResource.value, QUrl.fromLocalFile(str(secret)))
    assert isinstance(image, QImage) and image.width() == 1
    assert sheet == ""
    assert document.refused == 2


def test_plain_helpers_show_markup_literally(qtbot):
    label = plain_label('<img src="/dev/zero"><b>x</b>')
    qtbot.addWidget(label)
    assert label.textFormat().name == "PlainText"
    assert label.text() == '<img src="/dev/zero"><b>x</b>'
    assert plain_tooltip("<b>x</b> & y") == "<p style='white-space:pre-wrap'>&lt;b&gt;x&lt;/b&gt; &amp; y</p>"


# --- arbitrary input ------------------------------------------------------------------------------------------

FIFO_PATH = "/nonexistent-parley-canary/f.fifo"  # replaced per run by a real FIFO path
MARKUP = ["# ", "## ", "- ", "1. ", "> ", "```", "~~~", "    ", "| a | b |\n|---|---|\n", "**", "*", "_", "`",
          "~~", "$", "$$", "[", "](", ")", "![", "<", ">", "</", "/>", "\n", "\n\n", " ", "\\", "&amp;", "---",
          "- [ ] ", "[r]: ", "<img src=", "<link href=", "<table background=", "style=\"url(", "<style>", "\t"]


@st.composite
def hostile_markdown(draw, fifo: str, url: str) -> str:
    pieces = draw(st.lists(st.one_of(
        st.sampled_from(MARKUP),
        st.sampled_from([fifo, f"file://{fifo}", "/dev/zero", f"{url}/p.png"]),
        st.text(max_size=12),
    ), max_size=40))
    return "".join(pieces)


@pytest.fixture(scope="module")
def canaries(tmp_path_factory):
    fifo = tmp_path_factory.mktemp("fifo") / "canary.fifo"
    os.mkfifo(fifo)
    with SocketCanary() as canary:
        yield str(fifo), canary


def test_arbitrary_markdown_and_html_neither_raise_hang_nor_load(qtbot, canaries):
    fifo, canary = canaries
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()

    @settings(max_examples=120, deadline=5_000, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
    @given(text=hostile_markdown(fifo, canary.url), cut=st.integers(min_value=1, max_value=9))
    def render(text: str, cut: int) -> None:
        view.set_messages([ChatMessage("assistant", text)])
        view.begin_assistant()
        for start in range(0, len(text), cut):
            view.append_content(text[start:start + cut])
            view.flush()
        view.end_assistant("stop")
        view.grab()

    render()
    time.sleep(0.2)
    assert view.document().refused == 0
    assert canary.count == 0


def test_outside_text_in_labels_is_shown_literally(qtbot):
    from PySide6.QtWidgets import QLabel

    from widgets.approval_panel import PendingCall, _CallCard
    from widgets.form_errors import error_label

    hostile = '<img src="/dev/zero">'
    card = _CallCard(PendingCall("c1", hostile, {}))
    qtbot.addWidget(card)
    title = card.findChildren(QLabel)[0]
    assert "&lt;img" in title.text() and "<img" not in title.text()
    label = error_label()
    label.setText(hostile)
    assert label.textFormat().name == "PlainText"


def test_the_delete_question_shows_a_hostile_title_as_text(qtbot):
    from widgets.conversation_list import delete_confirmation

    box = delete_confirmation(None, '<img src="/dev/zero">')
    qtbot.addWidget(box)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert '<img src="/dev/zero">' in box.text()


CONTROLS = {chr(code) for code in range(0x20) if chr(code) not in "\t\n\r"} | {"\x7f"}


def test_terminal_escapes_in_an_answer_show_in_caret_notation(qapp):
    document = render_markdown("Escapes: \x1b[31mred\x1b[0m \x07bell\x08 \x00nul \x7fdel\n\n"
                               "```sh\nprintf '\x1b]0;title\x07'\n```")
    text = document.toPlainText()
    assert "Escapes: ^[[31mred^[[0m ^Gbell^H ^@nul ^?del" in text
    assert "printf '^[]0;title^G'" in text
    assert not CONTROLS & set(text)


REORDERING = {chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))} | {
    chr(code) for code in range(0x80, 0xA0)}


def test_bidi_overrides_and_c1_controls_in_an_answer_show_as_escapes_not_reordered_text(qapp):
    # "Trojan source": an override shows "evil" as "live"; the CLI already escapes these (app/cli/terminal_text.py)
    document = render_markdown("Pay d\u202eevil\u202c now \u2067x\u2069 \x9b2J\n\n"
                               "```python\naccess = \"user\u202e \u2066# admin\u2069 \u2066\"\n```")
    text = document.toPlainText()
    assert "Pay d\\u202eevil\\u202c now \\u2067x\\u2069 \\u009b2J" in text
    assert 'access = "user\\u202e \\u2066# admin\\u2069 \\u2066"' in text
    assert not REORDERING & set(text)


def test_escapes_in_a_huge_unfinished_block_are_visible_while_it_streams(qapp):
    from PySide6.QtGui import QTextDocument

    from widgets.markdown_render import RAW_TAIL_CHARS, StreamingMarkdown

    document = QTextDocument()
    region = StreamingMarkdown(document)
    region.push("".join(f"line \x1b[{i}m\n" for i in range(RAW_TAIL_CHARS // 6)))  # one paragraph, unfinished
    region.flush()
    text = document.toPlainText()
    assert "line ^[[1m" in text and not CONTROLS & set(text)


def test_escapes_in_an_error_note_show_in_caret_notation(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.add_error("bad \x1b[2J answer\nsecond line")
    text = view.document().toPlainText()
    assert "bad ^[[2J answer" in text and not CONTROLS & set(text)
