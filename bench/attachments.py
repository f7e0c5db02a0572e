"""What attachments cost: preparing a phone photo (12 MP JPEG scaled to 2,048 px), reading a 50-page PDF's text,
and summarising a request with four images for the inspector's capture (base64 decode and SHA-256 of each)
instead of dumping it as it is.

Baselines, measured in the same run: decoding the photo with Pillow and nothing else (the least any
preparation must do); ``json.dumps`` of the request as it is (what the capture did before attachments).
Prints one JSON object.

    python -m bench.attachments [--repeat R]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import time
from collections.abc import Callable

from PIL import Image

from app.attachments import attachment_from_bytes
from orchestration.binary_summary import summarize_binary
from tests.support.attachment_files import text_pdf

PHOTO_SIZE = (4032, 3024)  # a 12 MP phone photo
PDF_PAGES = 50
REQUEST_IMAGES = 4


def photo_jpeg() -> bytes:
    """A photo-like JPEG: a gradient with noise (noise alone would not compress like a photo)."""
    width, height = PHOTO_SIZE
    gradient = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    noise = Image.frombytes("L", (width // 8, height // 8), os.urandom(width // 8 * height // 8))
    noisy = Image.blend(gradient, noise.resize((width, height)).convert("RGB"), 0.3)
    buffer = io.BytesIO()
    noisy.save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def timed(work: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    photo = photo_jpeg()
    pdf = text_pdf(*(f"Page {i}: otters float on their backs and crack shells with stones. " * 8
                     for i in range(PDF_PAGES)))
    prepared = attachment_from_bytes("photo.jpg", photo).part
    request = {"model": "m", "messages": [{"role": "user", "content": [
        *({"type": "image_url", "image_url": {"url": prepared.data_url()}} for _ in range(REQUEST_IMAGES)),  # type: ignore[union-attr]
        {"type": "text", "text": "What is in these?"}]}]}

    def decode_only() -> None:
        with Image.open(io.BytesIO(photo)) as image:
            image.load()

    results = {
        "photo_bytes": len(photo), "photo_sent_bytes": len(prepared.data),  # type: ignore[union-attr]
        "prepare_photo_s": timed(lambda: attachment_from_bytes("photo.jpg", photo), repeat),
        "decode_photo_baseline_s": timed(decode_only, repeat),
        "pdf_pages": PDF_PAGES, "pdf_text_s": timed(lambda: attachment_from_bytes("paper.pdf", pdf), repeat),
        "request_chars": len(json.dumps(request)),
        "capture_summary_s": timed(lambda: json.dumps(summarize_binary(request)), repeat),
        "capture_dump_baseline_s": timed(lambda: json.dumps(request), repeat),
    }
    results["prepare_vs_decode"] = round(results["prepare_photo_s"] / results["decode_photo_baseline_s"], 2)
    results["summary_vs_dump"] = round(results["capture_summary_s"] / results["capture_dump_baseline_s"], 2)
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in results.items()}, indent=2))


if __name__ == "__main__":
    main()
