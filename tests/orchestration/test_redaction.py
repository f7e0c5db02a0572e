"""Credentials are hidden in headers, URLs, request bodies and free text; everything else is left as it was."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orchestration.redaction import (
    MAX_SURVIVING_PREFIX_CHARS,
    REDACTED,
    cut_redacted,
    redact_body,
    redact_headers,
    redact_request,
    redact_text,
    redact_url,
    replace_secrets,
    withhold_secret_start,
)

KEY = "sk-test-key-not-real-1234567890"


@pytest.mark.parametrize("name", ["Authorization", "authorization", "X-Api-Key", "api-key", "x-goog-api-key",
                                  "Proxy-Authorization"])
def test_credential_headers_are_redacted(name):
    out = redact_headers({name: f"Bearer {KEY}", "Content-Type": "application/json", "X-Title": "Parley"})
    assert out == {name: REDACTED, "Content-Type": "application/json", "X-Title": "Parley"}


def test_headers_as_pairs_keep_order():
    out = redact_headers([("User-Agent", "parley"), ("x-api-key", KEY)])
    assert list(out.items()) == [("User-Agent", "parley"), ("x-api-key", REDACTED)]


@pytest.mark.parametrize("param", ["key", "api_key", "apikey", "access_token", "token", "KEY", "Api_Key"])
def test_key_query_parameters_are_redacted(param):
    url = f"https://example.test/v1beta/models?alt=sse&{param}={KEY}&q=a%20b#frag"
    assert redact_url(url) == f"https://example.test/v1beta/models?alt=sse&{param}={REDACTED}&q=a%20b#frag"


def test_other_query_parameters_and_lookalikes_stay():
    url = "https://example.test/search?q=key&monkey=1&keys=2&tokens=3"
    assert redact_url(url) == url


def test_password_in_user_info_is_redacted():
    assert redact_url(f"https://user:{KEY}@proxy.test/v1") == f"https://user:{REDACTED}@proxy.test/v1"
    assert redact_url("https://user@proxy.test/v1") == "https://user@proxy.test/v1"


def test_request_dict_redacts_url_headers_and_json_body():
    request = {"method": "POST", "url": f"https://api.test/x?key={KEY}",
               "headers": {"Authorization": f"Bearer {KEY}", "Accept": "text/event-stream"},
               "body": json.dumps({"api_key": KEY, "query": "weather", "nested": [{"token": KEY, "n": 1}]})}
    out = redact_request(request)
    assert out["method"] == "POST"
    assert out["url"] == f"https://api.test/x?key={REDACTED}"
    assert out["headers"] == {"Authorization": REDACTED, "Accept": "text/event-stream"}
    assert json.loads(out["body"]) == {"api_key": REDACTED, "query": "weather", "nested": [{"token": REDACTED, "n": 1}]}
    assert KEY not in json.dumps(out)
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"  # the input is not modified


def test_body_as_dict_and_as_non_json_text():
    assert redact_body({"keyboard": "x", "apiKey": KEY}) == {"keyboard": "x", "apiKey": REDACTED}
    assert redact_body(f"plain text with ?key={KEY}") == f"plain text with ?key={REDACTED}"
    assert redact_body(b"\xff\xfe") == b"\xff\xfe"


def test_free_text_redacts_known_secrets_urls_and_bearer_tokens():
    text = (f"401 for https://api.test/v1?key={KEY}: Incorrect API key provided: {KEY}. "
            f"Header was Authorization: Bearer {KEY}")
    out = redact_text(text, [KEY])
    assert KEY not in out
    assert out.count(REDACTED) == 3
    assert redact_text("no secrets here, bearer of news") == "no secrets here, bearer of news"


def test_short_secrets_are_not_replaced_in_text():
    assert replace_secrets("the cat sat", ["cat"]) == "the cat sat"
    assert replace_secrets(f"x {KEY} y", [KEY, ""]) == f"x {REDACTED} y"


# --- cutting redacted text (the inspector's 32,000-character views, titles, checkpoints) -----------------------
SECRET_CHARS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=9,
                       max_size=60)
# Filler shares the secret's alphabet, so the cut often lands next to look-alike text.
FILLER = st.text(alphabet="abcsk-_ 0123\n{}\":é", max_size=80)


@settings(max_examples=400, deadline=None)
@given(before=FILLER, secret=SECRET_CHARS, after=FILLER, limit=st.integers(min_value=0, max_value=250))
def test_no_prefix_of_a_secret_longer_than_8_characters_survives_any_cut(before, secret, after, limit):
    visible = secret[:MAX_SURVIVING_PREFIX_CHARS + 1]
    assume(visible not in before and visible not in after)
    text = before + secret + after
    cut = cut_redacted(text, limit, [secret])
    assert visible not in cut.text
    assert len(cut.text) <= limit
    whole = redact_text(text, [secret])
    assert whole == cut.text + cut.rest  # nothing but the cut changed
    assert len(cut.text) >= min(limit, len(whole)) - len(secret)  # the cut backs off by less than a secret


@settings(max_examples=300, deadline=None)
@given(before=FILLER, secret=SECRET_CHARS, kept=st.integers(min_value=1, max_value=60),
       limit=st.integers(min_value=0, max_value=250))
def test_text_that_was_already_cut_inside_a_secret_keeps_no_prefix_of_it(before, secret, kept, limit):
    """A captured response stops at a byte limit, maybe inside a key: the part of the key before the end goes."""
    visible = secret[:MAX_SURVIVING_PREFIX_CHARS + 1]
    assume(visible not in before)
    cut = cut_redacted(before + secret[:kept], limit, [secret], continues=True)
    assert visible not in cut.text


def test_a_cut_backs_off_to_before_a_secret_it_would_fall_inside():
    text = "The key is " + KEY + " and more"
    assert cut_redacted(text, 200, [KEY]) == (f"The key is {REDACTED} and more", "")
    assert cut_redacted(text, 16, [KEY]) == ("The key is [reda", "cted] and more")  # redacted first, then cut
    assert cut_redacted("The key is " + KEY[:20], 200, [KEY], continues=True).text == "The key is "
    assert cut_redacted("abc " + KEY[:15] + " zzz", 16, [KEY]).text == "abc "
    assert cut_redacted("short", 3).text == "sho"


def test_withholding_a_possible_secret_start_at_the_end():
    assert withhold_secret_start("answer: sk-te", [KEY]) == ("answer: ", "sk-te")
    assert withhold_secret_start("answer: x", [KEY]) == ("answer: x", "")
    assert withhold_secret_start("answer: s", ["short"]) == ("answer: s", "")  # secrets under 8 characters: no
