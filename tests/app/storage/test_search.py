"""Full-text search over 10,000 messages and the titles, kept in sync by triggers."""

from __future__ import annotations

import random

import pytest

from app.storage.search import HistorySearch, SearchQueryError, fts_query
from app.storage.text_safety import readable_text

WORDS = ("river", "mountain", "lantern", "copper", "harvest", "violet", "engine", "signal", "orbit", "meadow",
         "cobalt", "ember", "glacier", "pepper", "quartz", "thunder", "willow", "saffron", "beacon", "canyon")
MESSAGES = 10_000


@pytest.fixture
def big_history(history):
    """Ten conversations, 10,000 messages; three mention 'zanzibar', one 'cooked'."""
    rng = random.Random(7)
    conversations = [history.create_conversation(f"Notes {i}") for i in range(10)]
    history.rename(conversations[3], "Spice islands trip")
    planted = {1234: "We flew to Zanzibar in June.", 5678: "zanzibar again, for the spices",
               9999: "The ferry from Zanzibar was late.", 4321: "I cooked the rice with saffron"}
    rows = []
    for i in range(MESSAGES):
        text = planted.get(i) or " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 30)))
        rows.append((conversations[i % 10], "user" if i % 2 == 0 else "assistant", text, i, i))
    with history.db.atomic():
        history.db.conn.executemany("INSERT INTO messages (conversation_id, role, content, created_at, updated_at) "
                                    "VALUES (?, ?, ?, ?, ?)", rows)
    return history


def test_finds_the_few_matching_messages_among_ten_thousand(big_history):
    hits = HistorySearch(big_history).search("zanzibar")
    assert len(hits) == 3 and all(h.message_id is not None for h in hits)
    assert {h.snippet.replace("**", "") for h in hits} == {
        "We flew to Zanzibar in June.", "zanzibar again, for the spices", "The ferry from Zanzibar was late."}
    assert all("**" in h.snippet for h in hits)
    assert big_history.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == MESSAGES
    big_history.db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")


def test_all_words_must_match_and_stems_and_prefixes_work(big_history):
    search = HistorySearch(big_history)
    assert [h.snippet for h in search.search("ferry zanzibar")] == ["The **ferry** from **Zanzibar** was late."]
    assert [h.snippet for h in search.search("cooking saffron")] == ["I **cooked** the rice with **saffron**"]
    assert len(search.search("zanz*")) == 3


def test_titles_match_first_and_limit_applies(big_history):
    search = HistorySearch(big_history)
    hits = search.search("spice")
    assert hits[0].message_id is None and hits[0].snippet == "**Spice** islands trip"
    assert [h.message_id is None for h in hits] == [True, False]
    assert len(search.search("river", limit=7)) == 7


@pytest.mark.parametrize("query", ['C++ "unbalanced', "AND OR NOT", "(x", "col:umn", "-minus", "'single'"])
def test_query_syntax_from_users_never_breaks_the_search(history, query):
    history.add_message(history.create_conversation("t"), "user", "nothing special here")
    assert isinstance(HistorySearch(history).search(query), list)


def test_empty_queries_are_refused():
    with pytest.raises(SearchQueryError, match="no words"):
        fts_query("  *  - ")
    assert fts_query('say "hi" now*') == '"say" """hi""" "now"*'


def test_index_follows_edits_and_deletes(history):
    cid = history.create_conversation("Edited")
    message = history.add_message(cid, "assistant", "first draft")
    search = HistorySearch(history)
    history.db.execute("UPDATE messages SET content = 'final version' WHERE id = ?", [message])
    assert search.search("draft") == [] and len(search.search("final")) == 1
    history.rename(cid, "Renamed thing")
    assert search.search("edited") == [] and search.search("renamed")[0].message_id is None
    history.delete(cid)
    assert search.search("final") == [] and search.search("renamed") == []


def _damage(history, message_id: int, raw: bytes) -> None:
    """Store ``raw`` as the message's text, as a damaged or hand-edited database can hold it (typed TEXT, bytes
    that are not UTF-8)."""
    history.db.execute("UPDATE messages SET content = CAST(? AS TEXT) WHERE id = ?", [raw, message_id])


def test_a_message_whose_text_is_not_utf8_is_found_with_replacement_characters(history):
    cid = history.create_conversation("Hand edited")
    broken = history.add_message(cid, "user", "placeholder")
    history.add_message(cid, "assistant", "a sound reply about wombats")
    _damage(history, broken, b"caf\xe9 wombats \xff\xfe end")
    hits = HistorySearch(history).search("wombats")
    assert sorted(hit.message_id for hit in hits) == sorted([broken, broken + 1])
    (damaged,) = [hit for hit in hits if hit.message_id == broken]
    assert damaged.snippet == "caf\ufffd **wombats** \ufffd\ufffd end"
    assert history.db.conn.text_factory is readable_text  # every reader of this connection reads it so


def test_a_title_that_is_not_utf8_does_not_break_the_search(history):
    cid = history.create_conversation("placeholder")
    history.add_message(cid, "user", "wombats burrow")
    history.db.execute("UPDATE conversations SET title = CAST(? AS TEXT) WHERE id = ?", [b"Notes \xff", cid])
    (hit,) = HistorySearch(history).search("wombats")
    assert hit.conversation_title == "Notes \ufffd"
