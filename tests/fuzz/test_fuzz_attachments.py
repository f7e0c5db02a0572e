"""Fuzzing attachments, a boundary where outside bytes come in: any file (random bytes, or a real PNG, JPEG,
GIF, WebP or PDF with bytes overwritten or cut short) under any name is prepared or refused with an
AttachmentError, never another exception; whatever is prepared is something every wire format can send."""

from __future__ import annotations

from hypothesis import event, example, given
from hypothesis import strategies as st

from app.attachments import AttachmentError, attachment_from_bytes
from app.attachments.limits import MAX_DOCUMENT_CHARS, MAX_IMAGE_EDGE
from orchestration.messages import DocumentPart, ImagePart
from tests.support.attachment_files import image_bytes, text_pdf

SEEDS = [image_bytes(30, 20), image_bytes(30, 20, fmt="JPEG"), image_bytes(30, 20, fmt="GIF", frames=2),
         image_bytes(30, 20, fmt="WEBP"), text_pdf("Otters", "hold hands"), b"plain text\n", b'{"a": [1, 2]}']
NAMES = st.sampled_from(["a.png", "b.jpg", "c.gif", "d.webp", "e.pdf", "f.txt", "g.json", "h", "i.zip"])


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    if draw(st.booleans()):
        return bytes(data[: draw(st.integers(min_value=0, max_value=len(data)))])
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        data[draw(st.integers(min_value=0, max_value=len(data) - 1))] = draw(st.integers(min_value=0, max_value=255))
    return bytes(data)


CUT_GIF = (b"GIF89a\x1e\x00\x14\x00\x81\x00\x00\xc8\x1e\x1e\x00\x00\x00\x00\x00\x00\x00\x00\x00!\xff\x0bNETSCAPE2.0"
           b"\x03\x01\x00\x00\x00!\xf9\x04\x00\n\x00\x00\x00,\x00\x00\x00\x00\x1e\x00\x14\x00\x00\x08*\x00\x01\x08"
           b"\x1cH\xb0\xa0\xc1\x83\x08\x13*\\\xc8\xb0\xa1\xc3\x87\x10#J\x9cH\xb1\xa2\xc5\x8b\x183j\xdc\xc8\xb1\xa3"
           b"\xc7\x8f C\x8a,\x18\x10\x00!")  # an animated GIF cut short: Pillow raised IndexError counting frames


@example(name="a.gif", data=CUT_GIF)
@given(name=NAMES, data=st.one_of(damaged(), st.binary(max_size=300)))
def test_any_file_is_prepared_or_refused_with_a_reason(name: str, data: bytes):
    try:
        prepared = attachment_from_bytes(name, data)
    except AttachmentError as problem:
        event(f"refused: {problem.problem}")
        assert name in str(problem)
        return
    part = prepared.part
    event(f"prepared: {part.kind}")
    if isinstance(part, ImagePart):
        assert max(part.width, part.height) <= MAX_IMAGE_EDGE and part.data == prepared.stored
    else:
        assert isinstance(part, DocumentPart) and prepared.stored == data
        assert len(part.text) <= MAX_DOCUMENT_CHARS + 400  # the text and at most its note
