"""``parley chat --attach`` as a real process against a loopback model: files go in the request and the
history; bad files and images for a model without vision are refused with exit code 2 before anything is
saved or sent."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.e2e.test_cli_chat import chat_args, parley
from tests.support.attachment_files import image_bytes, scanned_pdf
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response


def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    photo, notes, scan = tmp_path / "photo.png", tmp_path / "notes.md", tmp_path / "scan.pdf"
    photo.write_bytes(image_bytes(16, 12))
    notes.write_text("# Otters\nThey float.\n")
    scan.write_bytes(scanned_pdf(1))
    return photo, notes, scan


def test_repeated_attach_sends_every_file_and_saves_them(loopback: LoopbackServer, tmp_path: Path):
    loopback.always("POST", "/v1/chat/completions", stream_response("An otter."))
    photo, notes, scan = files(tmp_path)
    home = tmp_path / "home"
    proc = parley(*chat_args(loopback, "--preset", "openai"), "--data-dir", str(home), "--tools", "none",
                  "--attach", str(photo),
                  "--attach", str(notes), "--attach", str(scan), "What is this?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "An otter."
    assert "scan.pdf: [This PDF has no text layer (1 page)" in proc.stderr
    content = loopback.requests[0].json["messages"][-1]["content"]
    assert [c["type"] for c in content] == ["image_url", "text", "text", "text"]
    assert content[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert content[1]["text"].startswith("[Attached file: notes.md]\n# Otters")
    assert content[-1] == {"type": "text", "text": "What is this?"}
    with sqlite3.connect(home / "data" / "history.db") as db:
        rows = db.execute("SELECT kind, name, sha256 FROM message_attachments ORDER BY position").fetchall()
    assert [r[:2] for r in rows] == [("image", "photo.png"), ("document", "notes.md"), ("document", "scan.pdf")]
    assert all((home / "data" / "attachments" / sha[:2] / sha).is_file() for _, _, sha in rows)
    shown = parley("history", "show", "1", "--data-dir", str(home))
    assert "user [attached: photo.png, notes.md, scan.pdf]: What is this?" in shown.stdout


def test_bad_files_are_refused_before_anything_is_sent(loopback: LoopbackServer, tmp_path: Path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    home = tmp_path / "home"
    for path, words in [(empty, "--attach: empty.txt is empty"), (tmp_path / "gone.png", "could not read"),
                        (tmp_path, "is a folder")]:
        proc = parley(*chat_args(loopback), "--data-dir", str(home), "--attach", str(path), "hi")
        assert proc.returncode == 2, proc.stderr
        assert words in proc.stderr
    assert loopback.count == 0
    assert not (home / "data" / "history.db").exists()


def test_an_image_for_a_model_without_vision_is_refused(loopback: LoopbackServer, tmp_path: Path):
    photo, _, _ = files(tmp_path)
    proc = parley("chat", "--preset", "custom", "--base-url", loopback.url + "/v1", "--model", "textonly",
                  "--data-dir", str(tmp_path / "home"), "--attach", str(photo), "What is this?")
    assert proc.returncode == 2, proc.stderr
    assert "textonly" in proc.stderr and "does not accept images; remove photo.png" in proc.stderr
    assert loopback.count == 0
