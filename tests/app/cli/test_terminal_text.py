"""Control characters become visible escapes before anything reaches a terminal; JSON stays the same JSON."""

from __future__ import annotations

import io
import json

from hypothesis import given
from hypothesis import strategies as st

from app.cli.terminal_text import UNSAFE_CHARACTERS, TerminalSafeStream, terminal_safe

HOSTILE = "\x1b[2J\x1b]0;title\x07\x9b1m\u202egnp.exe\u202c\x00\x7f\x85"


def test_control_sequences_become_visible_escapes():
    assert terminal_safe(HOSTILE) == ("\\u001b[2J\\u001b]0;title\\u0007\\u009b1m\\u202egnp.exe\\u202c\\u0000"
                                      "\\u007f\\u0085")
    assert terminal_safe("line one\r\nline two\ttabbed\n") == "line one\nline two\ttabbed\n"
    assert terminal_safe("over\rwrite") == "over\\u000dwrite"
    assert terminal_safe("Grüße, 東京, مرحبا, emoji 🎉") == "Grüße, 東京, مرحبا, emoji 🎉"


def test_a_lone_surrogate_is_escaped_so_any_terminal_encoding_can_write_it():
    safe = terminal_safe("a\ud800b\udfff 😀")
    assert safe == "a\\ud800b\\udfff 😀"
    safe.encode("utf-8")


@given(st.text(st.characters(exclude_categories=())))
def test_the_result_is_safe_and_escaping_twice_changes_nothing(text):
    once = terminal_safe(text)
    assert not UNSAFE_CHARACTERS.search(once)
    assert terminal_safe(once) == once


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(st.characters(exclude_categories=())),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20))
def test_json_through_it_is_still_the_same_json(value):
    for text in (json.dumps(value, ensure_ascii=False), json.dumps(value, ensure_ascii=False, indent=2)):
        safe = terminal_safe(text)
        assert not UNSAFE_CHARACTERS.search(safe)
        assert json.loads(safe) == value


def test_the_stream_joins_a_cr_lf_split_across_writes():
    out = io.StringIO()
    stream = TerminalSafeStream(out)
    for piece in ("one\r", "\ntwo\r", "three\x1b", "[2J"):
        assert stream.write(piece) == len(piece)
    stream.flush()
    assert out.getvalue() == "one\ntwo\\u000dthree\\u001b[2J"
    assert stream.getvalue() == out.getvalue()  # everything else is the wrapped stream's
