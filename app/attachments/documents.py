"""Documents sent as text: plain text, Markdown, source code, CSV and JSON as they are (UTF-8, or UTF-16 with
a byte-order mark), PDF through its text layer (``pdf.py``). The text is cut at ``MAX_DOCUMENT_CHARS`` and the
cut is said in the text itself, so the model knows it has not seen the whole file; ``note`` tells the user.
"""

from __future__ import annotations

import codecs
import hashlib
from pathlib import PurePath

from app.attachments.errors import AttachmentError
from app.attachments.limits import MAX_DOCUMENT_CHARS
from app.attachments.pdf import pdf_text
from orchestration.messages import DocumentPart

PDF_MAGIC = b"%PDF-"
# extension -> media type; any other file that is UTF-8 text goes as text/plain
_TEXT_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv",
               ".tsv": "text/tab-separated-values", ".json": "application/json", ".jsonl": "application/jsonl",
               ".html": "text/html", ".htm": "text/html", ".xml": "application/xml", ".yaml": "application/yaml",
               ".yml": "application/yaml"}


def _cut_note(name: str, shown: int, more: str) -> str:
    return f"[Cut: only the first {shown:,} characters of {name} are included; {more} (the attachment limit).]"


def _cut(name: str, text: str, limit: int) -> tuple[str, str]:
    if len(text) <= limit:
        return text, ""
    note = _cut_note(name, limit, f"{len(text) - limit:,} more characters were left out")
    return f"{text[:limit]}\n\n{note}", note


def _decode(name: str, data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
        if b"\x00" in data:
            raise _not_text(name)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise _not_text(name) from None


def _not_text(name: str) -> AttachmentError:
    return AttachmentError("unsupported", name, (
        f"{name} is neither an image (PNG, JPEG, WebP, GIF), a PDF, nor UTF-8 text; Parley cannot attach it."))


def prepare_document(name: str, data: bytes, *, limit: int = MAX_DOCUMENT_CHARS) -> DocumentPart:
    """The document as sent. Raises AttachmentError (``unsupported`` or ``corrupt``)."""
    digest = hashlib.sha256(data).hexdigest()
    if data.startswith(PDF_MAGIC) or PurePath(name).suffix.lower() == ".pdf":
        if not data.startswith(PDF_MAGIC):
            raise AttachmentError("corrupt", name, f"{name} is named like a PDF but is not one (no %PDF header).")
        extracted = pdf_text(name, data, limit)
        body, text, note = extracted.text, extracted.text, ""
        skipped = extracted.pages - extracted.pages_read
        if len(body) > limit or skipped:
            left_out = [f"{len(body) - limit:,} more characters were left out"] if len(body) > limit else []
            if skipped:
                left_out.append(f"pages {extracted.pages_read + 1} to {extracted.pages} were not read")
            note = _cut_note(name, min(len(body), limit), " and ".join(left_out))
            text = f"{body[:limit]}\n\n{note}"
        if not extracted.has_text:
            note = extracted.text
        return DocumentPart(name=name, media_type="application/pdf", text=text, sha256=digest, size=len(data),
                            note=note)
    text, note = _cut(name, _decode(name, data), limit)
    media_type = _TEXT_TYPES.get(PurePath(name).suffix.lower(), "text/plain")
    return DocumentPart(name=name, media_type=media_type, text=text, sha256=digest, size=len(data), note=note)
