"""``parley history list``, ``search``, ``show`` and ``export`` as a real process over a history holding BLOBs
where text belongs (a title, a message, a run event): each damaged value shown marked, every other
conversation still listed, found and exported, and one note on stderr counting the damaged values."""

from __future__ import annotations

import json

from app.paths import resolve_paths
from app.storage import History
from app.storage.damaged_values import DAMAGED_MARK
from tests.app.cli.test_damaged_history_cli import parley
from tests.app.storage.test_blob_values import blob_history

NOTE = "parley: note: 1 damaged value shown as \"[damaged value]\"; the rest of the history is intact."


def test_a_blob_title_leaves_list_search_and_export_working(parley_home):
    with History.open(resolve_paths().database) as history:
        ids = blob_history(history)
    listed = parley(parley_home, "history", "list")
    assert listed.returncode == 0, listed.stderr
    assert "Garden plans" in listed.stdout and "Recipes" in listed.stdout
    assert DAMAGED_MARK + "\ufffd\ufffdTrip" in listed.stdout
    assert listed.stderr.count(NOTE) == 1, listed.stderr
    found = parley(parley_home, "search", "tomatoes")
    assert found.returncode == 0, found.stderr
    assert "Garden plans" in found.stdout and DAMAGED_MARK in found.stdout and NOTE in found.stderr
    exported = parley(parley_home, "export", str(ids["titled"]), "--format", "json")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["conversation"]["title"] == DAMAGED_MARK + "\ufffd\ufffdTrip"
    intact = parley(parley_home, "export", str(ids["intact"]), "--format", "json")
    assert (intact.returncode, intact.stderr) == (0, "")


def test_a_blob_message_and_run_event_show_the_rest_of_the_conversation(parley_home):
    with History.open(resolve_paths().database) as history:
        ids = blob_history(history)
    shown = parley(parley_home, "history", "show", str(ids["texted"]))
    assert shown.returncode == 0, shown.stderr
    assert DAMAGED_MARK + "\ufffd\ufffd" in shown.stdout and "Tomatoes soup." in shown.stdout
    assert NOTE in shown.stderr
    exported = parley(parley_home, "export", str(ids["texted"]), "--format", "md")
    assert exported.returncode == 0, exported.stderr
    assert "Tomatoes soup." in exported.stdout and DAMAGED_MARK.strip() in exported.stdout
