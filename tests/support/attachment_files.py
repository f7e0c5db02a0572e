"""Real files to attach, made in the test: images with Pillow, PDFs written by hand (a text layer) or by pypdf
(blank pages: no text layer, like a scan)."""

from __future__ import annotations

import io

from PIL import Image
from pypdf import PdfWriter


def image_bytes(width: int = 8, height: int = 6, *, fmt: str = "PNG", color: tuple[int, int, int] = (200, 30, 30),
                frames: int = 1) -> bytes:
    buffer = io.BytesIO()
    images = [Image.new("RGB", (width, height), (color[0], color[1], (color[2] + 40 * i) % 256))
              for i in range(frames)]
    if frames > 1:
        images[0].save(buffer, format=fmt, save_all=True, append_images=images[1:], duration=100, loop=0)
    else:
        images[0].save(buffer, format=fmt)
    return buffer.getvalue()


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(*pages: str) -> bytes:
    """A PDF with one page per text (Helvetica, one line each), with a correct cross-reference table."""
    objects: list[bytes] = []
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    font_id = 3 + 2 * count
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({_escape(text)}) Tj ET".encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                       f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode())
        objects.append(b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def scanned_pdf(pages: int = 2) -> bytes:
    """A PDF whose pages have no text layer (blank pages stand in for scanned pictures)."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()
