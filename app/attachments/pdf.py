"""The text of a PDF, page by page, with pypdf; reading stops once the document limit is reached.

A PDF whose pages give no text (a scan, or only pictures) is not an error: the text says the file has no text
layer, so the model (and the user, through ``note``) knows why it is empty. A password-protected PDF is refused.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError, PyPdfError

from app.attachments.errors import AttachmentError

NO_TEXT_LAYER = ("[This PDF has no text layer ({pages}): it is probably a scan or made of pictures, so its content "
                 "could not be read as text.]")


@dataclass(frozen=True)
class PdfText:
    text: str
    pages: int
    pages_read: int  # fewer than ``pages`` when the limit was reached first
    has_text: bool


def pdf_text(name: str, data: bytes, max_chars: int) -> PdfText:
    """Raises AttachmentError (``corrupt``, or ``unsupported`` for a PDF that needs a password)."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns about every oddity it repairs
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError("password")
        pages = len(reader.pages)
        texts: list[str] = []
        total = read = 0
        for page in reader.pages:
            if total > max_chars:
                break
            text = (page.extract_text() or "").strip()
            read += 1
            if text:
                texts.append(text)
                total += len(text) + 2
    except FileNotDecryptedError:
        raise AttachmentError("unsupported", name, (
            f"{name} is protected by a password; Parley cannot read it. Save a copy without the password and "
            "attach that.")) from None
    except (PyPdfError, Exception) as exc:  # pypdf raises many kinds on damaged input (found by fuzzing)
        raise AttachmentError("corrupt", name, f"{name} is damaged and cannot be read as a PDF ({exc}).") from None
    joined = "\n\n".join(texts)
    if not joined.strip():
        word = "1 page" if pages == 1 else f"{pages} pages"
        return PdfText(NO_TEXT_LAYER.format(pages=word), pages, read, has_text=False)
    return PdfText(joined, pages, read, has_text=True)
