"""SSEDecoder: line endings, comments, fields, split UTF-8 and events cut anywhere."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestration.providers.sse import SSEDecoder, SSEEvent


def decode(*chunks: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    return events + decoder.close()


def test_lf_events_with_default_name() -> None:
    assert decode(b"data: one\n\ndata: two\n\n") == [SSEEvent("message", "one"), SSEEvent("message", "two")]


def test_crlf_and_cr_line_endings() -> None:
    expected = [SSEEvent("message", "a"), SSEEvent("message", "b")]
    assert decode(b"data: a\r\n\r\ndata: b\r\n\r\n") == expected
    assert decode(b"data: a\r\rdata: b\r\r") == expected
    assert decode(b"data: a\r\n\ndata: b\n\r\n") == expected  # mixed within one stream


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []  # the LF completes the CRLF; it is not a blank line
    assert decoder.feed(b"\r") == [SSEEvent("message", "a")]
    assert decoder.feed(b"\ndata: b\r\n\r\n") == [SSEEvent("message", "b")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    body = b": OPENROUTER PROCESSING\n\n: keep-alive\nretry: 100\nfoo: bar\ndata: x\n\n"
    assert decode(body) == [SSEEvent("message", "x")]


def test_event_names_ids_and_multiline_data() -> None:
    body = b"event: error\nid: 7\ndata: {\"a\":\ndata: 1}\n\nevent: message_stop\ndata: {}\n\n"
    assert decode(body) == [SSEEvent("error", '{"a":\n1}', "7"), SSEEvent("message_stop", "{}", "7")]


def test_field_value_spacing() -> None:
    # one leading space is dropped; a field without a colon has an empty value
    assert decode(b"data:x\n\ndata:  two spaces\n\ndata\n\n") == [
        SSEEvent("message", "x"), SSEEvent("message", " two spaces"), SSEEvent("message", "")]


def test_utf8_split_inside_a_character() -> None:
    text = "data: caf\u00e9 \u2019 \U0001f600\n\n".encode()
    events = decode(*[text[i:i + 1] for i in range(len(text))])
    assert events == [SSEEvent("message", "caf\u00e9 \u2019 \U0001f600")]


def test_final_event_without_blank_line_is_delivered_on_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: first\n\ndata: last") == [SSEEvent("message", "first")]
    assert decoder.close() == [SSEEvent("message", "last")]
    decoder = SSEDecoder()
    assert decoder.feed(b"data: last\n") == []
    assert decoder.close() == [SSEEvent("message", "last")]


def test_byte_order_mark_at_start_is_skipped() -> None:
    bom = "\ufeff".encode()
    assert decode(bom[:1], bom[1:] + b"data: x\n\n") == [SSEEvent("message", "x")]


def test_blank_lines_alone_dispatch_nothing() -> None:
    assert decode(b"\n\n\r\n: c\n\n") == []


@settings(max_examples=200, deadline=None, database=None)
@given(
    events=st.lists(st.tuples(st.sampled_from(["", "error", "ping"]),
                              st.lists(st.text(st.characters(blacklist_characters="\r\n",
                                                             blacklist_categories=["Cs"])), min_size=1,
                                       max_size=3)), max_size=6),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(0, 4000), max_size=30),
)
def test_any_chunking_gives_the_same_events(events: list[tuple[str, list[str]]], newline: str,
                                            cuts: list[int]) -> None:
    text = ""
    for name, lines in events:
        if name:
            text += f"event: {name}{newline}"
        text += "".join(f"data: {line}{newline}" for line in lines) + newline
    data = text.encode()
    points = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    want = [SSEEvent(name or "message", "\n".join(lines)) for name, lines in events]
    assert decode(*pieces) == want
