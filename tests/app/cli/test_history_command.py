"""``parley history``, ``search``, ``export`` and ``import`` against a real database in the test's home."""

from __future__ import annotations

import json

import pytest

from app.paths import resolve_paths
from app.storage import History
from tests.app.cli_helpers import run_cli
from tests.app.storage.test_history import record_answer


@pytest.fixture
def cli(capsys, monkeypatch):
    return lambda *argv, stdin="": run_cli(capsys, monkeypatch, *argv, stdin=stdin)


@pytest.fixture
def saved():
    """Two conversations: one with a tool call, one about Lisbon."""
    with History.open(resolve_paths().database) as history:
        math = history.create_conversation("Egg arithmetic")
        record_answer(history, math, "How many eggs for three cakes?", "Twelve eggs.", with_tool=True)
        trip = history.create_conversation("Lisbon trip")
        record_answer(history, trip, "Where to eat in Lisbon?", "Try Alfama.")
    return {"math": math, "trip": trip}


def test_list_show_rename_delete(cli, saved):
    listing = cli("history", "list")
    assert listing.code == 0
    assert listing.out.splitlines()[0].split()[0] == str(saved["trip"])  # newest first
    assert "Egg arithmetic" in listing.out and "2 msgs" in listing.out
    shown = cli("history", "show", str(saved["math"]))
    assert "user: How many eggs for three cakes?" in shown.out and "[tools: calculate]" in shown.out
    data = json.loads(cli("history", "show", str(saved["math"]), "--json").out)
    assert data["conversation"]["title"] == "Egg arithmetic" and len(data["messages"]) == 3
    assert cli("history", "rename", str(saved["math"]), "Baking maths").code == 0
    assert json.loads(cli("history", "list", "--json").out)[1]["title"] == "Baking maths"
    deleted = cli("history", "delete", str(saved["math"]))
    assert deleted.code == 0 and "Baking maths" in deleted.out
    assert [c["id"] for c in json.loads(cli("history", "list", "--json").out)] == [saved["trip"]]


def test_branch_and_switch(cli, saved):
    with History.open(resolve_paths().database) as history:
        first_user = history.branch(saved["trip"])[0].id
    result = cli("history", "branch", str(saved["trip"]), str(first_user))
    assert result.code == 0 and "new branch" in result.out
    with History.open(resolve_paths().database) as history:
        record_answer(history, saved["trip"], "Where to eat in Porto?", "Try Ribeira.")
    shown = cli("history", "show", str(saved["trip"])).out
    assert "Porto" in shown and "eat in Lisbon" not in shown and "(2 of 2 versions)" in shown
    assert cli("history", "switch", str(saved["trip"]), str(first_user)).code == 0
    assert "eat in Lisbon" in cli("history", "show", str(saved["trip"])).out


def test_search_prints_snippets(cli, saved):
    result = cli("search", "lisbon")
    assert result.code == 0
    assert f"{saved['trip']}  Lisbon trip  (title" in result.out and "    Lisbon trip" in result.out.splitlines()
    assert "**" not in result.out  # a pipe gets the text unmarked; --json keeps its marks
    hits = json.loads(cli("search", "alfama", "--json").out)
    assert [(h["conversation_id"], h["role"]) for h in hits] == [(saved["trip"], "assistant")]
    assert cli("search", "nothing-like-this").err.strip() == "No matches."
    assert cli("search", "---").code == 2


def test_export_and_import_files(cli, saved, tmp_path):
    target = tmp_path / "out" / "math.json"
    target.parent.mkdir()
    assert cli("export", str(saved["math"]), "--format", "json", "-o", str(target)).code == 0
    imported = cli("import", str(target))
    assert imported.code == 0 and "Imported 3 messages as conversation" in imported.out
    new_id = int(imported.out.split()[-1].rstrip("."))
    original = cli("export", str(saved["math"]), "--format", "md").out
    copy = cli("export", str(new_id), "--format", "md").out
    assert original.replace(f"Conversation {saved['math']}", "") == copy.replace(f"Conversation {new_id}", "")
    assert "**Tool call** `calculate`" in original


@pytest.mark.parametrize("argv", [("history", "show", "999"), ("history", "delete", "999"), ("export", "999"),
                                  ("history", "rename", "1", "  ")])
