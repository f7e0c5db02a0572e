"""``parley search`` finds attached files by name and text, as a real process: a file attached with
``parley chat --attach``, and a history written before migration 6, indexed once by the first search."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.storage.test_attachment_search import build_version_5
from tests.e2e.test_cli_chat import chat_args, parley
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response


def test_a_file_attached_in_a_chat_is_found_by_its_text_and_name(loopback: LoopbackServer, tmp_path: Path):
    loopback.always("POST", "/v1/chat/completions", stream_response("Noted."))
    contract = tmp_path / "contract.md"
    contract.write_text("# Services agreement\nThe supplier shall indemnify the purchaser.\n")
    home = tmp_path / "home"
    proc = parley(*chat_args(loopback), "--data-dir", str(home), "--tools", "none", "--attach", str(contract),
                  "Summarise this")
    assert proc.returncode == 0, proc.stderr
    found = parley("search", "indemnify", "--data-dir", str(home))
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith("1  Summarise this  (#1 user, attached contract.md, ")
    assert "contract.md: " in lines[1] and "shall indemnify the" in lines[1] and "**" not in lines[1]
    assert "Indexing" not in found.stderr
    by_name = json.loads(parley("search", "contract", "--json", "--data-dir", str(home)).stdout)
    assert [(h["message_id"], h["attachment_name"], h["snippet"]) for h in by_name] == [
        (1, "contract.md", "**contract**.md")]


def test_the_first_search_indexes_an_older_history_once(tmp_path: Path):
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    build_version_5(home / "data" / "history.db", 12)
    first = parley("search", "quokkas", "--json", "--limit", "50", "--data-dir", str(home))
    assert first.returncode == 0, first.stderr
    assert "Indexing 12 earlier attachments for search (once)" in first.stderr
    assert sorted(h["conversation_id"] for h in json.loads(first.stdout)) == [i for i in range(1, 13) if i % 3]
    again = parley("search", "file9", "--data-dir", str(home))
    assert again.returncode == 0 and "Indexing" not in again.stderr
    assert "(#9 user, attached file9.png, " in again.stdout
