"""Attaching real files: images prepared (kept, downscaled, first frame), documents as text (cut with a note,
a PDF without a text layer says so), and every kind of bad input refused with a message naming the file."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfWriter

from app.attachments import AttachmentError, attachment_from_bytes, load_attachment, load_attachments
from app.attachments import images as images_module
from app.attachments import loader as loader_module
from app.attachments.documents import prepare_document
from app.attachments.limits import MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, MAX_IMAGE_EDGE, MAX_IMAGE_SENT_BYTES
from orchestration.messages import DocumentPart, ImagePart
from tests.support.attachment_files import image_bytes, scanned_pdf, text_pdf


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(("fmt", "media"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")])
def test_a_small_image_is_sent_byte_for_byte(tmp_path, fmt, media):
    data = image_bytes(40, 30, fmt=fmt)
    prepared = load_attachment(write(tmp_path, f"pic.{fmt.lower()}", data))
    part = prepared.part
    assert isinstance(part, ImagePart)
    assert (part.media_type, part.width, part.height, part.data) == (media, 40, 30, data)
    assert prepared.stored == data


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_a_large_image_is_scaled_to_the_edge_keeping_its_aspect(fmt):
    part = attachment_from_bytes(f"wide.{fmt.lower()}", image_bytes(4100, 1025, fmt=fmt)).part
    assert isinstance(part, ImagePart)
    assert (part.width, part.height) == (MAX_IMAGE_EDGE, 512)
    with Image.open(io.BytesIO(part.data)) as decoded:
        assert decoded.size == (MAX_IMAGE_EDGE, 512) and decoded.format == fmt


def test_an_animated_gif_is_sent_as_its_first_frame_in_png():
    part = attachment_from_bytes("wave.gif", image_bytes(30, 20, fmt="GIF", frames=3, color=(0, 0, 0))).part
    assert isinstance(part, ImagePart) and part.media_type == "image/png"
    with Image.open(io.BytesIO(part.data)) as decoded:
        assert decoded.format == "PNG" and decoded.size == (30, 20)
        assert decoded.convert("RGB").getpixel((0, 0)) == (0, 0, 0)  # the first frame's colour


def test_an_image_over_the_pixel_limit_is_refused_before_decoding(monkeypatch):
    monkeypatch.setattr(images_module, "MAX_IMAGE_PIXELS", 100)
    with pytest.raises(AttachmentError, match=r"huge\.png is 20 x 20 pixels") as caught:
        attachment_from_bytes("huge.png", image_bytes(20, 20))
    assert caught.value.problem == "too_large"


def test_documents_go_as_text_with_their_type(tmp_path):
    for name, data, media in [("notes.md", b"# Otters\n", "text/markdown"), ("data.csv", b"a,b\n1,2\n", "text/csv"),
                              ("x.json", b'{"a": 1}', "application/json"), ("main.py", b"print(1)\n", "text/plain"),
                              ("u16.txt", "héllo".encode("utf-16"), "text/plain")]:
        part = load_attachment(write(tmp_path, name, data)).part
        assert isinstance(part, DocumentPart) and part.media_type == media and not part.note
        assert part.text == ("héllo" if name == "u16.txt" else data.decode())


def test_a_long_document_is_cut_with_a_note_in_the_text():
    part = prepare_document("long.txt", b"x" * 250, limit=100)
    assert part.text.startswith("x" * 100 + "\n\n[Cut: only the first 100 characters of long.txt")
    assert "150 more characters were left out" in part.text and part.note in part.text and part.note


def test_a_pdf_gives_its_text_page_by_page():
    part = attachment_from_bytes("paper.pdf", text_pdf("Otters hold hands", "while they sleep")).part
    assert isinstance(part, DocumentPart) and part.media_type == "application/pdf"
    assert part.text == "Otters hold hands\n\nwhile they sleep" and not part.note


def test_a_long_pdf_says_which_pages_were_not_read():
    part = prepare_document("book.pdf", text_pdf(*(f"page {i} " + "w" * 60 for i in range(1, 6))), limit=100)
    assert "pages 3 to 5 were not read" in part.text and part.note in part.text


def test_a_scanned_pdf_without_text_says_so():
    part = attachment_from_bytes("scan.pdf", scanned_pdf(3)).part
    assert isinstance(part, DocumentPart)
    assert "no text layer (3 pages)" in part.text and part.note == part.text


def test_a_password_protected_pdf_is_refused():
    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    writer.encrypt("secret-password")
    buffer = io.BytesIO()
    writer.write(buffer)
    with pytest.raises(AttachmentError, match="protected by a password") as caught:
        attachment_from_bytes("locked.pdf", buffer.getvalue())
    assert caught.value.problem == "unsupported"


@pytest.mark.parametrize(("name", "data", "problem", "words"), [
    ("empty.txt", b"", "empty", "empty.txt is empty"),
    ("archive.zip", b"PK\x03\x04\x00\x00binary\x00stuff", "unsupported", "archive.zip is neither an image"),
    ("latin1.txt", "café".encode("latin-1"), "unsupported", "nor UTF-8 text"),
    ("cut.png", image_bytes(50, 50)[:60], "corrupt", "cut.png is damaged"),
    ("fake.png", b"this is text, not a picture", "unsupported", "fake.png is not an image"),
    ("fake.pdf", b"not a pdf at all", "corrupt", "fake.pdf is named like a PDF"),
    ("broken.pdf", b"%PDF-1.4\n garbage without objects", "corrupt", "broken.pdf is damaged"),
])
def test_bad_files_are_refused_naming_the_file(name, data, problem, words):
    with pytest.raises(AttachmentError) as caught:
        attachment_from_bytes(name, data)
    assert caught.value.problem == problem and words in str(caught.value)


def test_a_file_over_the_size_limit_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(MAX_ATTACHMENT_BYTES + 1)  # sparse: no disk used
    with pytest.raises(AttachmentError, match=r"huge\.txt is 20\.0 MB; attachments may be at most 20 MB"):
        load_attachment(path)


def test_missing_files_and_folders_are_refused(tmp_path):
    with pytest.raises(AttachmentError, match=r"could not read .*gone\.png") as caught:
        load_attachment(tmp_path / "gone.png")
    assert caught.value.problem == "unreadable"
    with pytest.raises(AttachmentError, match="is a folder"):
        load_attachment(tmp_path)


def test_too_many_attachments_are_refused(tmp_path):
    path = write(tmp_path, "a.txt", b"a")
    assert len(load_attachments([path] * MAX_ATTACHMENTS)) == MAX_ATTACHMENTS
    with pytest.raises(AttachmentError, match=f"at most {MAX_ATTACHMENTS}"):
        load_attachments([path] * (MAX_ATTACHMENTS + 1))


def test_an_image_over_the_sent_size_limit_becomes_a_jpeg_that_fits():
    noise = Image.frombytes("RGB", (1400, 1400), os.urandom(1400 * 1400 * 3))  # does not compress
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG")
    assert len(buffer.getvalue()) > MAX_IMAGE_SENT_BYTES
    part = attachment_from_bytes("noise.png", buffer.getvalue()).part
    assert isinstance(part, ImagePart) and part.media_type == "image/jpeg"
    assert len(part.data) <= MAX_IMAGE_SENT_BYTES
    assert part.width / part.height == 1.0 and part.width <= 1400


def test_attachments_together_may_not_pass_the_message_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(loader_module, "MAX_MESSAGE_BYTES", 150)
    first, second = write(tmp_path, "a.txt", b"a" * 100), write(tmp_path, "b.txt", b"b" * 100)
    assert len(load_attachments([first])) == 1
    with pytest.raises(AttachmentError, match=r"together the attachments are 200 bytes as sent; .* b\.txt was not"):
        load_attachments([first, second])


def test_a_name_longer_than_the_limit_is_cut_keeping_its_start_and_extension():
    from app.attachments.limits import MAX_ATTACHMENT_NAME_CHARS

    long_name = "report " + "x" * 400 + ".md"
    prepared = attachment_from_bytes(long_name, b"# notes\n")
    assert len(prepared.name) == MAX_ATTACHMENT_NAME_CHARS
    assert prepared.name.startswith("report xxx") and prepared.name.endswith("x….md")
    assert isinstance(prepared.part, DocumentPart) and prepared.part.text.startswith("# notes")
    exact = "y" * (MAX_ATTACHMENT_NAME_CHARS - 4) + ".txt"
    assert attachment_from_bytes(exact, b"kept").name == exact