def test_unknown_ids_and_empty_titles_are_usage_errors(cli, argv):
    result = cli(*argv)
    assert result.code == 2 and result.err.startswith("parley: ")


def test_import_of_a_bad_file_is_an_error_naming_it(cli, tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("[]")
    result = cli("import", str(path))
    assert result.code == 1 and str(path) in result.err


def test_data_dir_option_moves_everything(cli, tmp_path, saved):
    other = tmp_path / "elsewhere"
    assert cli("--data-dir", str(other), "history", "list").err.strip() == "No saved conversations yet."
    assert cli("history", "list", "--data-dir", str(other)).err.strip() == "No saved conversations yet."
    assert (other / "data" / "history.db").exists()


def test_corrupt_database_is_named_and_untouched(cli):
    path = resolve_paths().database
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all" * 100)
    result = cli("history", "list")
    assert result.code == 1 and str(path) in result.err and "damaged" in result.err
    assert path.read_bytes() == b"not a database at all" * 100


@pytest.mark.parametrize(("argv", "message"), [
    (["chat", "--continue"], "--continue needs --conversation ID"),
    (["chat", "--conversation", "1", "--continue", "more"], "it takes no prompt"),
    (["chat", "--conversation", "1", "--continue", "--regenerate"], "cannot be used together"),
])
def test_continue_is_refused_without_a_conversation_or_with_a_prompt(cli, argv, message):
    result = cli(*argv)
    assert result.code == 2 and message in result.err


def test_import_of_an_export_a_newer_version_made_names_what_it_left_out(cli, saved, tmp_path):
    target = tmp_path / "math.json"
    assert cli("export", str(saved["math"]), "--format", "json", "-o", str(target)).code == 0
    document = json.loads(target.read_text())
    document["runs"][0]["carbon_g"] = 0.4  # a field a newer version added within format version 2
    target.write_text(json.dumps(document))
    imported = cli("import", str(target))
    assert imported.code == 0 and "Imported 3 messages as conversation" in imported.out
    assert imported.err.strip() == ("Left out 1 field this version of Parley does not know (the file was made by a "
                                    "newer version): runs[].carbon_g.")
    document["version"] = 3
    target.write_text(json.dumps(document))
    refused = cli("import", str(target))
    assert refused.code == 1 and "exported by a newer version of Parley (export format version 3)" in refused.err


def test_search_finds_a_message_whose_stored_text_is_not_utf8(cli, saved):
    with History.open(resolve_paths().database) as history:
        answer = history.branch(saved["trip"])[-1].id
        history.db.execute("UPDATE messages SET content = CAST(? AS TEXT) WHERE id = ?",
                           [b"Try Alfama \xe9 at night", answer])
    result = cli("search", "alfama")
    assert result.code == 0, result.err
    assert "\ufffd" in result.out and "Alfama" in result.out
    (hit,) = json.loads(cli("search", "alfama", "--json").out)
    assert hit["message_id"] == answer and "\ufffd" in hit["snippet"]


def test_import_cuts_an_overlong_attachment_name_and_says_so(cli, tmp_path):
    from app.attachments import attachment_from_bytes
    from app.storage.run_recorder import RunRecorder

    with History.open(resolve_paths().database) as history:
        cid = history.create_conversation("Minutes")
        RunRecorder(history, cid).begin("Summarise", attachments=[attachment_from_bytes("minutes.txt", b"agenda")])
    target = tmp_path / "minutes.json"
    assert cli("export", str(cid), "--format", "json", "-o", str(target)).code == 0
    document = json.loads(target.read_text())
    document["messages"][0]["attachments"][0]["name"] = "n" * 2000 + ".txt"
    target.write_text(json.dumps(document))
    imported = cli("import", str(target))
    assert imported.code == 0 and "Imported 1 messages as conversation" in imported.out
    assert imported.err.strip() == ("Cut 1 attachment name longer than 255 characters to its start and extension "
                                    "(the longest had 2,004).")
    new_id = int(imported.out.split()[-1].rstrip("."))
    shown = json.loads(cli("history", "show", str(new_id), "--json").out)
    (attachment,) = shown["messages"][0]["attachments"]
    assert attachment["name"] == "n" * 250 + "….txt"
